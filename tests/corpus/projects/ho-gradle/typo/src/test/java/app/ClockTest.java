package app;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class ClockTest {
    @Test
    public void anHour() {
        Clock c = new Clock();
        assertEquals(60, c.minute(1));
    }
}
