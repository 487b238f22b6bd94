package wiki

import (
	"bytes"
	"sort"
)

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func sortStrings(s []string) { sort.Strings(s) }

// FirstLineCRLF reports whether doc's first line ends in "\r\n". It decides
// the line ends of a file llmwiki rewrites: a page, context.md or
// guidelines.md written on Windows keeps "\r\n" on every line.
func FirstLineCRLF(doc []byte) bool {
	i := bytes.IndexByte(doc, '\n')
	return i > 0 && doc[i-1] == '\r'
}

// WithLineEnds returns b with every line end "\r\n" when crlf, else b as
// given.
func WithLineEnds(b []byte, crlf bool) []byte {
	if !crlf {
		return b
	}
	return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}
