// Package vetme has mistakes that compile but that go vet finds.
package vetme

import "fmt"

// Describe prints an item.
func Describe(name string, count int) string {
	return fmt.Sprintf("%d items of %d", name, count)
}

// Reset zeroes a counter.
func Reset(n int) int {
	n = n
	return n
}
