package git

import (
	"slices"
	"testing"
)

// The parsers of git's output: a person's repository feeds them, so none
// may panic, whatever the bytes.

func FuzzParseSyncDiffTree(f *testing.F) {
	f.Add([]byte(":100644 100644 " + syncZeroOID + " 1111111111111111111111111111111111111111 A\x00pages/a.md\x00"))
	f.Add([]byte(":100644\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		list, err := parseSyncDiffTree(b)
		if err == nil {
			for _, e := range list {
				if e.Path == "" {
					t.Fatal("an entry without a path")
				}
			}
		}
	})
}

func FuzzParseSyncLsTree(f *testing.F) {
	f.Add([]byte("100644 blob 1111111111111111111111111111111111111111\tpages/a.md\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = parseSyncLsTree(b, map[string]syncTreeEntry{})
	})
}

func FuzzParseSyncCatFile(f *testing.F) {
	f.Add([]byte("abc blob 3\nxyz\nmissing-one missing\n"))
	f.Add([]byte("abc blob 99999999\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = parseSyncCatFile(b, map[string][]byte{})
	})
}

func FuzzParseSyncStatus(f *testing.F) {
	f.Add([]byte(" M pages/a.md\x00?? pages/b.md\x00"))
	f.Fuzz(func(t *testing.T, b []byte) { _ = parseSyncStatus(b) })
}

func FuzzOverwritten(f *testing.F) {
	f.Add("error: Entry 'pages/a.md' not uptodate. Cannot merge.\n")
	f.Add("error: Your local changes to the following files would be overwritten by merge:\n\tpages/a.md\nPlease commit")
	f.Fuzz(func(t *testing.T, s string) { _ = overwritten(s) })
}

func TestParsers(t *testing.T) {
	list, err := parseSyncDiffTree([]byte(":000000 100644 " + syncZeroOID + " 1111111111111111111111111111111111111111 A\x00pages/a b.md\x00:100644 000000 2222222222222222222222222222222222222222 " + syncZeroOID + " D\x00log.md\x00"))
	if err != nil || len(list) != 2 || list[0].Path != "pages/a b.md" || !list[0].Old.absent() || list[0].New.Mode != "100644" || !list[1].New.absent() {
		t.Fatalf("diff-tree = %+v, %v", list, err)
	}
	if got := parseSyncStatus([]byte(" M pages/a.md\x00?? sources/x y.md\x00D  log.md\x00")); !slices.Equal(got, []string{"pages/a.md", "sources/x y.md", "log.md"}) {
		t.Errorf("status = %q", got)
	}
	m := map[string][]byte{}
	if err := parseSyncCatFile([]byte("aa blob 5\nab\ncd\nbb missing\ncc blob 0\n\n"), m); err != nil || string(m["aa"]) != "ab\ncd" || len(m["cc"]) != 0 || len(m) != 2 {
		t.Errorf("cat-file = %q, %v", m, err)
	}
	if got := overwritten("error: Your local changes to the following files would be overwritten by merge:\n\tpages/a.md\n\tpages/b.md\nPlease commit your changes\nerror: Entry 'log.md' not uptodate. Cannot merge.\n"); !slices.Equal(got, []string{"log.md", "pages/a.md", "pages/b.md"}) {
		t.Errorf("overwritten = %q", got)
	}
}
