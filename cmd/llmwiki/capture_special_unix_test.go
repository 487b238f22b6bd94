//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestCaptureTranscriptNotRegular: a FIFO, or a symbolic link to a
// device, as the session's transcript is refused at once with one line
// naming it, audited; capture never waits on it or reads it for ever.
func TestCaptureTranscriptNotRegular(t *testing.T) {
	for _, kind := range []string{"fifo", "device"} {
		t.Run(kind, func(t *testing.T) {
			root, home, tp := captureFixture(t)
			if err := os.Remove(tp); err != nil {
				t.Fatal(err)
			}
			if kind == "fifo" {
				wikitest.MakeSpecial(t, tp, "fifo")
			} else if err := os.Symlink("/dev/zero", tp); err != nil {
				t.Fatal(err)
			}
			stderr, err := wikitest.Within(t, "capture", func() (string, error) {
				_, stderr, err := runIn(t, hookJSON(capSession, tp), map[string]string{"HOME": home}, "capture", "--root", root)
				return stderr, err
			})
			if err != nil {
				t.Errorf("exit error %v: a hook must not fail the editor", err)
			}
			if want := "is not a regular file"; !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line with %q", stderr, want)
			}
			if files, _ := filepath.Glob(filepath.Join(root, "sources", "sessions", "*")); len(files) != 0 {
				t.Errorf("saved %v", files)
			}
			calls := teststore.AuditLines(t, root)
			if len(calls) == 0 || calls[len(calls)-1].Outcome != "error" || !strings.Contains(calls[len(calls)-1].Error, "is not a regular file") {
				t.Errorf("audit: %+v", calls)
			}
		})
	}
}
