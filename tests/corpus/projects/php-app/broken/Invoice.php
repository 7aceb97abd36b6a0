<?php

declare(strict_types=1);

namespace Shop;

final class Invoice
{
    public function number(int $n): string
    {
        return sprintf('INV-%05d', $n)
    }
}
