package bank;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class LedgerTest {
    @Test
    public void recordsEntries() {
        Ledger l = new Ledger();
        l.record("open");
        assertEquals(1, l.size());
    }

    @Test
    public void lastOfAnEmptyLedger() {
        Ledger l = new Ledger();
        assertEquals("", l.last());
    }
}
