package main

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileMCPTokenIsNotAPersonsLogin: under serve --http with a token,
// the MCP client (the agent) holds the bearer token. If the review page's
// login takes that same token, the agent logs in and approves its own
// change sets, which mode before exists to prevent. Open finding: the
// design has the web login take the MCP token; set
// LLMWIKI_HOSTILE_OPEN=1 to run it (it fails until the two credentials
// are separate).
func TestHostileMCPTokenIsNotAPersonsLogin(t *testing.T) {
	if os.Getenv("LLMWIKI_HOSTILE_OPEN") == "" {
		t.Skip("open finding (the web login takes the MCP bearer token); LLMWIKI_HOSTILE_OPEN=1 runs it")
	}
	root := filepath.Join(t.TempDir(), "w")
	initWiki(t, root)
	tok := filepath.Join(t.TempDir(), "tok")
	const secret = "agent-held-bearer-token"
	if err := os.WriteFile(tok, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startHTTP(t, root, nil, "--token-file", tok)
	defer p.stop(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(p.base+"/login", url.Values{"token": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if strings.HasPrefix(ck.Name, "llmwiki_session") && ck.Value != "" {
			t.Fatalf("POST /login with the MCP bearer token = %d and a session cookie: whoever holds the agent's credential can approve on the review page", resp.StatusCode)
		}
	}
}
