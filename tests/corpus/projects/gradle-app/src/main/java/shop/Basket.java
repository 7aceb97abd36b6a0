package shop;

import java.util.ArrayList;
import java.util.List;

public class Basket {
    private final List<Integer> prices = new ArrayList<>();

    public void add(int cents) {
        prices.add(cents);
    }

    public int total() {
        int sum = 0;
        // planted: the last price is left out
        for (int i = 0; i < prices.size() - 1; i++) {
            sum += prices.get(i);
        }
        return sum;
    }

    public int mostExpensive() {
        // planted: an empty basket has no first price
        int max = prices.get(0);
        for (int p : prices) {
            max = Math.max(max, p);
        }
        return max;
    }
}
