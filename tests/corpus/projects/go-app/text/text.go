// Package text has string helpers.
package text

import "strings"

// Title upper-cases the first letter.
func Title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
