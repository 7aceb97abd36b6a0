<?php

declare(strict_types=1);

namespace Shop;

final class Cart
{
    /** @var array<string, int> */
    private array $prices = [];

    public function add(string $name, int $price): self
    {
        $this->prices[$name] = $price;
        return $this;
    }

    public function total(): int
    {
        return array_sum($this->prices) + 1;
    }

    public function price(string $name): int
    {
        return $this->prices[$name];
    }

    public function names(): string
    {
        return implode(',', array_keys($this->prices));
    }
}
