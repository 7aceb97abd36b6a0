package units

import "testing"

func TestGrams(t *testing.T) {
	if got := Grams(3); got != 3000 {
		t.Errorf("Grams(3) = %d; want 3000", got)
	}
}
