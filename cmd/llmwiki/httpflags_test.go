package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHTTPConfig: serve --http resolves a bare port to loopback, refuses a
// non-loopback bind without a token, reads the token from --token-file or
// $LLMWIKI_TOKEN (not both) and refuses a short one.
func TestHTTPConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tokFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokFile, []byte("file-token-0123456789abcdef\n"), 0o600)
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	cases := []struct {
		addr, tokenFile string
		env             map[string]string
		wantAddr        string
		wantToken       string
		err             string
	}{
		{addr: "8080", wantAddr: "127.0.0.1:8080"},
		{addr: ":8080", wantAddr: "127.0.0.1:8080"},
		{addr: "localhost:9000", wantAddr: "localhost:9000"},
		{addr: "[::1]:9000", wantAddr: "[::1]:9000"},
		{addr: "0.0.0.0:8080", err: "refusing to serve on 0.0.0.0:8080 without a token"},
		{addr: "192.168.1.5:8080", err: "without a token"},
		{addr: "wiki.example:8080", err: "without a token"},
		{addr: "0.0.0.0:8080", env: map[string]string{"LLMWIKI_TOKEN": "env-token-0123456789abcdef"}, wantAddr: "0.0.0.0:8080", wantToken: "env-token-0123456789abcdef"},
		{addr: "0.0.0.0:8080", tokenFile: tokFile, wantAddr: "0.0.0.0:8080", wantToken: "file-token-0123456789abcdef"},
		{addr: "8080", tokenFile: tokFile, env: map[string]string{"LLMWIKI_TOKEN": "x"}, err: "use one"},
		{addr: "8080", tokenFile: short, err: "at least 16"},
		{addr: "8080", tokenFile: filepath.Join(t.TempDir(), "missing"), err: "read --token-file"},
		{addr: "8080", env: map[string]string{"LLMWIKI_TOKEN": "has space 0123456789"}, err: "spaces"},
		{addr: "nonsense:port:x", err: "--http"},
	}
	for _, c := range cases {
		cfg := httpConfig{addr: c.addr, tokenFile: c.tokenFile, maxBodyMiB: 8, sessionIdle: time.Hour}
		err := cfg.resolve(env(c.env))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.addr, err, c.err)
			}
			continue
		}
		if err != nil || cfg.addr != c.wantAddr || cfg.token != c.wantToken {
			t.Errorf("%s: got %q %q %v", c.addr, cfg.addr, cfg.token, err)
		}
	}
}
