<?php

declare(strict_types=1);

namespace Shop;

final class Receipt
{
    public function lines(array $items): array
    {
        $out = [];
        foreach ($items as $name => $price) {
            $out[] = "$name: $price";
        }
        return $out;
    }
}
}
