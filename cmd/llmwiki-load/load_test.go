package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadSmall runs the whole load test, bounded and small (a made-up
// corpus, 4 clients for 3 s, 2 stdio processes x 5 writers), then damages
// the wiki in the ways the checks exist for and sees each one caught.
func TestLoadSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the load test in -short mode")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "llmwiki")
	repo, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/llmwiki")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	corpus := filepath.Join(dir, "corpus")
	for _, lang := range []string{"en", "de", "ja"} {
		for i := 0; i < 60; i++ {
			p := filepath.Join(corpus, lang, fmt.Sprintf("Folder %d", i%4), fmt.Sprintf("Note %02d.md", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nText of note %d in %s about graphs and canvas.\n", i, i, lang)), 0o644)
		}
	}
	var out strings.Builder
	cfg := config{bin: bin, corpus: corpus, root: filepath.Join(dir, "wiki"), keep: true, clients: 4, duration: 3 * time.Second,
		writeRatio: 0.3, stdioWriters: 5, stdioOps: 5, callTimeout: 60 * time.Second, out: &out}
	rep, err := run(context.Background(), cfg)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ok() {
		t.Fatal("the load test's checks failed")
	}
	if len(rep.led.logAcked) == 0 || len(rep.led.pages) <= loadPages || len(rep.led.research) == 0 {
		t.Fatalf("too little was written to prove anything: %d log entries, %d page writes, %d research sections", len(rep.led.logAcked), len(rep.led.pages), len(rep.led.research))
	}

	// The checks must fail on a damaged wiki.
	root := cfg.root
	damage := []struct {
		name  string
		check string
		do    func() error
	}{
		{"an acknowledged log entry removed", "log.md holds exactly the acknowledged entries", func() error {
			return rewrite(filepath.Join(root, "log.md"), func(s string) string {
				for title := range rep.led.logAcked {
					return strings.Replace(s, "| "+title+"\n", "| gone\n", 1)
				}
				return s
			})
		}},
		{"a log entry written twice", "log.md holds exactly the acknowledged entries", func() error {
			return rewrite(filepath.Join(root, "log.md"), func(s string) string {
				for title := range rep.led.logAcked {
					return s + "\n## [2026-01-01 00:00] note | " + title + "\n"
				}
				return s
			})
		}},
		{"an acknowledged page version lost", "acknowledged page writes on disk", func() error {
			w := rep.led.pages[len(rep.led.pages)/2]
			snaps, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "snapshots", filepath.FromSlash(w.path), "*"))
			for _, s := range snaps {
				os.Remove(s)
			}
			return os.WriteFile(filepath.Join(root, filepath.FromSlash(w.path)), []byte("---\ntitle: x\n---\noverwritten\n"), 0o644)
		}},
		{"a refused write on disk", "refused page writes are nowhere", func() error {
			if len(rep.led.conflicts) == 0 {
				rep.led.conflicts = append(rep.led.conflicts, pageWrite{path: "pages/load-page-00.md", marker: "planted"})
			}
			w := rep.led.conflicts[0]
			return rewrite(filepath.Join(root, filepath.FromSlash(w.path)), func(s string) string { return s + "\nmarker " + w.marker + "\n" })
		}},
		{"a research section lost", "research notes hold each acknowledged section once", func() error {
			files, _ := filepath.Glob(filepath.Join(root, "sources", "research", "*.md"))
			return os.WriteFile(files[0], []byte("# emptied\n"), 0o644)
		}},
		{"an audit line torn", "audit lines equal calls", func() error {
			files, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
			f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString(`{"time":"2026-`)
			return err
		}},
		{"a temp file left", "no temp or torn files; corpus untouched", func() error {
			return os.WriteFile(filepath.Join(root, "pages", ".x.md.llmwiki-tmp-0000"), []byte("half"), 0o644)
		}},
		{"a corpus page changed", "no temp or torn files; corpus untouched", func() error {
			return rewrite(filepath.Join(root, filepath.FromSlash(rep.corpusPaths[0])), func(s string) string { return s + "x" })
		}},
	}
	for _, d := range damage {
		if err := d.do(); err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		before := len(rep.checks)
		rep.verify(root, d.name)
		caught := false
		for _, c := range rep.checks[before:] {
			if c.name == d.check && !c.ok {
				caught = true
			}
		}
		if !caught {
			t.Errorf("%s: the check %q did not fail", d.name, d.check)
		}
	}
}

func rewrite(path string, f func(string) string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(f(string(b))), 0o644)
}
