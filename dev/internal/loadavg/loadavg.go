// Package loadavg reads the machine's load average for the dev harnesses,
// which print it beside every figure they measure: on a shared machine a
// wall-clock figure means little without it.
package loadavg

import (
	"os"
	"strings"
)

// Unknown is what Read and Parse return where no load average is known.
const Unknown = "?"

// Read returns the 1, 5 and 15 minute load averages from /proc/loadavg as
// "1.20 0.85 0.60", or Unknown where that file cannot be read (not Linux).
func Read() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return Unknown
	}
	return Parse(string(data))
}

// Parse returns the first three fields of a /proc/loadavg line, or Unknown
// when it has fewer.
func Parse(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Unknown
	}
	return strings.Join(f[:3], " ")
}
