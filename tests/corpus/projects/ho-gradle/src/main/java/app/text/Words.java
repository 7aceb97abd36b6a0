package app.text;

import java.util.Map;

public class Words {
    public static String[] split(String line) {
        // planted: a run of blanks makes empty words
        return line.trim().split(" ");
    }

    public static int lengthOf(Map<String, String> names, String key) {
        return names.get(key).length();
    }
}
