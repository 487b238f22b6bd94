package main

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPct(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	if got := pct(ds, 0.5); got != 51 {
		t.Errorf("p50 = %d, want 51", got)
	}
	if got := pct(ds, 0.95); got != 96 {
		t.Errorf("p95 = %d, want 96", got)
	}
	if got := pct(ds, 0); got != 1 {
		t.Errorf("min = %d, want 1", got)
	}
	if pct(nil, 0.5) != 0 {
		t.Error("pct of nothing is not 0")
	}
}

func TestDrawQueriesFromPages(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("# Tar\n\nArchive files with tar, a tool.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qs := drawQueries(dir, []string{p}, rand.New(rand.NewSource(1)), 20)
	if len(qs) != 20 {
		t.Fatalf("%d queries, want 20", len(qs))
	}
	for _, q := range qs {
		for _, w := range strings.Fields(q) {
			if !strings.Contains("Archive files with tool", w) || len(w) < 4 {
				t.Errorf("query %q has %q, not a word of four letters or more of the page", q, w)
			}
		}
	}
}

func TestProcOfSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if vmHWM(os.Getpid()) <= 0 {
		t.Error("VmHWM of this process is not positive")
	}
	if a, h := procStatusKiB(os.Getpid(), "RssAnon:"), vmHWM(os.Getpid()); a <= 0 || a > h {
		t.Errorf("RssAnon of this process %d KiB, VmHWM %d KiB: want 0 < RssAnon <= VmHWM", a, h)
	}
	for i := 0; i < 3e7; i++ { // burn a little CPU so the ticks are not zero
		_ = i * i
	}
	if procCPU(os.Getpid()) < 0 {
		t.Error("negative CPU")
	}
}
