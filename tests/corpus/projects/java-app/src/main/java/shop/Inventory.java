package shop;

import java.util.HashMap;
import java.util.Map;

/** Stock levels by product code. */
public class Inventory {
    private final Map<String, Integer> stock = new HashMap<>();

    public void restock(String code, int quantity) {
        stock.merge(code, quantity, Integer::sum);
    }

    public int level(String code) {
        return stock.getOrDefault(code, 0);
    }

    public String label(String code) {
        return code.toUpperCas() + ": " + level(code);
    }
}
