<?php

declare(strict_types=1);

namespace Shop\Tests;

use PHPUnit\Framework\TestCase;
use Shop\Discount;

final class DiscountTest extends TestCase
{
    public function testApply(): void
    {
        $this->assertSame(180, Discount::apply(200, 10));
    }

    public function testFullDiscount(): void
    {
        $this->assertSame(0, Discount::apply(50, 150));
    }
}
