package app;

public class Clock {
    public int minutes(int hours) {
        return hours * 60;
    }
}
