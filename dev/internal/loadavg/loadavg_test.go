package loadavg

import (
	"runtime"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0.36 0.63 1.49 1/523 12345\n", "0.36 0.63 1.49"},
		{"14.14 15.44 9.35", "14.14 15.44 9.35"},
		{"  4.1\t2.0  1.9 3/125 6653\n", "4.1 2.0 1.9"},
		{"0.36 0.63", Unknown},
		{"", Unknown},
	} {
		if got := Parse(c.in); got != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/loadavg is Linux's")
	}
	got := Read()
	if f := strings.Fields(got); len(f) != 3 {
		t.Errorf("Read() = %q, want three load averages", got)
	}
}
