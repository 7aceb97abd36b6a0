package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 2); got != 4 {
		t.Errorf("Add(2, 2) = %d; want 4", got)
	}
}

func TestPercent(t *testing.T) {
	cases := []struct{ v, p, want int }{{200, 50, 100}, {80, 25, 20}}
	for _, c := range cases {
		if got := Percent(c.v, c.p); got != c.want {
			t.Errorf("Percent(%d, %d) = %d; want %d", c.v, c.p, got, c.want)
		}
	}
}

func TestDivideByZero(t *testing.T) {
	if got := Divide(1, 0); got != 0 {
		t.Fatalf("Divide(1, 0) = %d; want 0", got)
	}
}
