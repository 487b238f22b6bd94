package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"golang.org/x/sys/unix"
)

// TestMergerRunsAtLowPriority: once writes reach the index, one thread of
// the process (the merger's) runs at nice mergerNice, and the thread
// running the test does not.
func TestMergerRunsAtLowPriority(t *testing.T) {
	st, _, _ := testWiki(t, fixture)
	ctx := context.Background()
	var last wiki.PageWrite
	for i := 0; i < 3; i++ {
		w, err := st.WritePage(ctx, wiki.PageInput{Title: "Churn", Body: fmt.Sprintf("Version %d.\n", i), BaseSHA256: last.SHA256})
		if err != nil {
			t.Fatal(err)
		}
		last = w
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		low, all := threadNices(t)
		if low > 0 {
			if self := threadNice(t, strconv.Itoa(unix.Gettid())); self != 0 {
				t.Errorf("the test's own thread runs at nice %d, want 0", self)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no thread at nice %d after the writes; nices of the %d threads: %v", mergerNice, len(all), all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// threadNices returns how many of the process's threads run at mergerNice,
// and every thread's nice value.
func threadNices(t *testing.T) (low int, all []int) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skip("no /proc/self/task:", err)
	}
	for _, e := range ents {
		n := threadNice(t, e.Name())
		if n == mergerNice {
			low++
		}
		all = append(all, n)
	}
	return low, all
}

// threadNice reads field 19 (nice) of /proc/self/task/TID/stat; -100 when
// the thread is gone.
func threadNice(t *testing.T, tid string) int {
	b, err := os.ReadFile(filepath.Join("/proc/self/task", tid, "stat"))
	if err != nil {
		return -100
	}
	s := string(b)
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, nice field 19.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 17 {
		t.Fatalf("short stat line %q", s)
	}
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatalf("stat line %q: %v", s, err)
	}
	return n
}
