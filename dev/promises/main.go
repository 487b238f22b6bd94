// Command promises measures what llmwiki promises about hostile input,
// crashes and concurrency, and writes the figures into docs/promises.md
// (between <!-- promises:begin --> and <!-- promises:end -->), so the
// section is never edited by hand.
//
// It runs the hostile-input, crash and concurrency tests of ./wiki and
// ./cmd/llmwiki with $LLMWIKI_FIGURES set (each test records what it tried
// there, see wikitest.Figure), the SIGKILL crash run at full size (1,000
// writes, 50 kills), and renders the section from the recorded figures.
//
//	go run ./dev/promises              # run the tests, rewrite the section
//	go run ./dev/promises -check       # run the tests, fail if the section differs (.ci/run)
//	go run ./dev/promises -fuzz-only   # rewrite only the "Fuzzed" line; runs no test
//
// The "Fuzzed" line lists the go test -fuzz targets found in the code
// (every "func FuzzX(" in a _test.go file, as .ci/fuzz finds them), so a
// new target changes the section without any measurement. go generate
// ./... rewrites that line (it runs no test); it does not measure the rest,
// which takes minutes: go run ./dev/promises does.
//
// Only figures that do not depend on timing go into docs/promises.md (cases
// tried, writes attempted, kills, writes lost); the rest is printed.
package main

//go:generate sh -c "cd ../.. && go run ./dev/promises -fuzz-only"

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const (
	begin = "<!-- promises:begin -->\n"
	end   = "<!-- promises:end -->"
)

// testPattern selects the tests that record figures.
const testPattern = `^(TestHostile|TestCrash|TestConcurrentServers|TestWriteFailsCleanly|TestRootThroughSymlink|TestStateFolderLinksRefused|TestTornAuditLine|TestJournalRollForward|TestOpenSparesLiveStateWrites|TestRealDisk|TestCrossDeviceTmp)`

func main() {
	check := flag.Bool("check", false, "do not rewrite docs/promises.md; exit 1 when its section differs from the figures measured")
	writes := flag.Int("writes", 1000, "writes of the SIGKILL crash run")
	kills := flag.Int("kills", 50, "kills of the SIGKILL crash run")
	seed := flag.Int("seed", 1, "random seed of the crash run")
	readme := flag.String("readme", "docs/promises.md", "the promises page to update")
	figs := flag.String("figures", "", "render from this figures.jsonl instead of running the tests")
	fuzzOnly := flag.Bool("fuzz-only", false, "rewrite (or with -check, compare) only the Fuzzed line, from the fuzz targets in the code; runs no test")
	flag.Parse()
	var err error
	if *fuzzOnly {
		err = runFuzzOnly(*check, *readme)
	} else {
		err = run(*check, *writes, *kills, *seed, *readme, *figs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "promises:", err)
		os.Exit(1)
	}
}

func run(check bool, writes, kills, seed int, readme, figs string) error {
	if err := checkStated("."); err != nil {
		return err
	}
	if figs == "" {
		dir, err := os.MkdirTemp("", "llmwiki-figures-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("go", "test", "-count=1", "-timeout", "30m", "-run", testPattern, "./wiki", "./wiki/mdoc", "./cmd/llmwiki")
		cmd.Env = append(os.Environ(),
			"LLMWIKI_FIGURES="+dir,
			"LLMWIKI_CRASH_WRITES="+strconv.Itoa(writes),
			"LLMWIKI_CRASH_KILLS="+strconv.Itoa(kills),
			"LLMWIKI_CRASH_SEED="+strconv.Itoa(seed),
		)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		fmt.Fprintf(os.Stderr, "promises: go test -run '%s' ./wiki ./cmd/llmwiki (crash run: %d writes, %d kills)\n", testPattern, writes, kills)
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("the tests failed, so there is nothing to promise: %w", err)
		}
		figs = filepath.Join(dir, "figures.jsonl")
	}
	f, err := readFigures(figs)
	if err != nil {
		return err
	}
	targets, err := fuzzTargets(".")
	if err != nil {
		return err
	}
	section := render(f, targets)
	fmt.Printf("fuzz targets (%d): %s\n", len(targets), fuzzList(targets))
	printFigures(os.Stdout, f)
	data, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s lacks the %q and %q markers", readme, strings.TrimSpace(begin), end)
	}
	if s[i+len(begin):j] == section {
		fmt.Fprintln(os.Stderr, "promises: docs/promises.md is up to date")
		return nil
	}
	if check {
		return fmt.Errorf("%s's promises section differs from the figures measured; run go run ./dev/promises and commit docs/promises.md\nwant:\n%s", readme, section)
	}
	if err := os.WriteFile(readme, []byte(s[:i+len(begin)]+section+s[j:]), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "promises: docs/promises.md rewritten")
	return nil
}

