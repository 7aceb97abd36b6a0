<?php

declare(strict_types=1);

namespace Shop\Tests;

use PHPUnit\Framework\TestCase;
use Shop\Cart;

final class CartTest extends TestCase
{
    public function testTotal(): void
    {
        $cart = (new Cart())->add('tea', 10)->add('cake', 20);
        $this->assertSame(30, $cart->total());
    }

    public function testNames(): void
    {
        $cart = (new Cart())->add('tea', 10)->add('cake', 20);
        $this->assertSame('tea, cake', $cart->names());
    }

    public function testPriceOfMissingItem(): void
    {
        $this->assertSame(0, (new Cart())->price('milk'));
    }

    public function testEmpty(): void
    {
        $this->assertSame('', (new Cart())->names());
    }
}
