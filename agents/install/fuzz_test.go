package install

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

// FuzzJSONSet: whatever a config file holds, setting llmwiki's entry either
// refuses or yields a file that parses, holds the entry, and is unchanged by
// a second set; strict JSON stays strict JSON.
func FuzzJSONSet(f *testing.F) {
	for _, s := range []string{"", "{}", `{"mcpServers":{"a":{}}}`, "{\n  // c\n  \"servers\": {},\n}", "{\"a\":1,/*x*/}", `{"mcpServers":[]}`, "{\n\t\"x\": {\"y\": [1,2,],},\n}"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, jsonc bool) {
		d, err := parseJSON(in, jsonc)
		if err != nil {
			return
		}
		if err := d.setEntry(ordered{{"command", "llmwiki"}, {"args", []string{"serve"}}}, "mcpServers", "llmwiki"); err != nil {
			return
		}
		if err := d.addToList("llmwiki", "enabledMcpjsonServers"); err != nil {
			return
		}
		out := d.bytes()
		if !jsonc && !json.Valid(out) {
			t.Fatalf("strict JSON became invalid:\n%s", out)
		}
		v, err := hujson.Parse(append([]byte(nil), out...))
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		v.Standardize()
		var m map[string]any
		if err := json.Unmarshal(v.Pack(), &m); err != nil {
			t.Fatal(err)
		}
		e, _ := m["mcpServers"].(map[string]any)["llmwiki"].(map[string]any)
		if e["command"] != "llmwiki" {
			t.Fatalf("entry missing:\n%s", out)
		}
		d2, err := parseJSON(out, jsonc)
		if err != nil {
			t.Fatal(err)
		}
		d2.setEntry(ordered{{"command", "llmwiki"}, {"args", []string{"serve"}}}, "mcpServers", "llmwiki")
		d2.addToList("llmwiki", "enabledMcpjsonServers")
		if string(d2.bytes()) != string(out) {
			t.Fatalf("second set changed the file:\n%s\n---\n%s", out, d2.bytes())
		}
	})
}

// FuzzYAMLUpsert: the same for Continue's YAML.
func FuzzYAMLUpsert(f *testing.F) {
	for _, s := range []string{"", "A:\n  - A: A\n    A: 0", "name: x\n", "mcpServers:\n  - name: a\n    command: b\n", "mcpServers: 3\n", "# c\nmodels: []\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := parseYAML(in)
		if err != nil {
			return
		}
		item := ordered{{"name", "llmwiki"}, {"command", "llmwiki"}}
		if err := d.upsertNamed("mcpServers", item); err != nil {
			return
		}
		out, err := d.bytes()
		if err != nil {
			return
		}
		var m map[string]any
		if err := yaml.Unmarshal(out, &m); err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		d2, err := parseYAML(out)
		if err != nil {
			t.Fatal(err)
		}
		d2.upsertNamed("mcpServers", item)
		out2, _ := d2.bytes()
		if string(out2) != string(out) {
			t.Fatalf("second upsert changed the file:\n%s\n---\n%s", out, out2)
		}
	})
}

// FuzzMergeBlock: whatever a shared rules file holds, merging llmwiki's
// block either refuses or keeps every byte outside the block, holds the
// block once, and is unchanged by a second merge.
func FuzzMergeBlock(f *testing.F) {
	for _, s := range []string{"", "mine\n", "mine", "a\r\nb\r\n", "a\n" + blockBegin + "\nold\n" + blockEnd + "\nb\n", blockBegin + "\n", blockEnd + "\n" + blockBegin + "\n", "<!-- llmwiki:begin x -->\r\n" + blockEnd} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := mergeBlock(in, "# llmwiki\n\nrules\n")
		if err != nil {
			return
		}
		s, o := string(out), string(in)
		// Markers count only as whole lines (mid-line they are text).
		begin, end, off := -1, -1, 0
		nb, ne := 0, 0
		for _, line := range strings.SplitAfter(s, "\n") {
			switch t := strings.TrimSpace(line); {
			case strings.HasPrefix(t, blockBeginPrefix):
				nb, begin = nb+1, off
			case t == blockEnd:
				ne, end = ne+1, off+len(line)
			}
			off += len(line)
		}
		if nb != 1 || ne != 1 || begin > end {
			t.Fatalf("markers in %q", s)
		}
		before, after := s[:begin], s[end:]
		if !strings.HasPrefix(o, strings.TrimRight(before, "\r\n")) || !strings.HasSuffix(o, after) {
			t.Fatalf("text outside the block changed:\n%q\n->\n%q", o, s)
		}
		again, err := mergeBlock(out, "# llmwiki\n\nrules\n")
		if err != nil || string(again) != s {
			t.Fatalf("second merge: %v\n%q\n%q", err, s, again)
		}
	})
}

// FuzzMCPJSONRoot: any .mcp.json yields a root, nothing or an error, never
// a panic.
func FuzzMCPJSONRoot(f *testing.F) {
	for _, s := range []string{`{"mcpServers":{"llmwiki":{"command":"llmwiki","args":["serve","--root","${A:-b}"]}}}`, `{"mcpServers":{"x":{"command":"llmwiki","args":["--root"]}}}`, `{"mcpServers":{"llmwiki":{"env":{"LLMWIKI_ROOT":1}}}}`, `{"mcpServers":[1]}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = mcpJSONRoot(in, func(string) string { return "" })
	})
}
