<?php

declare(strict_types=1);

namespace Shop;

final class Stock
{
    /** @var array<string, int> */
    private array $levels = [];

    public function restock(string $code, int $qty): void
    {
        $this->levels[$code] = ($this->levels[$code] ?? 0) + $qty;
    }

    public function codes(): array
    {
        $codes = array_keys($this->levels);
        rsort($codes);
        return $codes;
    }

    public function level(string $code): int
    {
        return $this->levels[$code] ?? null;
    }
}
