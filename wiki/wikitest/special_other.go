//go:build !unix

package wikitest

import "testing"

// SpecialKinds are the kinds of file [MakeSpecial] makes: none here.
var SpecialKinds []string

// MakeSpecial skips the test: FIFOs and Unix sockets are made on Unix only.
func MakeSpecial(tb testing.TB, path, kind string) string {
	tb.Skip("FIFOs and sockets are tested on Unix only")
	return ""
}
