<?php

declare(strict_types=1);

require __DIR__ . '/../src/Cart.php';
require __DIR__ . '/../src/Discount.php';
