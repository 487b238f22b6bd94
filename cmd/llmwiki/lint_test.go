package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

func writeWikiFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLintCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	writeWikiFile(t, root, "pages/a.md", "---\ntitle: A\nsummary: a\nsources: [sources/s.md]\n---\nSee [[b]] and `[[not a link]]`.\n")
	writeWikiFile(t, root, "pages/b.md", "---\ntitle: B\nsummary: b\nsources: [sources/s.md]\n---\nBack to [[a]].\n")
	writeWikiFile(t, root, "sources/s.md", "source\n")
	// Only index drift (a warning): exit status 0.
	out, _, err := runCLI(t, "", "lint", "--root", root)
	if err != nil {
		t.Fatalf("lint of a healthy wiki: %v\n%s", err, out)
	}
	if !strings.Contains(out, "index_drift") || !strings.Contains(out, "2 pages checked: 0 errors, 1 warning,") {
		t.Errorf("output:\n%s", out)
	}
	// A dangling link is an error: exit status 1, after printing.
	writeWikiFile(t, root, "pages/b.md", "---\ntitle: B\nsummary: b\nsources: [sources/s.md]\n---\nBack to [[a]] and [[ghost]].\n")
	out, _, err = runCLI(t, "", "lint", "--root", root)
	var code exitCode
	if !errors.As(err, &code) || code != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	if !strings.Contains(out, "pages/b.md:6  [[ghost]] leads nowhere") {
		t.Errorf("output:\n%s", out)
	}
	// --path filters the findings, not the pages checked, and the totals
	// say so: every page is still checked.
	out, _, _ = runCLI(t, "", "lint", "--root", root, "--path", "pages/b.md")
	if !strings.Contains(out, "2 pages checked, findings under pages/b.md shown: 1 error, 0 warnings, 0 info") {
		t.Errorf("lint --path totals:\n%s", out)
	}
	// --json and --category.
	out, _, err = runCLI(t, "", "lint", "--root", root, "--json", "--category", "dangling_link,orphan_page")
	if !errors.As(err, &code) {
		t.Fatalf("err = %v", err)
	}
	var rep lint.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != lint.KindDanglingLink || rep.Findings[0].Line != 6 || rep.Severities.Error != 1 {
		t.Fatalf("report %+v", rep)
	}
	// Dismissing the error: exit status 0, and it stays dismissed.
	id := rep.Findings[0].ID
	_, stderr, err := runCLI(t, "", "lint", "--root", root, "--dismiss", id, "--reason", "the page comes next week")
	if err != nil || !strings.Contains(stderr, "dismissed "+id) {
		t.Fatalf("dismiss: %v\n%s", err, stderr)
	}
	out, _, err = runCLI(t, "", "lint", "--root", root, "--category", "dangling_link")
	if err != nil || !strings.Contains(out, "0 errors, 0 warnings, 0 info, 1 dismissed") {
		t.Errorf("after dismiss: %v\n%s", err, out)
	}
	out, _, _ = runCLI(t, "", "lint", "--root", root, "--category", "dangling_link", "--all")
	if !strings.Contains(out, "[dismissed]") {
		t.Errorf("--all:\n%s", out)
	}
	// Bad input.
	if _, _, err := runCLI(t, "", "lint", "--root", root, "--category", "nonsense"); err == nil || !strings.Contains(err.Error(), "unknown lint category") {
		t.Errorf("unknown category: %v", err)
	}
	if _, _, err := runCLI(t, "", "lint", "--root", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "no wiki at") {
		t.Errorf("missing wiki: %v", err)
	}
	if _, _, err := runCLI(t, "", "lint", "--root", root, "--dismiss", "nope"); err == nil || !strings.Contains(err.Error(), "no finding has the id nope") {
		t.Errorf("unknown id: %v", err)
	}
	// The audit log records the command.
	calls := teststore.AuditLines(t, root)
	if calls[len(calls)-1].Tool != "cli:lint" {
		t.Errorf("last audit line %+v", calls[len(calls)-1])
	}
}

// TestLintSummary: above summaryOver findings the default output is a
// summary (counts by category, the worst pages, an example of each
// category), --list and --limit list findings, --json has them all.
func TestLintSummary(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	var links strings.Builder
	for i := 0; i <= summaryOver; i++ {
		fmt.Fprintf(&links, "[[ghost %d]] ", i)
	}
	writeWikiFile(t, root, "pages/bad.md", "---\ntitle: Bad\nsummary: b\nsources: [sources/s.md]\n---\n"+links.String()+"\n")
	writeWikiFile(t, root, "pages/ok.md", "---\ntitle: OK\nsummary: o\nsources: [sources/s.md]\n---\nSee [[bad]] and [[ghost x]].\n")
	writeWikiFile(t, root, "sources/s.md", "source\n")
	out, _, err := runCLI(t, "", "lint", "--root", root)
	var code exitCode
	if !errors.As(err, &code) || code != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	for _, want := range []string{
		// every ghost, [[ghost x]], index drift and the orphan ok.md
		fmt.Sprintf("%d findings, too many to list (--list prints them all", summaryOver+4),
		fmt.Sprintf("  error   dangling_link        %7d\n", summaryOver+2),
		"worst 3 pages of 3 with findings",
		fmt.Sprintf("  pages/bad.md: %d errors, 0 warnings, 0 info\n  pages/ok.md: 1 error,", summaryOver+1),
		"one example of each category",
		"  dangling_link        pages/bad.md:6  [[ghost 200]] leads nowhere",
		"  index.md: 0 errors, 1 warning, 0 info\n",
		fmt.Sprintf("%d errors,", summaryOver+2),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[[ghost 7]]") {
		t.Errorf("summary lists every finding:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "lint", "--root", root, "--list")
	if strings.Contains(out, "too many to list") || !strings.Contains(out, "[[ghost 7]] leads nowhere") || !strings.Contains(out, fmt.Sprintf("[[ghost %d]] leads nowhere", summaryOver)) {
		t.Errorf("--list:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "lint", "--root", root, "--limit", "3")
	if strings.Contains(out, "too many to list") || !strings.Contains(out, "more (--limit 3)") {
		t.Errorf("--limit 3:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "lint", "--root", root, "--json")
	var rep lint.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v", err)
	}
	if rep.Counts[lint.KindDanglingLink] != summaryOver+2 || len(rep.Findings) < summaryOver+2 {
		t.Errorf("--json counts %v, %d findings", rep.Counts, len(rep.Findings))
	}
}
