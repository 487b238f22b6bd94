package httpserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// auditLines reads and parses every audit line of the wiki at root.
func auditLines(t testing.TB, root string) []store.AuditRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
	var calls []store.AuditRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, bad := store.ParseAuditLines(data)
		if bad > 0 {
			t.Fatalf("%s has %d audit lines that do not parse", filepath.Base(f), bad)
		}
		calls = append(calls, recs...)
	}
	return calls
}

// lastCall returns the last audit line of tool, or nil.
func lastCall(t testing.TB, root, tool string) *store.AuditRecord {
	t.Helper()
	var last *store.AuditRecord
	for _, c := range auditLines(t, root) {
		if c.Tool == tool {
			last = &c
		}
	}
	return last
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tempFiles lists writer temp files under root.
func tempFiles(t testing.TB, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && store.IsTempName(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}
