package inventory

// Report sums the levels.
func Report(levels []Level) int {
	total := 0
	unused := len(levels)
	for _, l := range levels {
		total += l.Count
	}
	return total
}
