package shop;

import java.util.Map;

/** Whether a product can be sold. */
public class Stock {
    private final Map<String, Integer> levels;

    public Stock(Map<String, Integer> levels) {
        this.levels = levels;
    }

    public boolean available(String code) {
        if (levels.getOrDefault(code, 0) > 0) {
            return true;
        }
    }
}
