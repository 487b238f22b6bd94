package review

import (
	"strings"
	"testing"
)

func TestUnifiedDiffHeaders(t *testing.T) {
	cases := []struct {
		name          string
		old, new      []byte
		head          string
		added, remove int
	}{
		{"created", nil, []byte("a\nb\n"), "--- /dev/null\n+++ b/p.md\n", 2, 0},
		{"deleted", []byte("a\n"), nil, "--- a/p.md\n+++ /dev/null\n", 0, 1},
		{"updated", []byte("a\n"), []byte("b\n"), "--- a/p.md\n+++ b/p.md\n", 1, 1},
		{"emptied", []byte("a\n"), Present(nil), "--- a/p.md\n+++ b/p.md\n", 0, 1},
		{"binary", []byte{0xff, 0xfe}, []byte("a\n"), "", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, add, rm := UnifiedDiff("p.md", c.old, c.new)
			if !strings.HasPrefix(d, c.head) || (c.head == "" && d != "") {
				t.Errorf("diff = %q, want it to start with %q", d, c.head)
			}
			if add != c.added || rm != c.remove {
				t.Errorf("added, removed = %d, %d, want %d, %d", add, rm, c.added, c.remove)
			}
		})
	}
}
