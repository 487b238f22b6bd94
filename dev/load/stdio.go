package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/llmwiki/llmwiki/dev/internal/loadavg"
)

// stdioPhase starts two `llmwiki serve` processes (stdio, as two editor
// windows would) on the same root and runs stdioWriters concurrent writers
// through each: append_log, write_page creating and then updating the
// writer's own page, research_save, and updates of the shared load pages
// (with base_sha256, so the two processes conflict).
func stdioPhase(ctx context.Context, c config, rep *report) error {
	fmt.Fprintf(c.out, "== stdio phase: 2 processes x %d writers x %d writes on one root (load average %s)\n", c.stdioWriters, c.stdioOps, loadavg.Read())
	rep.resetStats()
	var procs []*mcpClient
	for _, name := range []string{"A", "B"} {
		cl, err := client.NewStdioMCPClient(c.bin, []string{"LLMWIKI_LOG=error"}, "serve", "--root", c.root)
		if err != nil {
			return fmt.Errorf("start stdio server %s: %w", name, err)
		}
		mc, err := initClient(ctx, cl, "llmwiki-load-stdio-"+name, rep)
		if err != nil {
			return fmt.Errorf("stdio server %s: %w", name, err)
		}
		defer mc.c.Close()
		procs = append(procs, mc)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for pi, mc := range procs {
		for wi := 0; wi < c.stdioWriters; wi++ {
			wg.Add(1)
			go func(mc *mcpClient, pi, wi int) {
				defer wg.Done()
				stdioWriter(ctx, mc, pi, wi, c.stdioOps)
			}(mc, pi, wi)
		}
	}
	wg.Wait()
	rep.stdioElapsed = time.Since(start)
	rep.stdioStats = rep.snapshotStats()
	for _, mc := range procs {
		mc.c.Close()
	}
	return nil
}

// stdioWriter makes ops writes, cycling through the kinds.
func stdioWriter(ctx context.Context, mc *mcpClient, pi, wi, ops int) {
	led := mc.rep.led
	own := fmt.Sprintf("stdio-%c-%02d", 'a'+pi, wi)
	ownPath := "pages/" + own + ".md"
	ownSHA := ""
	for i := 0; i < ops && ctx.Err() == nil; i++ {
		marker := fmt.Sprintf("p%d-w%02d-n%02d-%s", pi, wi, i, nonce())
		switch i % 5 {
		case 0:
			title := "load " + marker
			led.logResult(title, mc.call(ctx, "append_log", map[string]any{"op": "note", "title": title}, nil))
		case 2:
			content := fmt.Sprintf("marker %s\n", marker)
			led.researchResult(marker, mc.call(ctx, "research_save", map[string]any{"topic": fmt.Sprintf("load topic %d", wi%researchTopics), "content": content}, nil))
		case 1, 3:
			body := fmt.Sprintf("# %s\n\nmarker %s\n", own, marker)
			if i%5 == 3 {
				body += "\nUpdated.\n"
			}
			args := map[string]any{"title": own, "slug": own, "content": body}
			if ownSHA != "" {
				args["base_sha256"] = ownSHA
			}
			r := mc.call(ctx, "write_page", args, nil)
			led.pageResult(ownPath, ownSHA, marker, r)
			if r.ok() {
				ownSHA = str(r.out, "sha256")
			}
		case 4:
			slug := fmt.Sprintf("load-page-%02d", (pi*7+wi)%4) // four hot pages
			rd := mc.call(ctx, "read_page", map[string]any{"page": slug}, nil)
			if !rd.ok() {
				continue
			}
			base := str(rd.out, "sha256")
			title := fmt.Sprintf("Load page %s", slug[len("load-page-"):])
			body := fmt.Sprintf("# %s\n\nmarker %s\n", title, marker)
			led.pageResult("pages/"+slug+".md", base, marker, mc.call(ctx, "write_page", map[string]any{"title": title, "slug": slug, "content": body, "base_sha256": base}, nil))
		}
	}
}
