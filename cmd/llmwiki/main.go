// Command llmwiki keeps an LLM-maintained markdown wiki on disk and serves it
// to editor agents over MCP. Run "llmwiki help" for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := stopOnSignal()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if code, ok := err.(exitCode); ok {
			os.Exit(int(code))
		}
		fmt.Fprintln(os.Stderr, "llmwiki:", err)
		os.Exit(2)
	}
}

// stopOnSignal returns a context that ends at the first SIGINT or SIGTERM
// (a command stops cleanly: serve drains its calls, up to
// --shutdown-timeout); a second signal ends the process at once, with the
// status a shell gives a process killed by that signal. stop restores the
// default handling.
func stopOnSignal() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		s := <-sigs
		fmt.Fprintln(os.Stderr, "llmwiki: second signal; exiting now")
		code := 130
		if s == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}
