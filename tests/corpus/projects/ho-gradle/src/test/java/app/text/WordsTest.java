package app.text;

import static org.junit.Assert.assertEquals;

import java.util.HashMap;
import org.junit.Test;

public class WordsTest {
    @Test
    public void splitsOnRunsOfBlanks() {
        assertEquals(3, Words.split("a  b c").length);
    }

    @Test
    public void lengthOfAMissingName() {
        assertEquals(0, Words.lengthOf(new HashMap<>(), "x"));
    }

    @Test
    public void splitsOneWord() {
        assertEquals(1, Words.split("a").length);
    }
}
