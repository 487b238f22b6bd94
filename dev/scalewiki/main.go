// Command scalewiki makes a wiki of a chosen size from the shared corpora
// for the scale figures of docs/performance.md:
//
//	go run ./dev/scalewiki -pages 144000 /tmp/wiki144k
//
// Up to 44,681 pages it is a sample of tldr and Obsidian Help; above that,
// copies under pages/v<k>/ with varied words (internal/scalecorpus). The
// folder must not exist or be empty.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llmwiki/llmwiki/internal/scalecorpus"
	"github.com/llmwiki/llmwiki/wiki"
)

func main() {
	pages := flag.Int("pages", 44681, "number of pages")
	shared := flag.String("shared", "", "the shared folder (default ../shared beside the repository, or $LLMWIKI_SHARED)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./dev/scalewiki [-pages N] [-shared DIR] FOLDER")
		os.Exit(2)
	}
	dir := *shared
	if dir == "" {
		dir = os.Getenv("LLMWIKI_SHARED")
	}
	if dir == "" {
		dir = filepath.Join("..", "shared")
	}
	root := flag.Arg(0)
	if ents, err := os.ReadDir(root); err == nil && len(ents) > 0 {
		fmt.Fprintf(os.Stderr, "scalewiki: %s is not empty\n", root)
		os.Exit(1)
	}
	t0 := time.Now()
	if _, err := wiki.Init(root); err != nil {
		fmt.Fprintln(os.Stderr, "scalewiki:", err)
		os.Exit(1)
	}
	n, err := scalecorpus.Build(dir, root, *pages)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalewiki:", err)
		os.Exit(1)
	}
	fmt.Printf("scalewiki: %d pages in %s (%s)\n", n, root, time.Since(t0).Round(time.Millisecond))
}
