package bank;

/** A transfer between two accounts. */
public class Transfer {
    private final String from;
    private final String to;
    private final long cents;

    public Transfer(String from, String to, long cents) {
        this.from = from;
        this.to = to;
        this.cents = cents;
    }

    public int amount() {
        return cents;
    }

    public String describe() {
        return from + " -> " + to + ": " + centz;
    }
}
