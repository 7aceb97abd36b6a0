package units

// Grams converts kilograms to grams.
func Grams(kg int) int {
	return kg * 100
}
