package teststore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// AuditLines reads every audit line of the wiki at root, failing the test
// on a line that does not parse.
func AuditLines(tb testing.TB, root string) []store.AuditRecord {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
	var calls []store.AuditRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		recs, bad := store.ParseAuditLines(data)
		if bad > 0 {
			tb.Fatalf("%s has %d audit lines that do not parse", filepath.Base(f), bad)
		}
		calls = append(calls, recs...)
	}
	return calls
}

// LastCall returns the last audit line of tool in the wiki at root, or nil.
func LastCall(tb testing.TB, root, tool string) *store.AuditRecord {
	tb.Helper()
	var last *store.AuditRecord
	for _, c := range AuditLines(tb, root) {
		if c.Tool == tool {
			last = &c
		}
	}
	return last
}

// TempFiles lists the store's temp files left under root.
func TempFiles(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && store.IsTempName(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}
