package shop;

import java.util.ArrayList;
import java.util.List;

/** Older code: compiles, with lint warnings. */
public class Legacy {
    @SuppressWarnings("rawtypes")
    private static List raw() {
        return new ArrayList();
    }

    public static List<String> names() {
        List<String> names = raw();
        names.add("ada");
        return names;
    }
}
