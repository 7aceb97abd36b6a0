package text

import "testing"

func TestTitle(t *testing.T) {
	if got := Title("shop"); got != "Shop" {
		t.Errorf("Title(shop) = %q", got)
	}
}