// fuzzPrefix starts the section's line about fuzzing.
const fuzzPrefix = "- **Fuzzed.**"

// runFuzzOnly rewrites (or with check, compares) only the Fuzzed line of
// the promises page, from the fuzz targets in the code under the
// current folder; the measured figures stay as they are.
func runFuzzOnly(check bool, readme string) error {
	targets, err := fuzzTargets(".")
	if err != nil {
		return err
	}
	data, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	out, changed, err := replaceFuzzLine(string(data), fuzzBullet(targets))
	if err != nil {
		return fmt.Errorf("%s: %w", readme, err)
	}
	fmt.Printf("fuzz targets (%d): %s\n", len(targets), fuzzList(targets))
	if !changed {
		fmt.Fprintln(os.Stderr, "promises: the Fuzzed line is up to date")
		return nil
	}
	if check {
		return fmt.Errorf("%s's Fuzzed line differs from the fuzz targets in the code; run go run ./dev/promises -fuzz-only and commit docs/promises.md", readme)
	}
	if err := os.WriteFile(readme, []byte(out), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "promises: the Fuzzed line rewritten")
	return nil
}

// replaceFuzzLine replaces the line starting with fuzzPrefix inside the
// promises section of readme with line (which ends in a newline).
func replaceFuzzLine(readme, line string) (string, bool, error) {
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		return "", false, fmt.Errorf("no %q and %q markers", strings.TrimSpace(begin), end)
	}
	sec := readme[i+len(begin) : j]
	k := strings.Index(sec, fuzzPrefix)
	if k < 0 || (k > 0 && sec[k-1] != '\n') {
		return "", false, fmt.Errorf("the promises section has no line starting %q; run go run ./dev/promises", fuzzPrefix)
	}
	n := strings.IndexByte(sec[k:], '\n')
	if n < 0 {
		return "", false, fmt.Errorf("the %q line does not end", fuzzPrefix)
	}
	old := sec[k : k+n+1]
	if old == line {
		return readme, false, nil
	}
	sec = sec[:k] + line + sec[k+n+1:]
	return readme[:i+len(begin)] + sec + readme[j:], true, nil
}

// fuzzBullet is the section's line about fuzzing: how many go test -fuzz
// targets there are, and which.
func fuzzBullet(targets []string) string {
	return fmt.Sprintf("%s %d `go test -fuzz` targets with committed seeds: %s. `.ci/fuzz` runs each for 60 s.\n", fuzzPrefix, len(targets), fuzzList(targets))
}

// figures are the measured values, summed over the tests that recorded
// them: kind -> key -> value.
type figures map[string]map[string]float64

func readFigures(path string) (figures, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("no figures were recorded (%w)", err)
	}
	defer f.Close()
	out := figures{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("figures.jsonl: %w", err)
		}
		kind, _ := rec["kind"].(string)
		if out[kind] == nil {
			out[kind] = map[string]float64{}
		}
		for k, v := range rec {
			if n, ok := v.(float64); ok {
				out[kind][k] += n
			}
		}
	}
	return out, sc.Err()
}

func (f figures) get(kind, key string) int { return int(f[kind][key]) }

