package git

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"testing"
)

// BenchmarkFileHistory: page_history's first page (20 commits, sha256 of
// each version) of one page in a repository of 5,000 pages and 5,000
// commits, each commit changing one page, every 100th the page read.
func BenchmarkFileHistory(b *testing.B) {
	g := newGitRepo(b, "")
	const pages, commits = 5000, 5000
	var in bytes.Buffer
	fmt.Fprintf(&in, "reset refs/heads/main\nfrom refs/heads/main^0\n\n")
	for i := range commits {
		name := fmt.Sprintf("pages/p%04d.md", i%pages)
		if i%100 == 0 {
			name = "pages/target.md"
		}
		content := fmt.Sprintf("# Page\n\nversion %d\n", i)
		msg := fmt.Sprintf("update | %s\n\nLlmwiki-Client: claude-code 1.2.0\nLlmwiki-Tool: write_page\n", name)
		fmt.Fprintf(&in, "commit refs/heads/main\nauthor Ada Lovelace (claude-code) <ada@example.org> %d +0000\ncommitter Ada <ada@example.org> %d +0000\ndata %d\n%s\nM 100644 inline %s\ndata %d\n%s\n",
			1700000000+i, 1700000000+i, len(msg), msg, name, len(content), content)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = g.top
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		h, err := g.repo.FileHistory(ctx, "pages/target.md", DefaultHistoryLimit, "")
		if err != nil || len(h.Versions) != DefaultHistoryLimit {
			b.Fatalf("%d versions, %v", len(h.Versions), err)
		}
	}
}
