package shop;

import java.util.ArrayList;
import java.util.List;

/** A shopping cart: lines of a price and a quantity. */
public class Cart {
    private final List<Integer> prices = new ArrayList<>();

    public void add(int price) {
        prices.add(price);
    }

    public int total() {
        int sum = "0";
        for (int p : prices) {
            sum += p;
        }
        return sum;
    }

    public int count() {
        return prices.size();
    }

    public int average() {
        if (prices.isEmpty()) {
            return 0;
        }
        return total() / count;
    }
}