// fuzzTargets lists "package.FuzzName" for every fuzz target in the
// repository, sorted.
func fuzzTargets(root string) ([]string, error) {
	var out []string
	err := testFiles(root, regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`), func(pkg, name string) {
		out = append(out, pkg+"."+name)
	})
	sort.Strings(out)
	return out, err
}

// testFiles calls fn with the package folder (as given under root, slash
// separated) and the first group of every match of re in the _test.go
// files under root, as .ci/fuzz and go test find them (node_modules,
// .git and testdata are not code).
func testFiles(root string, re *regexp.Regexp, fn func(pkg, name string)) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllSubmatch(data, -1) {
			fn(filepath.ToSlash(filepath.Dir(p)), string(m[1]))
		}
		return nil
	})
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// render is the promises section: short, and only figures that a rerun
// reproduces exactly, then the fuzz targets (from [fuzzTargets]).
func render(f figures, fuzz []string) string {
	// Figures that depend on the machine (a real tmpfs needs root) are
	// printed, not written here, so the section is the same everywhere.
	kinds := []string{"containment", "names", "frontmatter", "content", "protocol", "disk-faults", "crash-steps"}
	total := 0
	for _, k := range kinds {
		total += f.get(k, "cases")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Generated by `go run ./dev/promises` from what the tests measured; `.ci/run` measures again and fails when this list is out of date. %s hostile cases tried in all.\n\n", thousands(total))
	fmt.Fprintf(&b, "- **Nothing escapes the root.** %d containment cases: `..`, absolute and drive paths, backslashes, a sibling named like the root, symlinked folders and files leading out, a dangling symlink (never created through), `:`, trailing dots and spaces, Windows device names, refused the same way on every OS; a root reached through a symlink works.\n", f.get("containment", "cases"))
	fmt.Fprintf(&b, "- **One name, one page.** %d name cases: case, separator and NFC/NFD variants reach one page; titles of only emoji, punctuation or CJK get a stable slug; a second write never replaces a different page.\n", f.get("names", "cases"))
	fmt.Fprintf(&b, "- **Frontmatter is never mangled.** %d cases: BOM, CRLF, unclosed blocks, `---` and `----` in the body, a leading thematic break, TOML and JSON; invalid YAML is refused naming the file and line, the file stays byte-identical and no second block is prepended; every value written reads back.\n", f.get("frontmatter", "cases"))
	fmt.Fprintf(&b, "- **Content is decoded or described, never dumped.** %d cases: NUL bytes, UTF-16/32, Latin-1, multi-megabyte single lines, names no tool can address; every response is valid UTF-8 JSON.\n", f.get("content", "cases"))
	fmt.Fprintf(&b, "- **Bad requests get clear answers.** %d protocol cases over stdio: invalid JSON or UTF-8, batches, requests before `initialize`, unknown methods, tools and arguments (refused by name), wrong types, 5 MB requests, 100 pipelined requests with their ids matched.\n", f.get("protocol", "cases"))
	fmt.Fprintf(&b, "- **Two servers share a wiki.** %d processes × %d writers, %s mixed writes and reads at once: every append once on its own line, every replaced version in a snapshot, stale `base_sha256` reported as a conflict. Writes lost: %d.\n",
		f.get("concurrency", "processes"), f.get("concurrency", "writers")/max(f.get("concurrency", "processes"), 1), thousands(f.get("concurrency", "calls")), f.get("concurrency", "lost"))
	fmt.Fprintf(&b, "- **Crashes lose nothing.** The server was killed with SIGKILL at random moments during %s writes: %d kills survived, writes lost: %d. After each restart every file parses, every page and context.md hold a version that was written, every replaced version is in a snapshot, audit lines parse (a torn last line is moved aside and reported), no temp file remains. A further %d crashes stopped each kind of write at every step: the wiki was all old or all new.\n",
		thousands(f.get("crash", "writes")), f.get("crash", "kills"), f.get("crash", "lost"), f.get("crash-steps", "cases"))
	fmt.Fprintf(&b, "- **Full and read-only disks fail cleanly.** %d injected failures (no space, read-only, permission denied at every step of every kind of write), and a real full and read-only tmpfs where the tests may mount one: a clear error, the old content byte-identical, no temp file left. Temp files live beside their target, so a `TMPDIR` on another file system changes nothing.\n", f.get("disk-faults", "cases"))
	renderStated(&b)
	b.WriteString(fuzzBullet(fuzz))
	return b.String()
}

func fuzzList(targets []string) string {
	var parts []string
	for _, t := range targets {
		parts = append(parts, "`"+strings.TrimPrefix(strings.TrimPrefix(t, "./"), ".")+"`")
	}
	return strings.Join(parts, ", ")
}

func printFigures(w io.Writer, f figures) {
	kinds := make([]string, 0, len(f))
	for k := range f {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		keys := make([]string, 0, len(f[k]))
		for key := range f[k] {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		var parts []string
		for _, key := range keys {
			parts = append(parts, fmt.Sprintf("%s=%s", key, thousands(int(f[k][key]))))
		}
		fmt.Fprintf(w, "%-12s %s\n", k, strings.Join(parts, " "))
	}
}
