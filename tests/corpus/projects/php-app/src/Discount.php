<?php

declare(strict_types=1);

namespace Shop;

final class Discount
{
    public static function apply(int $price, int $percent): int
    {
        if ($percent > 100) {
            throw new \InvalidArgumentException("percent out of range: $percent");
        }
        return intdiv($price * (100 - $percent), 100);
    }
}
