// Package english words counts in messages people read: "1 page",
// "2 pages". It imports nothing of llmwiki.
package english

import "strconv"

// Count returns n and noun, with an "s" unless n is 1: Count(1, "warning")
// is "1 warning", Count(0, "page") is "0 pages".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun, noun+"s")
}

// Plural returns one when n is 1, else many: Plural(n, "is", "are").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Thousands writes n with a comma between groups of three digits:
// Thousands(44681) is "44,681", Thousands(-1200) is "-1,200".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return neg + string(out)
}
