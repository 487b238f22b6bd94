package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsRefuseAFolderWithoutAWiki runs every command that reads a wiki
// against a missing folder and an empty one: each fails saying there is no
// wiki there (the hooks say so without failing), and nothing is created.
func TestCommandsRefuseAFolderWithoutAWiki(t *testing.T) {
	src := filepath.Join(t.TempDir(), "note.md")
	if err := os.WriteFile(src, []byte("# A note\n\nSome text.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := []string{"--base-url", "http://127.0.0.1:1/v1", "--model", "m"}
	cases := []struct {
		name string
		args []string
		hook string // a hook exits 0 and says it on this stream
	}{
		{"search", []string{"search", "anything"}, ""},
		{"lint", []string{"lint"}, ""},
		{"status", []string{"status"}, ""},
		{"index", []string{"index"}, ""},
		{"sync", []string{"sync"}, ""},
		{"eval", []string{"eval"}, ""},
		{"snapshots list", []string{"snapshots", "list"}, ""},
		{"snapshots prune dry-run", []string{"snapshots", "prune", "--dry-run"}, ""},
		{"snapshots restore", []string{"snapshots", "restore", "pages/a.md"}, ""},
		{"plans list", []string{"plans"}, ""},
		{"plans show", []string{"plans", "show", "p1"}, ""},
		{"review list", []string{"review"}, ""},
		{"review approve", []string{"review", "approve", "1"}, ""},
		{"ui", []string{"ui", "--addr", "127.0.0.1:0"}, ""},
		{"ingest", append([]string{"ingest", src}, model...), ""},
		{"build", append([]string{"build"}, model...), ""},
		{"capture", []string{"capture", "--transcript", src}, "stderr"},
		{"orient", []string{"orient"}, "stdout"},
		{"orient hook", []string{"orient", "--hook"}, "stdout"},
	}
	for _, tc := range cases {
		for _, kind := range []string{"missing", "empty"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				parent := t.TempDir()
				dir := filepath.Join(parent, "wikk")
				if kind == "empty" {
					if err := os.Mkdir(dir, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				args := append([]string{tc.args[0], "--root", dir}, tc.args[1:]...)
				var out, errb bytes.Buffer
				err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
				if tc.hook != "" {
					if err != nil {
						t.Fatalf("hook failed: %v", err)
					}
					said := map[string]string{"stdout": out.String(), "stderr": errb.String()}[tc.hook]
					if !strings.Contains(said, "no wiki at "+dir) {
						t.Errorf("%s %q does not say there is no wiki", tc.hook, said)
					}
				} else {
					if err == nil {
						t.Fatalf("succeeded on a folder with no wiki; stdout %q", out.String())
					}
					if !strings.Contains(err.Error(), "no wiki at "+dir) || !strings.Contains(err.Error(), "llmwiki init") {
						t.Errorf("error %q does not say there is no wiki and how to make one", err)
					}
				}
				var got []string
				filepath.WalkDir(parent, func(p string, d os.DirEntry, err error) error {
					if p != parent {
						rel, _ := filepath.Rel(parent, p)
						got = append(got, rel)
					}
					return nil
				})
				want := []string(nil)
				if kind == "empty" {
					want = []string{"wikk"}
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("folder now holds %v, want %v", got, want)
				}
			})
		}
	}
}

// TestUnknownCommandSuggestsTheNearest: a near miss names the command meant;
// a word far from every command gets no guess.
func TestUnknownCommandSuggestsTheNearest(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"serch", `unknown command "serch"; did you mean "search"?`},
		{"snapshot", `unknown command "snapshot"; did you mean "snapshots"?`},
		{"linnt", `unknown command "linnt"; did you mean "lint"?`},
		{"Orient", `unknown command "Orient"; did you mean "orient"?`},
		{"frobnicate", `unknown command "frobnicate"`},
		{"x", `unknown command "x"`},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{tc.arg}, strings.NewReader(""), &out, &errb)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.arg, err, tc.want)
		}
	}
}

// TestServeHTTPFailsFastOnAnAddressInUse: serve --http on a port already
// taken fails saying so before it creates the wiki or builds anything.
func TestServeHTTPFailsFastOnAnAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "wiki")
	var out, errb bytes.Buffer
	err = run(context.Background(), []string{"serve", "--root", dir, "--http", ln.Addr().String()}, strings.NewReader(""), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+ln.Addr().String()) {
		t.Fatalf("serve on a taken port: error %v, want one saying it cannot listen", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("serve created %s before it could listen (stat: %v)", dir, err)
	}
}

// TestLintAdviceNamesTheIndexCommand: with index.md gone, llmwiki lint's
// advice names llmwiki index (not the rebuild_index tool), and running it
// brings index.md back, with progress on stderr.
func TestLintAdviceNamesTheIndexCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	if err := os.Remove(filepath.Join(root, "index.md")); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runCLI(t, "", "lint", "--root", root)
	if !strings.Contains(out, "index_drift") || !strings.Contains(out, "fix: run llmwiki index") || strings.Contains(out, "rebuild_index") {
		t.Fatalf("lint output does not advise llmwiki index:\n%s", out)
	}
	out, errOut, err := runCLI(t, "", "index", "--root", root)
	if err != nil {
		t.Fatalf("index: %v\n%s", err, errOut)
	}
	if out != "index.md rewritten: 0 pages\n" || !strings.Contains(errOut, "llmwiki index: 0/0 rendering index.md") {
		t.Errorf("index: stdout %q stderr %q", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "index.md")); err != nil {
		t.Errorf("index.md not rebuilt: %v", err)
	}
	if out, _, _ := runCLI(t, "", "lint", "--root", root); strings.Contains(out, "index_drift") {
		t.Errorf("lint still finds index drift:\n%s", out)
	}
}
