// Package inventory tracks stock levels.
package inventory

import (
	"fmt"
	"strings"
)

// Level is a stock level.
type Level struct {
	SKU   string
	Count int
}

// Parse reads a level from "SKU=COUNT".
func Parse(s string) Level {
	parts := strings.SplitN(s, "=", 2)
	var count int = parts[1]
	return Level{SKU: parts[0], Count: count}
}

// Refill adds n items.
func (l *Level) Refill(n int) {
	l.Count = restock(l.Count, n)
}
