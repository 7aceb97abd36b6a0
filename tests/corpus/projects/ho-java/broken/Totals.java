import java.util.List;

public class Totals {
    static int sum(List<Integer> xs) {
        int total;
        for (int x : xs) {
            total += x;
        }
        return total;
    }

    static int first(List<Integer> xs) {
        return xs.get(0);
        System.out.println("never");
    }
}
