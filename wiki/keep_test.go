package wiki

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The retention keeps the snapshots a KeepFunc names, by file and version;
// KeepAll keeps every one.
func TestSetKeepSnapshots(t *testing.T) {
	clk := &jumpClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir, WithClock(clk.now))
	sums := writeVersions(t, s, "Topic", "v1\n", "v2\n", "v3\n", "v4\n")
	schema := readFile(t, dir, "schema.md")
	schema = strings.Replace(schema, "snapshot_keep_days: 0 ", "snapshot_keep_days: 30", 1)
	schema = strings.Replace(schema, "snapshot_keep_last: 20", "snapshot_keep_last: 1 ", 1)
	mustWrite(t, dir, "schema.md", schema)
	clk.jump(60 * 24 * time.Hour)
	const rel = "pages/topic.md"
	v1, v2, v4 := sums[0], sums[1], sums[3]
	for _, tc := range []struct {
		name string
		keep KeepFunc
		want []string // deleted versions
	}{
		{"no hook", nil, []string{v1, v2}},
		{"empty set", func() map[string]bool { return nil }, []string{v1, v2}},
		{"one version", func() map[string]bool { return map[string]bool{KeepKey(rel, v1): true} }, []string{v2}},
		{"that version of another file", func() map[string]bool { return map[string]bool{KeepKey("pages/other.md", v1): true} }, []string{v1, v2}},
		{"the current version", func() map[string]bool { return map[string]bool{KeepKey(rel, v4): true} }, []string{v1, v2}},
		{"keep all", func() map[string]bool { return map[string]bool{KeepAll: true} }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.SetKeepSnapshots(tc.keep)
			defer s.SetKeepSnapshots(nil)
			res, err := s.PruneSnapshots(context.Background(), true)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range res.Deleted {
				got = append(got, d.Before)
			}
			sort.Strings(got)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") || res.Kept != 3-len(want) {
				t.Errorf("deleted %v (kept %d), want %v", got, res.Kept, want)
			}
		})
	}
}
