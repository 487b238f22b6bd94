package install

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

var entry = map[string]any{"command": "/bin/llmwiki", "args": []string{"serve", "--root", "/w"}}

func TestJSONSetKeepsTheRest(t *testing.T) {
	cases := []struct {
		name, in, want string
		jsonc          bool
	}{
		{"empty file", "", "{\n  \"mcpServers\": {\n    \"llmwiki\": {\n      \"args\": [\n        \"serve\",\n        \"--root\",\n        \"/w\"\n      ],\n      \"command\": \"/bin/llmwiki\"\n    }\n  }\n}\n", false},
		{"other server, 4 spaces", "{\n    \"mcpServers\": {\n        \"github\": {\n            \"command\": \"gh\"\n        }\n    },\n    \"x\": 1\n}\n",
			"{\n    \"mcpServers\": {\n        \"github\": {\n            \"command\": \"gh\"\n        },\n        \"llmwiki\": {\n            \"args\": [\n                \"serve\",\n                \"--root\",\n                \"/w\"\n            ],\n            \"command\": \"/bin/llmwiki\"\n        }\n    },\n    \"x\": 1\n}\n", false},
		{"jsonc with comments and trailing commas", "{\n  // theme\n  \"theme\": \"dark\",\n  \"context_servers\": {\n    \"other\": {\"command\": \"x\"}, // keep me\n  },\n}\n",
			"{\n  // theme\n  \"theme\": \"dark\",\n  \"context_servers\": {\n    \"other\": {\"command\": \"x\"}, // keep me\n    \"llmwiki\": {\n      \"args\": [\n        \"serve\",\n        \"--root\",\n        \"/w\"\n      ],\n      \"command\": \"/bin/llmwiki\"\n    },\n  },\n}\n", true},
	}
	for _, c := range cases {
		d, err := parseJSON([]byte(c.in), c.jsonc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		key := "mcpServers"
		if c.jsonc {
			key = "context_servers"
		}
		if err := d.set(entry, key, "llmwiki"); err != nil {
			t.Fatal(err)
		}
		got := string(d.bytes())
		if got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, got, c.want)
		}
		if !c.jsonc && !json.Valid([]byte(got)) {
			t.Errorf("%s: output is not JSON", c.name)
		}
		if _, err := hujson.Parse([]byte(got)); err != nil {
			t.Errorf("%s: output does not parse: %v", c.name, err)
		}
		// Idempotent: setting it again changes no byte.
		d2, _ := parseJSON([]byte(got), c.jsonc)
		d2.set(entry, key, "llmwiki")
		if string(d2.bytes()) != got {
			t.Errorf("%s: second set changed the file", c.name)
		}
	}
}

func TestJSONRefusals(t *testing.T) {
	if _, err := parseJSON([]byte("{\n  \"a\": 1,\n  \"b\": 2,\n}\n"), false); err == nil || !strings.Contains(err.Error(), "line 4, column 1") {
		t.Errorf("trailing comma in strict JSON: %v", err)
	}
	if _, err := parseJSON([]byte("{\n  \"a\": [1,,2]\n}"), true); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("broken JSONC: %v", err)
	}
	if _, err := parseJSON([]byte("[1]"), false); err == nil {
		t.Error("top-level array accepted")
	}
	d, _ := parseJSON([]byte(`{"mcpServers": "nope"}`), false)
	if err := d.set(entry, "mcpServers", "llmwiki"); err == nil || !strings.Contains(err.Error(), "not an object") {
		t.Errorf("non-object parent: %v", err)
	}
}

func TestJSONAddToList(t *testing.T) {
	d, _ := parseJSON([]byte("{\n  \"enabledMcpjsonServers\": [\"github\"],\n  \"other\": true\n}\n"), false)
	d.addToList("llmwiki", "enabledMcpjsonServers")
	d.addToList("llmwiki", "enabledMcpjsonServers")
	if got := string(d.bytes()); got != "{\n  \"enabledMcpjsonServers\": [\"github\", \"llmwiki\"],\n  \"other\": true\n}\n" {
		t.Errorf("got %s", got)
	}
	d, _ = parseJSON(nil, false)
	d.addToList("llmwiki", "enabledMcpjsonServers")
	if got, _ := d.get("enabledMcpjsonServers"); !jsonEqual(got, []string{"llmwiki"}) {
		t.Errorf("got %v", got)
	}
}
