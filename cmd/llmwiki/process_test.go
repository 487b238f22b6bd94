package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// serve's soft memory limit: serveMemoryLimit while it serves a small
// wiki, the previous limit back afterwards, and none of its own when
// GOMEMLIMIT sets one. Not parallel: the limit is the process's.
func TestServeMemoryLimit(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	st, err := openOrCreate(env{stderr: io.Discard, getenv: os.Getenv}, root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const before = 1 << 40
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(before))
	for _, tc := range []struct {
		name   string
		getenv map[string]string
		want   int64
	}{
		{"default", nil, serveMemoryLimit},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "2GiB"}, before},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := env{stderr: io.Discard, getenv: func(k string) string { return tc.getenv[k] }}
			restore := limitServeMemory(context.Background(), e, st)
			if got := debug.SetMemoryLimit(-1); got != tc.want {
				t.Errorf("limit while serving %d, want %d", got, tc.want)
			}
			restore()
			if got := debug.SetMemoryLimit(-1); got != before {
				t.Errorf("limit after serving %d, want %d back", got, before)
			}
		})
	}
}
