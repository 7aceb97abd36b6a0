package app;

import java.util.ArrayList;
import java.util.List;

/** Orders of a shop. */
public class Orders {
    private final List<String> ids = new ArrayList<>();

    public void add(String id) {
        ids.add(id);
    }

    public String first() {
        return ids.get(0);
    }

    public int count() {
        return ids.size() + 1;
    }
}
