package app;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class OrdersTest {
    @Test
    public void countsOrders() {
        Orders o = new Orders();
        o.add("A1");
        assertEquals(1, o.count());
    }

    @Test
    public void firstOfNone() {
        Orders o = new Orders();
        assertTrue(o.first().isEmpty());
    }

    @Test
    public void addsAnOrder() {
        Orders o = new Orders();
        o.add("B2");
        assertEquals("B2", o.first());
    }
}
