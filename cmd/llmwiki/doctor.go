package main

import (
	"context"
	"encoding/json"
	"fmt"
)

func runDoctor(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "doctor", "doctor [--base-url URL] [--model NAME] [--json]")
	mf := addModelFlags(fs)
	asJSON := fs.Bool("json", false, "print the diagnosis as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("doctor takes no arguments (got %q)", fs.Arg(0))
	}
	c, err := mf.client(e)
	if err != nil {
		return err
	}
	d := c.Doctor(ctx)
	if *asJSON {
		b, _ := json.MarshalIndent(d, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	} else {
		fmt.Fprintf(e.stdout, "Endpoint: %s\nModel:    %s\nAPI key:  %s\n\n", d.BaseURL, d.Model, d.Key)
		for _, ch := range d.Checks {
			mark := "ok  "
			if !ch.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(e.stdout, "[%s] %-13s %s\n", mark, ch.Name, ch.Detail)
			if ch.Fix != "" {
				fmt.Fprintf(e.stdout, "       %-13s fix: %s\n", "", ch.Fix)
			}
		}
		if d.OK {
			fmt.Fprintln(e.stdout, "\nThe model side works: llmwiki ingest, build and lint --deep can use it.")
		} else {
			fmt.Fprintln(e.stdout, "\nThe model side does not work yet; the MCP server does not need it (the editor agent is the model).")
		}
	}
	if !d.OK {
		return exitCode(1)
	}
	return nil
}
