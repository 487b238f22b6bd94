package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// startFiles are a new wiki's files as init makes them: everything but the
// server's state under .llmwiki/ (its .gitignore included).
func startFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	return wikitest.TreeHashes(t, dir, func(rel string) bool {
		return strings.HasPrefix(rel, ".llmwiki/") && rel != ".llmwiki/.gitignore"
	})
}

// TestInitIdempotent: init makes the layout and starting files; a second
// run changes no byte (nor a modification time) and says so; a run after a
// person edited index.md and schema.md and deleted log.md keeps both edits
// byte for byte and makes only log.md again.
func TestInitIdempotent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	out, _, err := runIn(t, "", nil, "init", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append(append([]string{}, wiki.LayoutFiles...), "pages/", "sources/research/", ".llmwiki/.gitignore") {
		if !strings.Contains(out, "created "+want+"\n") {
			t.Errorf("init did not report creating %s:\n%s", want, out)
		}
	}
	first := startFiles(t, dir)
	for _, f := range wiki.LayoutFiles {
		if first[f] == "" {
			t.Errorf("init made no %s", f)
		}
	}
	mtimes := func() map[string]time.Time {
		m := map[string]time.Time{}
		for rel := range first {
			if fi, err := os.Stat(filepath.Join(dir, rel)); err == nil && !fi.IsDir() {
				m[rel] = fi.ModTime()
			}
		}
		return m
	}
	times := mtimes()
	time.Sleep(20 * time.Millisecond) // a rewrite would show in the mtime

	out, _, err = runIn(t, "", nil, "init", dir)
	if err != nil {
		t.Fatal(err)
	}
	if out != dir+" is already a wiki; nothing was changed.\n" {
		t.Errorf("second init said %q", out)
	}
	if d := wikitest.DiffHashes(first, startFiles(t, dir)); len(d) > 0 {
		t.Errorf("second init changed files: %v", d)
	}
	for rel, mt := range mtimes() {
		if !mt.Equal(times[rel]) {
			t.Errorf("second init touched %s (mtime %v -> %v)", rel, times[rel], mt)
		}
	}

	edited := map[string]string{
		"index.md":  "# My index\n\nHand-written, keep it.\n",
		"schema.md": "---\ncontext_max_lines: 120\n---\n# House rules\n\nOurs, not the template's.\n",
	}
	for f, body := range edited {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "log.md")); err != nil {
		t.Fatal(err)
	}
	out, _, err = runIn(t, "", nil, "init", "--root", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "created log.md\n") || strings.Count(out, "created ") != 1 {
		t.Errorf("init after edits should make only log.md again:\n%s", out)
	}
	for f, body := range edited {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != body {
			t.Errorf("init overwrote the edited %s: %q", f, b)
		}
	}
	after := startFiles(t, dir)
	if after["log.md"] != first["log.md"] {
		t.Errorf("log.md was not made again from the template")
	}
	for _, f := range []string{"context.md", "guidelines.md", ".llmwiki/.gitignore"} {
		if after[f] != first[f] {
			t.Errorf("%s changed", f)
		}
	}

	// A file where the wiki folder should be is refused, and left alone.
	file := filepath.Join(t.TempDir(), "notes")
	os.WriteFile(file, []byte("mine\n"), 0o644)
	if _, _, err := runIn(t, "", nil, "init", file); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("init on a file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine\n" {
		t.Errorf("init changed a file given as the root")
	}
}

// TestRootOrder: the wiki root is --root, else $LLMWIKI_ROOT, else
// ~/llmwiki ("~/" expanded from $HOME); serve creates it with init's files
// on first start and says so on stderr, and on the next start opens it
// without a word about creating and without changing a file. init uses the
// same order.
func TestRootOrder(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	if _, _, err := runIn(t, "", nil, "init", ref); err != nil {
		t.Fatal(err)
	}
	want := startFiles(t, ref)
	cases := []struct {
		name  string
		flag  bool   // pass --root <tmp>/flag
		env   string // $LLMWIKI_ROOT, relative to the temp dir unless it starts with ~/
		where string // the root expected, relative to the temp dir
	}{
		{"--root wins over $LLMWIKI_ROOT and HOME", true, "env", "flag"},
		{"$LLMWIKI_ROOT wins over HOME", false, "env", "env"},
		{"$LLMWIKI_ROOT with ~/", false, "~/notes", "home/notes"},
		{"~/llmwiki by default", false, "", "home/llmwiki"},
	}
	for _, cmd := range []string{"serve", "init"} {
		for _, c := range cases {
			t.Run(cmd+"/"+c.name, func(t *testing.T) {
				tmp := t.TempDir()
				home := filepath.Join(tmp, "home")
				os.MkdirAll(home, 0o755)
				envv := map[string]string{"HOME": home, "LLMWIKI_LOG": "warn"}
				if c.env != "" {
					envv["LLMWIKI_ROOT"] = c.env
					if !strings.HasPrefix(c.env, "~/") {
						envv["LLMWIKI_ROOT"] = filepath.Join(tmp, c.env)
					}
				}
				args := []string{cmd}
				if c.flag {
					args = append(args, "--root", filepath.Join(tmp, "flag"))
				}
				root := filepath.Join(tmp, c.where)
				out, stderr, err := runIn(t, "", envv, args...)
				if err != nil {
					t.Fatalf("%v\n%s", err, stderr)
				}
				if d := wikitest.DiffHashes(want, startFiles(t, root)); len(d) > 0 {
					t.Fatalf("the wiki at %s is not init's: %v", root, d)
				}
				for _, other := range []string{"flag", "env", "home/llmwiki", "home/notes"} {
					if p := filepath.Join(tmp, other); p != root {
						if _, err := os.Stat(p); err == nil {
							t.Errorf("%s was created too", p)
						}
					}
				}
				said := stderr
				if cmd == "init" {
					said = out
				}
				announce := map[string]string{"serve": "llmwiki: created a new wiki at " + root + " (", "init": "Initialised a wiki at " + root + ":"}[cmd]
				if !strings.Contains(said, announce) {
					t.Errorf("%s did not say it created %s:\nstdout %s\nstderr %s", cmd, root, out, stderr)
				}
				if cmd == "serve" && out != "" {
					t.Errorf("serve wrote to stdout without a request: %q", out)
				}

				// The next start opens it and changes nothing.
				before := startFiles(t, root)
				_, stderr, err = runIn(t, "", envv, args...)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(stderr, "created a new wiki") {
					t.Errorf("the second start claims to create the wiki again: %s", stderr)
				}
				if d := wikitest.DiffHashes(before, startFiles(t, root)); len(d) > 0 {
					t.Errorf("the second start changed files: %v", d)
				}
			})
		}
	}

	// run reads the real environment: HOME and $LLMWIKI_ROOT reach it.
	t.Run("run reads the process environment", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("LLMWIKI_ROOT", "")
		var out, errb strings.Builder
		if err := run(context.Background(), []string{"init"}, strings.NewReader(""), &out, &errb); err != nil {
			t.Fatal(err)
		}
		if d := wikitest.DiffHashes(want, startFiles(t, filepath.Join(home, "llmwiki"))); len(d) > 0 {
			t.Errorf("init without a root did not make ~/llmwiki from $HOME: %v\n%s", d, out.String())
		}
		env := filepath.Join(t.TempDir(), "from-env")
		t.Setenv("LLMWIKI_ROOT", env)
		if err := run(context.Background(), []string{"init"}, strings.NewReader(""), &out, &errb); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(env, "schema.md")); err != nil {
			t.Errorf("init did not use $LLMWIKI_ROOT: %v", err)
		}
	})
}
