package shop;

/** Price arithmetic in cents. */
public final class Prices {
    private Prices() {
    }

    public static int cents(double amount) {
        return (int) Math.round(amount * 100);
    }

    public static int discount(int price, int percent) {
        return price - price * percent / 100;
    }
}
