// Command figures measures the project's figures (cold start, search
// latency and index build, load, lint) on two revisions in one session,
// interleaved, and prints a markdown table of before and after:
//
//	go run ./dev/figures -before main -after HEAD -rounds 3
//	go run ./dev/figures -before main -after HEAD -rounds 5 -only cold,lint
//
// Each revision is checked out into a temporary git worktree (removed at
// the end, also on Ctrl-C). Round 1 runs each figure's command on before
// then after, round 2 on after then before, and so on, so a machine whose
// speed drifts during the session charges both sides alike. The commands
// are the project's own benchmarks and load test, found in each tree by
// name (a benchmark that moved to another package is still found; one
// that is absent, or a command that fails, is reported as such for that
// side). Every command's output is saved in a log folder printed at the
// start, so a failed parse can be read.
//
// The corpora come from LLMWIKI_SHARED, else -shared, else ../shared next
// to the repository.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/llmwiki/llmwiki/dev/internal/loadavg"
)

// figure is one measured command and the parser of its output.
type figure struct {
	key     string   // the name -only selects
	aliases []string // other names -only accepts for it
	// bench is the benchmark the command runs (found in whichever package
	// of the tree declares it), empty for the load test.
	bench string
	args  []string // go test flags after the package
	parse func(string) ([]metric, error)
	npm   bool // needs testdata/e2e's node packages (npm ci)
	// subset, when set, runs the command on a part of the shared folder:
	// these paths under it (hard-linked, or copied, into a temporary
	// folder given as LLMWIKI_SHARED), and an empty folder for each of
	// empty. It works on any revision, with no flag the benchmark must know.
	subset, empty []string
}

// searchVariants are the benchmarks -search chooses between for the search
// and build figures.
var searchVariants = map[string]figure{
	"scale": {bench: "BenchmarkScale", args: []string{"-benchtime", "1x", "-v"}, parse: parseScale},
	// BenchmarkScale on tldr's English pages alone (7,425 of the 44,681
	// files): about a sixth of the work, for a loaded machine.
	"light": {bench: "BenchmarkScale", args: []string{"-benchtime", "1x", "-v"}, parse: parseScale,
		subset: []string{"corpora/tldr/pages", "golden"}, empty: []string{"corpora/obsidian-help"}},
}

