package bank;

/** A bank account holding a balance in cents. */
public class Account {
    private long balance;

    public Account(long opening) {
        this.balance = opening;
    }

    public long balance() {
        return balance;
    }

    public void deposit(long cents) {
        if (cents <= 0) {
            throw new IllegalArgumentException("deposit must be positive: " + cents);
        }
        balance += cents;
    }

    public void withdraw(long cents) {
        balance -= cents;
    }

    public long interest(int percent) {
        return balance * percent / 1000;
    }
}
