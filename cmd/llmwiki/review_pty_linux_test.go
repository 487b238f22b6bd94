package main

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("cannot unlock a pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal number: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("cannot open the pseudo-terminal's other end: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestReviewColourOnATerminal: colour is on when stdout is a terminal, and
// off there too with NO_COLOR.
func TestReviewColourOnATerminal(t *testing.T) {
	_, tty := openPTY(t)
	if !colourOn(env{stdout: tty, getenv: func(string) string { return "" }}) {
		t.Error("colour off on a terminal")
	}
	if colourOn(env{stdout: tty, getenv: func(k string) string { return map[string]string{"NO_COLOR": "1"}[k] }}) {
		t.Error("colour on with NO_COLOR set")
	}
}

// TestReviewDiffColouredOnATerminal runs review --diff with stdout a
// terminal: added lines come green, removed red; with NO_COLOR, plain.
func TestReviewDiffColouredOnATerminal(t *testing.T) {
	root, _, _ := queuedWrites(t)
	for _, noColour := range []bool{false, true} {
		master, tty := openPTY(t)
		got := make(chan string)
		go func() {
			b, _ := io.ReadAll(master) // ends with EIO once tty is closed
			got <- string(b)
		}()
		var errb strings.Builder
		envv := map[string]string{}
		if noColour {
			envv["NO_COLOR"] = "1"
		}
		e := env{stdin: strings.NewReader(""), stdout: tty, stderr: &errb, getenv: func(k string) string { return envv[k] }}
		if err := runReview(context.Background(), e, []string{"--root", root, "--diff"}); err != nil {
			t.Fatalf("review --diff: %v\n%s", err, errb.String())
		}
		tty.Close()
		out := <-got
		coloured := strings.Contains(out, ansiGreen+"+Alpha is the first letter of the Greek alphabet.") && strings.Contains(out, ansiRed+"-Alpha is the first letter.")
		if coloured == noColour || noColour && strings.Contains(out, "\x1b[") {
			t.Errorf("NO_COLOR=%v: coloured %v:\n%q", noColour, coloured, out)
		}
		if !strings.Contains(out, "+Alpha is the first letter of the Greek alphabet.") {
			t.Errorf("no diff on the terminal:\n%q", out)
		}
	}
}