func figures(search string) ([]figure, error) {
	sv, ok := searchVariants[search]
	if !ok {
		return nil, fmt.Errorf("-search %q: one of %s", search, strings.Join(slices.Sorted(mapKeys(searchVariants)), ", "))
	}
	sv.key, sv.aliases = "search", []string{"build"}
	return []figure{
		{key: "cold", bench: "BenchmarkColdStart", args: []string{"-benchtime", "20x"}, parse: parseCold},
		sv,
		{key: "load", parse: parseLoad},
		{key: "lint", bench: "BenchmarkLintScale", args: []string{"-benchtime", "1x"}, parse: parseLint},
	}, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// side is one revision checked out.
type side struct {
	label string // "before" or "after"
	rev   string // as given
	short string // its commit, abbreviated
	dir   string // the worktree
	tmp   string // TMPDIR of its commands
	bin   string // its llmwiki binary, built when the load test runs
	npmOK bool
}

// run is one command's outcome.
type run struct {
	metrics []metric
	err     error // nil when it ran and parsed
	absent  bool  // the tree has no such command
	wall    time.Duration
	log     string
}

func main() { os.Exit(figuresMain()) }

// figuresMain does the whole measurement and returns the exit status; it
// returns instead of exiting on an error after the worktrees exist, so the
// deferred cleanup removes them.
func figuresMain() int {
	before := flag.String("before", "", "revision measured first in odd rounds (git rev)")
	after := flag.String("after", "", "revision measured first in even rounds (git rev)")
	rounds := flag.Int("rounds", 3, "rounds; each runs every figure once on each revision, the order alternating")
	only := flag.String("only", "", "comma-separated figures to run: cold, search (same run as build), load, lint; default all")
	shared := flag.String("shared", "", "the shared folder with corpora/ (default $LLMWIKI_SHARED, else ../shared next to the repository)")
	logs := flag.String("logs", "", "folder for the commands' output (default a new temp folder, kept)")
	searchVariant := flag.String("search", "scale", "the search and build benchmark: scale (BenchmarkScale on tldr and Obsidian Help, 44,681 files) or light (BenchmarkScale on tldr's English pages, 7,425)")
	loadDuration := flag.Duration("load-duration", 15*time.Second, "the load test's -duration")
	flag.Parse()
	if *before == "" || *after == "" || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./dev/figures -before REV -after REV [-rounds N] [-only cold,search,build,load,lint]")
		os.Exit(2)
	}
	figs, err := figures(*searchVariant)
	if err != nil {
		fatal(err)
	}
	if figs, err = selectFigures(figs, *only); err != nil {
		fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }() // a second Ctrl-C ends at once

	repo, err := gitOut(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		fatal(fmt.Errorf("not in a git repository: %v", err))
	}
	sharedDir := *shared
	if sharedDir == "" {
		sharedDir = os.Getenv("LLMWIKI_SHARED")
	}
	if sharedDir == "" {
		sharedDir = filepath.Join(repo, "..", "shared")
	}
	if sharedDir, err = filepath.Abs(sharedDir); err != nil {
		fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sharedDir, "corpora")); err != nil {
		fmt.Fprintf(os.Stderr, "figures: warning: no corpora in %s (set -shared or LLMWIKI_SHARED): search, load and lint will fail\n", sharedDir)
	}
	logDir := *logs
	if logDir == "" {
		if logDir, err = os.MkdirTemp("", "llmwiki-figures-logs-"); err != nil {
			fatal(err)
		}
	} else if err := os.MkdirAll(logDir, 0o755); err != nil {
		fatal(err)
	}
	fmt.Fprintf(os.Stderr, "figures: logs in %s\n", logDir)

	tmp, err := os.MkdirTemp("", "llmwiki-figures-")
	if err != nil {
		fatal(err)
	}
	sides := []*side{{label: "before", rev: *before}, {label: "after", rev: *after}}
	defer func() {
		for _, s := range sides {
			if s.dir != "" {
				if _, err := gitOut(context.Background(), repo, "worktree", "remove", "--force", s.dir); err != nil {
					fmt.Fprintf(os.Stderr, "figures: removing worktree %s: %v\n", s.dir, err)
				}
			}
		}
		gitOut(context.Background(), repo, "worktree", "prune")
		os.RemoveAll(tmp)
	}()
	for _, s := range sides {
		if s.short, err = gitOut(ctx, repo, "rev-parse", "--short", s.rev+"^{commit}"); err != nil {
			fmt.Fprintf(os.Stderr, "figures: %s %q: %v\n", s.label, s.rev, err)
			return 2
		}
		dir := filepath.Join(tmp, s.label)
		if _, err := gitOut(ctx, repo, "worktree", "add", "--detach", dir, s.rev); err != nil {
			fmt.Fprintf(os.Stderr, "figures: worktree for %s: %v\n", s.rev, err)
			return 2
		}
		s.dir = dir
		s.tmp = filepath.Join(tmp, "tmp-"+s.label)
		if err := os.MkdirAll(s.tmp, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "figures:", err)
			return 2
		}
	}
	envs := map[string][]string{} // figure key → environment of its commands
	for _, f := range figs {
		dir := sharedDir
		if f.subset != nil {
			if dir, err = subsetShared(sharedDir, filepath.Join(tmp, "shared-"+f.key), f.subset, f.empty); err != nil {
				fmt.Fprintln(os.Stderr, "figures:", err)
				return 2
			}
		}
		envs[f.key] = append(os.Environ(), "LLMWIKI_SHARED="+dir)
	}
	mach := machine(ctx)

	results := map[string]map[string][]run{} // figure key → side label → runs
	for _, f := range figs {
		results[f.key] = map[string][]run{}
	}
	start := time.Now()
	for r := 0; r < *rounds && ctx.Err() == nil; r++ {
		order := []*side{sides[0], sides[1]}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, f := range figs {
			for _, s := range order {
				if ctx.Err() != nil {
					break
				}
				res := measure(ctx, f, s, envs[f.key], logDir, r+1, *loadDuration)
				results[f.key][s.label] = append(results[f.key][s.label], res)
				status := "ok"
				switch {
				case res.absent:
					status = "absent: " + res.err.Error()
				case res.err != nil:
					status = "FAILED: " + res.err.Error()
				}
				fmt.Fprintf(os.Stderr, "figures: round %d, %s, %s (%s): %s in %s (%s)\n", r+1, f.key, s.label, s.short, status, res.wall.Round(time.Second), res.log)
			}
		}
	}
	mach.loadEnd = loadavg.Read()
	mach.took = time.Since(start)
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "figures: interrupted; the table holds the runs that finished")
	}
	report := table(figs, results, sides, mach, *rounds)
	fmt.Print(report)
	os.WriteFile(filepath.Join(logDir, "figures.md"), []byte(report), 0o644)
	if ctx.Err() != nil {
		return 130
	}
	return 0
}

