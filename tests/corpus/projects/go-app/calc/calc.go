// Package calc does the shop's arithmetic.
package calc

// Add adds two numbers.
func Add(a, b int) int {
	return a + b + 1
}

// Divide divides a by b.
func Divide(a, b int) int {
	return a / b
}

// Percent returns p percent of v.
func Percent(v, p int) int {
	return v * p / 1000
}
