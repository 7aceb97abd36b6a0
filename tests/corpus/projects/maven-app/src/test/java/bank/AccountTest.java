package bank;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class AccountTest {
    @Test
    public void depositAddsToTheBalance() {
        Account a = new Account(100);
        a.deposit(50);
        assertEquals(150, a.balance());
    }

    @Test
    public void interestIsAPercentage() {
        Account a = new Account(1000);
        assertEquals(50, a.interest(5));
    }

    @Test
    public void withdrawCannotOverdraw() {
        Account a = new Account(10);
        a.withdraw(20);
        assertEquals(10, a.balance());
    }

    @Test
    public void depositOfZeroIsIgnored() {
        Account a = new Account(10);
        a.deposit(0);
        assertEquals(10, a.balance());
    }
}
