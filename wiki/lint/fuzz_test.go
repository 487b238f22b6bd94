package lint

import (
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/internal/quote"
)

// FuzzVerify: any file name and quote give an answer without a panic; a
// verified quote really is in the named file (under the normalisation)
// and is 8-300 characters; no reason shows the host path.
func FuzzVerify(f *testing.F) {
	st, dir := newStore(f, map[string]string{"pages/ipc.md": ipcPage, "sources/ipc.md": ipcSource})
	v := NewVerifier(st)
	f.Add("pages/ipc.md", "sends messages to the main process")
	f.Add("../../etc/passwd", "root:x:0:0")
	f.Add("ipc", "CONTEXT ISOLATION")
	f.Add("sources/ipc.md", "short")
	f.Add("pages/ipc.md", strings.Repeat("x", 301))
	f.Add("C:\\x", "\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0")
	f.Fuzz(func(t *testing.T, file, q string) {
		ev := v.Verify(Quote{Path: file, Quote: q})
		if strings.Contains(ev.Reason, dir) {
			t.Fatalf("reason shows the host path: %q", ev.Reason)
		}
		if !ev.Verified {
			if ev.Reason == "" {
				t.Fatal("unverified without a reason")
			}
			return
		}
		if quote.Check(q) != "" {
			t.Fatalf("verified a quote of bad length: %q", q)
		}
		data, err := st.Root().ReadFile(ev.Path)
		if err != nil || !quote.Found(q, string(data)) || ev.Line < 1 {
			t.Fatalf("verified %q in %s (line %d) but it is not there", q, ev.Path, ev.Line)
		}
	})
}
