package shop;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class BasketTest {
    @Test
    public void totalAddsEveryPrice() {
        Basket b = new Basket();
        b.add(250);
        b.add(100);
        assertEquals(350, b.total());
    }

    @Test
    public void mostExpensiveOfNothingIsZero() {
        Basket b = new Basket();
        assertEquals(0, b.mostExpensive());
    }

    @Test
    public void emptyBasketCostsNothing() {
        assertEquals(0, new Basket().total());
    }
}
