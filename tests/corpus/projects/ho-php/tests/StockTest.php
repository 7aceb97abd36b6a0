<?php

declare(strict_types=1);

namespace Shop\Tests;

use PHPUnit\Framework\TestCase;
use Shop\Stock;

final class StockTest extends TestCase
{
    public function testCodesAreSorted(): void
    {
        $s = new Stock();
        $s->restock('b', 1);
        $s->restock('a', 2);
        $this->assertEquals(['a', 'b'], $s->codes());
    }

    public function testUnknownLevel(): void
    {
        $this->assertSame(0, (new Stock())->level('zz'));
    }

    public function testLevel(): void
    {
        $s = new Stock();
        $s->restock('a', 2);
        $this->assertSame(2, $s->level('a'));
    }
}
