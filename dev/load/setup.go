package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// buildBinary builds ./cmd/llmwiki of the repository this program is in.
func buildBinary(dir string) (string, error) {
	repo, err := repoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "llmwiki")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/llmwiki")
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/llmwiki: %w", err)
	}
	return bin, nil
}

// repoRoot finds the folder with go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run it inside the repository (no go.mod found above the working directory)")
		}
		dir = parent
	}
}

// defaultCorpus is ../shared/corpora/obsidian-help beside the repository
// ($LLMWIKI_SHARED overrides ../shared).
func defaultCorpus() (string, error) {
	shared := os.Getenv("LLMWIKI_SHARED")
	if shared == "" {
		repo, err := repoRoot()
		if err != nil {
			return "", err
		}
		shared = filepath.Join(repo, "..", "shared")
	}
	dir := filepath.Join(shared, "corpora", "obsidian-help")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("no corpus at %s; pass -corpus DIR or set LLMWIKI_SHARED", dir)
	}
	return dir, nil
}

// setupWiki creates the wiki with llmwiki init and copies every .md file of
// the corpus into pages/, keeping its folders. It records the corpus pages'
// hashes so the checks can prove nothing touched them.
func setupWiki(ctx context.Context, c config, rep *report) error {
	if _, err := os.Stat(c.root); err == nil {
		return fmt.Errorf("%s exists; the load test makes a new wiki", c.root)
	}
	if out, err := exec.CommandContext(ctx, c.bin, "init", c.root).CombinedOutput(); err != nil {
		return fmt.Errorf("llmwiki init: %v\n%s", err, out)
	}
	start := time.Now()
	var bytes int64
	err := filepath.WalkDir(c.corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(c.corpus, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(c.root, "pages", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		page := "pages/" + filepath.ToSlash(rel)
		rep.corpus[page] = store.SHA256Hex(data)
		rep.corpusPaths = append(rep.corpusPaths, page)
		bytes += int64(len(data))
		return nil
	})
	if err != nil {
		return fmt.Errorf("copy the corpus: %w", err)
	}
	if len(rep.corpus) == 0 {
		return fmt.Errorf("no .md files under %s", c.corpus)
	}
	fmt.Fprintf(c.out, "copied %d pages (%.1f MiB) in %s\n", len(rep.corpus), float64(bytes)/(1<<20), time.Since(start).Round(time.Millisecond))
	return nil
}

// proc is a running llmwiki server process.
type proc struct {
	cmd   *exec.Cmd
	base  string
	mu    sync.Mutex
	tail  []string // last stderr lines
	errs  int      // stderr lines at level ERROR
	pprof string   // "http://127.0.0.1:N/debug/pprof/" when asked for
	done  chan error
}

var pprofRE = regexp.MustCompile(`pprof on (http://\S+)`)

var servingRE = regexp.MustCompile(`serving .* on (http://[0-9.:\[\]]+)/mcp`)

// startHTTPServer starts `llmwiki serve --http 127.0.0.1:0` with token and
// waits until it says where it listens.
// With pprof it also asks for the profile endpoint ($LLMWIKI_PPROF).
func startHTTPServer(bin, root, token string, pprof bool) (*proc, error) {
	cmd := exec.Command(bin, "serve", "--root", root, "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "LLMWIKI_TOKEN="+token, "LLMWIKI_LOG=warn")
	if pprof {
		cmd.Env = append(cmd.Env, "LLMWIKI_PPROF=127.0.0.1:0")
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan error, 1)}
	found := make(chan string, 1)
	go p.readStderr(stderr, func(line string) {
		if m := pprofRE.FindStringSubmatch(line); m != nil {
			p.mu.Lock()
			p.pprof = m[1]
			p.mu.Unlock()
		}
		if m := servingRE.FindStringSubmatch(line); m != nil {
			select {
			case found <- m[1]:
			default:
			}
		}
	})
	go func() { p.done <- cmd.Wait() }()
	select {
	case p.base = <-found:
		return p, nil
	case err := <-p.done:
		return nil, fmt.Errorf("llmwiki serve --http exited: %v\n%s", err, p.log())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("llmwiki serve --http did not start:\n%s", p.log())
	}
}

func (p *proc) readStderr(r io.Reader, see func(string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if see != nil {
			see(line)
		}
		p.mu.Lock()
		if strings.Contains(line, "level=ERROR") {
			p.errs++
		}
		p.tail = append(p.tail, line)
		if len(p.tail) > 40 {
			p.tail = p.tail[1:]
		}
		p.mu.Unlock()
	}
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

// peakRSS returns the process's peak resident memory in MiB (Linux), or 0.
func peakRSS(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(v), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

// kill ends the process if it still runs (after an error on the way); on
// a process that has exited it does nothing (os.ErrProcessDone).
func (p *proc) kill() { p.cmd.Process.Kill() }

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop(timeout time.Duration) error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			return fmt.Errorf("server exited with %v after SIGTERM:\n%s", err, p.log())
		}
		return nil
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		return fmt.Errorf("server did not stop within %s of SIGTERM:\n%s", timeout, p.log())
	}
}

// cpuSeconds returns the process's user+system CPU time so far (Linux), or 0.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) in parentheses:
	// state is field 3, utime 14 and stime 15, in clock ticks (100 a second
	// on Linux).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	var ut, stt float64
	fmt.Sscanf(f[11], "%f", &ut)
	fmt.Sscanf(f[12], "%f", &stt)
	return (ut + stt) / 100
}

// fetchProfile saves the server's profile kind ("profile" for CPU,
// "allocs" for allocations) over the next d to file.
func fetchProfile(ctx context.Context, base, kind string, d time.Duration, file string) error {
	secs := int(d.Seconds())
	if secs < 1 {
		secs = 1
	}
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s%s?seconds=%d", base, kind, secs), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("pprof: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}
