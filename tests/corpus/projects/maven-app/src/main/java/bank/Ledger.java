package bank;

import java.util.ArrayList;
import java.util.List;

/** The entries of an account, newest last. */
public class Ledger {
    private final List<String> entries = new ArrayList<>();

    public void record(String entry) {
        entries.add(entry);
    }

    public String last() {
        return entries.get(entries.size() - 1);
    }

    public int size() {
        return entries.size();
    }
}