// selectFigures keeps the figures -only names (all when empty).
func selectFigures(figs []figure, only string) ([]figure, error) {
	if only == "" {
		return figs, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, f := range figs {
			if f.key == n || slices.Contains(f.aliases, n) {
				want[f.key], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("-only %q: no figure %q (cold, search, build, load, lint)", only, n)
		}
	}
	var out []figure
	for _, f := range figs {
		if want[f.key] {
			out = append(out, f)
		}
	}
	return out, nil
}

// measure runs figure f once in side s and parses its output.
func measure(ctx context.Context, f figure, s *side, env []string, logDir string, round int, loadDuration time.Duration) run {
	res := run{log: filepath.Join(logDir, fmt.Sprintf("r%d-%s-%s.log", round, f.key, s.label))}
	if f.npm && !s.npmOK {
		if out, err := command(ctx, s, env, "npm", "ci", "--prefix", "testdata/e2e", "--no-audit", "--no-fund"); err != nil {
			res.err = fmt.Errorf("npm ci: %v", err)
			os.WriteFile(res.log, out, 0o644)
			return res
		}
		s.npmOK = true
	}
	var args []string
	if f.bench == "" { // the load test
		pkg := firstDir(s.dir, "dev/load", "cmd/llmwiki-load")
		if pkg == "" {
			res.absent, res.err = true, errors.New("neither dev/load nor cmd/llmwiki-load")
			return res
		}
		if s.bin == "" {
			bin := filepath.Join(s.tmp, "..", "llmwiki-"+s.label)
			if out, err := command(ctx, s, env, "go", "build", "-o", bin, "./cmd/llmwiki"); err != nil {
				res.err = fmt.Errorf("go build ./cmd/llmwiki: %v", err)
				os.WriteFile(res.log, out, 0o644)
				return res
			}
			s.bin = bin
		}
		args = []string{"go", "run", "./" + pkg, "-bin", s.bin, "-mode", "open", "-duration", loadDuration.String(), "-skip-stdio", "-seed", "7"}
	} else {
		pkg, err := benchPackage(s.dir, f.bench)
		if err != nil {
			res.err = err
			return res
		}
		if pkg == "" {
			res.absent, res.err = true, fmt.Errorf("no %s in the tree", f.bench)
			return res
		}
		args = benchArgs(pkg, f)
	}
	t0 := time.Now()
	out, err := command(ctx, s, env, args[0], args[1:]...)
	res.wall = time.Since(t0)
	header := fmt.Sprintf("# %s (%s) in %s\n# %s\n# %s, %s\n\n", s.label, s.short, s.dir, strings.Join(args, " "), res.wall.Round(time.Millisecond), exitText(err))
	os.WriteFile(res.log, append([]byte(header), out...), 0o644)
	if err != nil {
		res.err = fmt.Errorf("%s: %v", strings.Join(args[:2], " "), err)
		return res
	}
	if res.metrics, res.err = f.parse(string(out)); res.err != nil {
		res.err = fmt.Errorf("parse: %v", res.err)
	}
	return res
}

// benchArgs is the go test command that runs f's benchmark alone in pkg.
// -bench matches the whole name, Benchmark prefix included.
func benchArgs(pkg string, f figure) []string {
	return append([]string{"go", "test", "./" + pkg, "-run", "^$", "-bench", "^" + f.bench + "$", "-count", "1", "-timeout", "60m"}, f.args...)
}

func exitText(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// command runs name in s's worktree with stdout and stderr together, in a
// process group of its own that is killed when ctx ends (go test and go run
// leave children otherwise).
func command(ctx context.Context, s *side, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.dir
	cmd.Env = append(env[:len(env):len(env)], "TMPDIR="+s.tmp)
	setGroup(cmd)
	return cmd.CombinedOutput()
}

// subsetShared makes dst a shared folder holding the paths of src listed
// in paths (each file hard-linked, or copied where a link fails) and an
// empty folder for each of empty, and returns dst.
func subsetShared(src, dst string, paths, empty []string) (string, error) {
	for _, e := range empty {
		if err := os.MkdirAll(filepath.Join(dst, filepath.FromSlash(e)), 0o755); err != nil {
			return "", err
		}
	}
	for _, p := range paths {
		from := filepath.Join(src, filepath.FromSlash(p))
		err := filepath.WalkDir(from, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, q)
			to := filepath.Join(dst, rel)
			if d.IsDir() {
				return os.MkdirAll(to, 0o755)
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if os.Link(q, to) == nil {
				return nil
			}
			data, err := os.ReadFile(q)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o644)
		})
		if err != nil {
			return "", fmt.Errorf("subset of %s: %v", src, err)
		}
	}
	return dst, nil
}

// firstDir returns the first of dirs that exists in root.
func firstDir(root string, dirs ...string) string {
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(root, d)); err == nil && fi.IsDir() {
			return d
		}
	}
	return ""
}

// benchPackage finds the package folder (slash-separated, relative to
// root) whose test files declare benchmark name, "" when none does.
func benchPackage(root, name string) (string, error) {
	decl := []byte("func " + name + "(")
	found := ""
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if containsLine(data, decl) {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			found = filepath.ToSlash(rel)
			return fs.SkipAll
		}
		return nil
	})
	return found, err
}

// containsLine reports whether a line of data starts with prefix.
func containsLine(data, prefix []byte) bool {
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(line, string(prefix)) {
			return true
		}
	}
	return false
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// machineInfo is what the table says about where it was measured.
type machineInfo struct {
	cpus      int
	model     string
	goVersion string
	loadStart string
	loadEnd   string
	took      time.Duration
	when      time.Time
}

func machine(ctx context.Context) machineInfo {
	m := machineInfo{cpus: runtime.NumCPU(), loadStart: loadavg.Read(), when: time.Now().UTC()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.model = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := exec.CommandContext(ctx, "go", "version").Output(); err == nil {
		m.goVersion = strings.TrimSpace(string(out))
	}
	return m
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "figures:", err)
	os.Exit(2)
}
