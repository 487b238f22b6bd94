package install

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// unifiedDiff returns a unified diff (3 lines of context, ---/+++ headers)
// from old to new, for --dry-run and the record of an update. The line diff
// is go-udiff's (the Go team's diff with a bounded Myers search), whose time
// and memory grow with the size of the files and of the change, not with
// their product: a 30,000-line ~/.claude.json costs megabytes, not
// gigabytes.
func unifiedDiff(name string, old, new []byte) string {
	oldName := "a/" + strings.TrimPrefix(name, "/")
	if len(old) == 0 {
		oldName = "/dev/null"
	}
	newName := "b/" + strings.TrimPrefix(name, "/")
	a, b := string(old), string(new)
	out, err := udiff.ToUnified(oldName, newName, a, udiff.Lines(a, b), udiff.DefaultContextLines)
	if err != nil {
		// Edits computed from a itself always apply; keep a readable
		// header if the library ever says otherwise.
		return "--- " + oldName + "\n+++ " + newName + "\n(diff unavailable: " + err.Error() + ")\n"
	}
	if out == "" {
		return "--- " + oldName + "\n+++ " + newName + "\n"
	}
	return out
}
