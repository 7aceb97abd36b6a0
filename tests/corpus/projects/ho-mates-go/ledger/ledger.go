package ledger

import "strings"

// Amount reads the amount of an "item=amount" line.
func Amount(line string) int {
	parts := strings.SplitN(line, "=", 2)
	return parts[1]
}

// Lines counts the non-empty lines.
func Lines(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if l != "" {
			n++
		}
	}
	return n
}
