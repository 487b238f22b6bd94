package search

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var tuneFlag = flag.String("tune", "cmd", "process settings for the tests and benchmarks: cmd (cmd/llmwiki's), all, none, or a comma list of buffers, nice, spareproc (to measure each, docs/performance.md)")

// TestMain applies the process settings a program applies before it opens
// an index (by default cmd/llmwiki's), or the ones -tune names.
func TestMain(m *testing.M) {
	flag.Parse()
	s, err := parseTune(*tuneFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	SetProcessSettings(s)
	os.Exit(m.Run())
}

func parseTune(v string) (ProcessSettings, error) {
	var s ProcessSettings
	for _, f := range strings.Split(v, ",") {
		switch strings.TrimSpace(f) {
		case "cmd":
			s = ProcessSettings{ProportionalSegmentBuffers: true, LowPriorityMerges: true, SpareProcForMerges: true}
		case "all":
			s = ProcessSettings{ProportionalSegmentBuffers: true, LowPriorityMerges: true, SpareProcForMerges: true}
		case "none", "":
		case "buffers":
			s.ProportionalSegmentBuffers = true
		case "nice":
			s.LowPriorityMerges = true
		case "spareproc":
			s.LowPriorityMerges, s.SpareProcForMerges = true, true
		default:
			return s, fmt.Errorf("-tune: unknown setting %q (cmd, all, none, buffers, nice, spareproc)", f)
		}
	}
	return s, nil
}
