package wiki

import (
	"strings"
	"testing"
)

func TestMergeLogs(t *testing.T) {
	base := "# Log\n\n## [2026-03-01 09:00] note | start\n"
	ours := base + "\n## [2026-03-01 10:01] note | bob one\n\ndetail b\n\n## [2026-03-01 10:03] note | bob two\n"
	theirs := base + "\n## [2026-03-01 10:00] note | ada one\n\n## [2026-03-01 10:02] note | ada two\n"
	got := string(MergeLogs([]byte(ours), []byte(theirs)))
	want := "# Log\n\n## [2026-03-01 09:00] note | start\n\n## [2026-03-01 10:00] note | ada one\n\n## [2026-03-01 10:01] note | bob one\n\ndetail b\n\n## [2026-03-01 10:02] note | ada two\n\n## [2026-03-01 10:03] note | bob two\n"
	if got != want {
		t.Errorf("merged:\n%s\nwant:\n%s", got, want)
	}
	if again := string(MergeLogs([]byte(got), []byte(theirs))); again != got {
		t.Errorf("merging the result again changed it:\n%s", again)
	}
	if same := string(MergeLogs([]byte(theirs), []byte(theirs))); same != theirs {
		t.Errorf("merging a log with itself = %q", same)
	}
}

func FuzzMergeLogs(f *testing.F) {
	f.Add("# Log\n\n## [2026-03-01 10:00] note | a\n", "## [2026-03-01 09:00] note | b\nx\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		m := string(MergeLogs([]byte(a), []byte(b)))
		_, ea := SplitLog([]byte(a))
		_, eb := SplitLog([]byte(b))
		for _, e := range append(ea, eb...) {
			if !strings.Contains(m, strings.ReplaceAll(e.Text, "\r\n", "\n")) {
				t.Fatalf("entry %q lost", e.Text)
			}
		}
	})
}
