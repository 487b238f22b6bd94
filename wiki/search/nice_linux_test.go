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
// the process (the merger's) runs mergerNice lower than the test's own
// thread.
func TestMergerRunsAtLowPriority(t *testing.T) {
	if !lowPriorityMerges() {
		t.Skip("-tune leaves LowPriorityMerges off")
	}
	st, _, _ := testWiki(t, fixture)
	ctx := context.Background()
	var last wiki.PageWrite
	for i := 0; i < 3; i++ {
		w, err := st.WritePage(ctx, wiki.PageInput{Title: "Churn", Content: fmt.Sprintf("Version %d.\n", i), BaseSHA256: last.SHA256})
		if err != nil {
			t.Fatal(err)
		}
		last = w
	}
	base := threadNice(t, strconv.Itoa(unix.Gettid())) // the process's nice, 0 unless started with nice
	want := min(base+mergerNice, 19)
	if base >= 19 {
		t.Skip("the process runs at nice 19: there is no lower priority")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		low, all := threadNices(t, want)
		if low > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no thread at nice %d after the writes; nices of the %d threads: %v", want, len(all), all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// threadNices returns how many of the process's threads run at nice want,
// and every thread's nice value.
func threadNices(t *testing.T, want int) (low int, all []int) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skip("no /proc/self/task:", err)
	}
	for _, e := range ents {
		n := threadNice(t, e.Name())
		if n == want {
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
