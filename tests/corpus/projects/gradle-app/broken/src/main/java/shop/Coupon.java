package shop;

public class Coupon {
    private final String code;

    public Coupon(String code) {
        this.code = code;
    }

    public int percent() {
        // planted: a String is not an int
        int p = code.substring(4);
        return p;
    }

    public boolean valid() {
        return code.lenght() == 6;
    }
}
