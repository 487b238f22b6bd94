package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHostileMCPTokenIsNotAPersonsLogin: under serve --http with a token,
// the MCP client (the agent) holds the bearer token, so the review page's
// login must not take it, or the agent would approve its own change sets.
// The page takes the person's review token instead: a one-time code
// printed where the server was started, or --review-token-file; a review
// token equal to the bearer token is refused at start.
func TestHostileMCPTokenIsNotAPersonsLogin(t *testing.T) {
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
	login := func(token string) (int, bool) {
		t.Helper()
		resp, err := c.PostForm(p.base+"/login", url.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for _, ck := range resp.Cookies() {
			if ck.Name == "llmwiki_session" && ck.Value != "" {
				return resp.StatusCode, true
			}
		}
		return resp.StatusCode, false
	}
	if code, ok := login(secret); ok {
		t.Fatalf("POST /login with the MCP bearer token = %d and a session cookie: whoever holds the agent's credential can approve on the review page", code)
	}
	m := p.waitLog(regexp.MustCompile(`log in with the one-time code (\S+) `))
	if m == nil {
		t.Fatalf("serve printed no one-time code for the review page:\n%s", p.log())
	}
	if code, ok := login(m[1]); !ok {
		t.Errorf("POST /login with the printed one-time code = %d and no session cookie", code)
	}

	// A review token equal to the bearer token is refused at start.
	same := filepath.Join(t.TempDir(), "same")
	if err := os.WriteFile(same, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	err := run(t.Context(), []string{"serve", "--root", root, "--http", "127.0.0.1:0", "--token-file", tok, "--review-token-file", same}, strings.NewReader(""), io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "the review token is the bearer token") {
		t.Errorf("serve with the review token equal to the bearer token: %v", err)
	}
}
