package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/links"
)

// TestIndexDriftCountsInEnglish: one unlisted page or one dead entry is
// singular ("1 page is not listed", "1 entry leads nowhere"), two are plural;
// an index.md larger than the link graph parses is read by lint itself.
func TestIndexDriftCountsInEnglish(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	for _, c := range []struct {
		index string
		want  []string
	}{
		{"# Index\n\n- [[home]]\n- [[ghost]]\n", []string{"1 page is not listed (", "1 entry leads nowhere ("}},
		{"# Index\n\n- [[ghost]]\n- [[phantom]]\n", []string{"2 pages are not listed (", "2 entries lead nowhere ("}},
		// Larger than the link graph parses: its links are still read.
		{"# Index\n\n- [[home]]\n- [[ghost]]\n\n" + strings.Repeat("padding words\n", links.MaxParseBytes/14+1), []string{"1 page is not listed (pages/guide.md)", "1 entry leads nowhere ("}},
	} {
		st, _ := newStore(t, map[string]string{
			"pages/home.md":  page("Home", "Start", []string{"sources/a.md"}, fresh, "[[guide]]\n"),
			"pages/guide.md": page("Guide", "How to", []string{"sources/a.md"}, fresh, "[[home]]\n"),
			"sources/a.md":   "# A\n",
			"index.md":       c.index,
		})
		for _, oneShot := range []bool{false, true} {
			rep, err := Run(ctx, st, links.Open(st), Options{Categories: []string{KindIndexDrift}, OneShot: oneShot})
			if err != nil {
				t.Fatal(err)
			}
			var msg string
			for _, f := range rep.Findings {
				if f.Kind == KindIndexDrift {
					msg = f.Message
				}
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("index %q (one-shot %v): message %q lacks %q", c.index[:min(len(c.index), 40)], oneShot, msg, w)
				}
			}
		}
	}
}
