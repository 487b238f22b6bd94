//go:build linux

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// mountTmpfs mounts a tmpfs of size bytes at a new folder, or skips the
// test when it cannot (not root, no CAP_SYS_ADMIN): the fault-injection
// tests in package wiki cover the same failures at every step.
func mountTmpfs(t *testing.T, size string) string {
	return wikitest.MountTmpfs(t, size, "TestWriteFailsCleanly injects the same failures")
}

// waitDiskQuiet waits until the free space of the file system at dir has
// not changed for half a second (at most 15 s): the server's background
// work after a write (bleve persisting and merging segments at low
// priority, then deleting the old ones) has ended, so it frees no space
// after a fill.
func waitDiskQuiet(t *testing.T, dir string) {
	t.Helper()
	free := func() uint64 {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		return st.Bfree
	}
	last, same := free(), 0
	for deadline := time.Now().Add(15 * time.Second); same < 10 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if f := free(); f == last {
			same++
		} else {
			last, same = f, 0
		}
	}
}

// fillDisk writes a file until the file system is full and returns it.
// Called again with the same dir it tops the file up: the server's
// background work (bleve merging segments and deleting the old ones) can
// free space after a fill, and a test of a full disk must write on one.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	waitDiskQuiet(t, dir)
	p := filepath.Join(dir, "filler")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			// Fill the last partial block too.
			for _, n := range []int{2048, 1024, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1} {
				for {
					if _, err := f.Write(chunk[:n]); err != nil {
						break
					}
				}
			}
			return p
		}
	}
}

// TestRealDiskFullAndReadOnly: on a real tmpfs that fills up, then is
// remounted read-only, writes through the server fail with a clear error,
// the old content stays byte-identical and no temp file is left; reads
// go on working, and a server starts on the read-only wiki.
func TestRealDiskFullAndReadOnly(t *testing.T) {
	mnt := mountTmpfs(t, "4m")
	root := filepath.Join(mnt, "wiki")
	initWiki(t, root)
	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.close() }()
	w, err := c.tool("write_page", map[string]any{"title": "Topic", "content": strings.Repeat("first version\n", 500)})
	if err != nil || w.IsError {
		t.Fatalf("%v %s", err, w.Text)
	}
	read := func(rel string) string {
		b, _ := os.ReadFile(filepath.Join(root, rel))
		return string(b)
	}
	page, log, ctxmd := read("pages/topic.md"), read("log.md"), read("context.md")
	n := 0
	writes := []struct {
		name string
		args map[string]any
	}{
		{"write_page", map[string]any{"title": "Topic", "content": strings.Repeat("second version\n", 500), "base_sha256": w.Data["sha256"]}},
		{"write_page", map[string]any{"title": "New", "content": strings.Repeat("new page\n", 500)}},
		{"atomic_write_context", map[string]any{"content": strings.Repeat("# Context\n", 300)}},
		{"append_log", map[string]any{"op": "note", "title": strings.Repeat("x", 100), "details": strings.Repeat("details ", 400)}},
		{"save_source", map[string]any{"path": "sources/big.md", "content": strings.Repeat("source ", 2000)}},
	}
	check := func(state, want string) {
		t.Helper()
		for _, wr := range writes {
			n++
			if state == "full" {
				fillDisk(t, mnt) // space freed since by the server's background work is taken again
			}
			r, err := c.tool(wr.name, wr.args)
			if err != nil {
				t.Fatalf("%s on a %s disk: %v", wr.name, state, err)
			}
			if !r.IsError || !strings.Contains(r.Text, want) || strings.Contains(r.Text, mnt) {
				t.Errorf("%s on a %s disk: %q", wr.name, state, r.Text)
			}
		}
		if read("pages/topic.md") != page || read("log.md") != log || read("context.md") != ctxmd {
			t.Errorf("a write on a %s disk changed the wiki", state)
		}
		for _, p := range []string{"pages/new.md", "sources/big.md"} {
			if _, err := os.Stat(filepath.Join(root, p)); err == nil {
				t.Errorf("%s exists after a failed write on a %s disk", p, state)
			}
		}
		if tf := teststore.TempFiles(root); len(tf) > 0 {
			t.Errorf("temp files left on a %s disk: %v", state, tf)
		}
		if r, err := c.tool("read_page", map[string]any{"page": "topic"}); err != nil || r.IsError {
			t.Errorf("read on a %s disk: %v %s", state, err, r.Text)
		}
	}
	filler := fillDisk(t, mnt)
	check("full", "the disk is full")
	// Space again: the same writes go through.
	os.Remove(filler)
	if r, _ := c.tool("write_page", writes[0].args); r.IsError {
		t.Fatalf("after freeing space: %s", r.Text)
	}
	page = read("pages/topic.md")
	writes[0].args["base_sha256"] = store.SHA256Hex([]byte(page))
	writes[0].args["content"] = strings.Repeat("third version\n", 500)
	// Linux refuses to remount a file system read-only while a process
	// holds a file on it open for writing (the search index does), so the
	// server stops first; a server then starts on the read-only wiki, reads,
	// and refuses every write.
	c.close()
	wikitest.Remount(t, mnt, true)
	if c, err = startRPC(t, root); err != nil {
		t.Fatalf("serve on a read-only wiki: %v", err)
	}
	if r, err := c.tool("load_project", map[string]any{}); err != nil || r.IsError {
		t.Errorf("load_project on a read-only wiki: %v %s", err, r.Text)
	}
	check("read-only", store.ReadOnlyMessage)
	wikitest.Remount(t, mnt, false)
	wikitest.Figure(t, "disk", map[string]any{"cases": n})
}

// TestCrossDeviceTmp: with TMPDIR on another file system (a tmpfs, or a
// folder that does not exist when none can be mounted), every kind of
// write still succeeds, because temp files live beside their target.
func TestCrossDeviceTmp(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "does-not-exist")
	if os.Geteuid() == 0 {
		mnt := filepath.Join(t.TempDir(), "tmpfs")
		os.MkdirAll(mnt, 0o755)
		if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err == nil {
			t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
			tmp = mnt
		}
	}
	binary(t) // built before TMPDIR moves (go build needs it)
	t.Setenv("TMPDIR", tmp)
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.tool("write_page", map[string]any{"title": "Topic", "content": "one\n"})
	steps := []struct {
		name string
		args map[string]any
	}{
		{"write_page", map[string]any{"title": "Topic", "content": "two\n", "base_sha256": w.Data["sha256"]}},
		{"atomic_write_context", map[string]any{"content": "# Context\n"}},
		{"append_log", map[string]any{"op": "note", "title": "t"}},
		{"save_source", map[string]any{"path": "sources/a.md", "content": "a"}},
		{"research_save", map[string]any{"topic": "notes", "content": "found"}},
		{"rebuild_index", map[string]any{}},
	}
	if err != nil || w.IsError {
		t.Fatalf("%v %s", err, w.Text)
	}
	for _, s := range steps {
		if r, err := c.tool(s.name, s.args); err != nil || r.IsError {
			t.Errorf("%s with TMPDIR=%s: %v %s", s.name, tmp, err, r.Text)
		}
	}
	c.close()
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("the writer used TMPDIR: %d entries there", len(entries))
	}
	wikitest.Figure(t, "disk", map[string]any{"cases": len(steps) + 1})
}
