package redact

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/llmwiki/llmwiki/internal/redact/redacttest"
)

var update = flag.Bool("update", false, "refresh gitleaks.toml and LICENSE.gitleaks from the gitleaks module")

// TestRulesCatchTranscriptSecrets: every kind of secret a session holds is
// replaced by its rule's marker, the text around it stays, and the counts
// name the rule. The cases marked extra slip through gitleaks' rules alone:
// they are why extra.toml exists.
func TestRulesCatchTranscriptSecrets(t *testing.T) {
	gitleaksOnly, err := New(gitleaksRules)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, before, secret, after, rule string
		extra                             bool
	}{
		{"openai key in an export", "export OPENAI_API_KEY=", FakeOpenAI, " && npm test", "openai-api-key", false},
		{"anthropic key in prose", "my key is ", FakeAnthropic, " (the staging one)", "anthropic-api-key", false},
		{"aws access key id", "aws_access_key_id = ", FakeAWSKeyID, "\nregion = eu-west-1", "aws-access-token", false},
		{"aws secret key", "AWS_SECRET_ACCESS_KEY=", FakeAWSSecret, " aws s3 ls", "secret-assignment", true},
		{"github classic token", "git remote set-url origin https://x:", FakeGitHubPAT, "@github.com/shop/api.git", "github-pat", false},
		{"github fine-grained token", "GH_AUTH=", FakeGitHubFine, " gh pr list", "github-fine-grained-pat", false},
		{"slack bot token", "the bot posts with ", FakeSlackBot, " into #deploys", "slack-bot-token", false},
		{"stripe live key", "Stripe::api_key = '", FakeStripe, "' # prod", "stripe-access-token", false},
		{"google api key", "GOOGLE_MAPS_KEY: ", FakeGoogle, "\nzoom: 12", "gcp-api-key", false},
		{"google api key in a url", "https://maps.googleapis.com/maps/api/geocode/json?key=", FakeGoogle, "&address=Berlin", "url-query-secret", true},
		{"pem private key", "the deploy key:\n", FakePEM, "\nends here", "private-key", false},
		{"pem private key cut short", "key (truncated):\n", FakePEM[:strings.LastIndex(FakePEM, "\n")], "\n[output cut at 4 lines]", "private-key-body", true},
		{"jwt", "session cookie ", FakeJWT, " expired", "jwt", false},
		{"bearer header in curl", `curl -H "Authorization: Bearer `, FakeBearer, `" https://api.shop.test/orders`, "curl-auth-header", false},
		{"bearer header in a request dump", "GET /v1/orders HTTP/1.1\nAuthorization: Bearer ", FakeBearer, "\nAccept: */*", "authorization-header", true},
		{"bearer header in code", `headers = {"Authorization": "Bearer `, FakeBearer, `"}`, "authorization-header", true},
		{"password in a postgres url", "DATABASE_URL is postgres://shop:", FakeDBPassword, "@db.internal:5432/shop?sslmode=require", "url-password", true},
		{"password assignment", "PASSWORD=", FakePassword, " ./migrate up", "secret-assignment", true},
		{"quoted password assignment", `db_password = "`, FakeDBPassword, `"`, "secret-assignment", true},
		{"token assignment", "DB_TOKEN=", FakeDBToken, "\nDB_HOST=localhost", "secret-assignment", true},
	}
	r, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.before + c.secret + c.after
			out, counts, err := r.Redact(in)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.before + Marker(c.rule) + c.after; out != want {
				t.Errorf("redacted\n%q\nwant\n%q", out, want)
			}
			if len(counts) != 1 || counts[c.rule] != 1 {
				t.Errorf("counts %v, want %s 1", counts, c.rule)
			}
			_, gc, _ := gitleaksOnly.Redact(in)
			if c.extra && gc.Total() != 0 {
				t.Errorf("gitleaks' rules catch this (%v): drop the extra rule or the mark", gc)
			}
			if !c.extra && gc[c.rule] != 1 {
				t.Errorf("gitleaks' rules alone: %v", gc)
			}
		})
	}
}

// TestRedactLeavesTheRest: what only looks like a secret stays.
func TestRedactLeavesTheRest(t *testing.T) {
	r, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"set max_tokens=4096 and temperature=0.2",
		"export GITHUB_TOKEN=$GITHUB_TOKEN",
		`password=${DB_PASSWORD}`,
		`API_KEY="$(pass show shop/api)"`,
		"The token expired at midnight; the password policy wants 12 characters.",
		"see https://docs.shop.test:8443/guide and git@github.com:shop/api.git",
		"psql postgres://user:password@localhost/db or mysql://root:****@db",
		"Authorization: Bearer $TOKEN",
		`token := os.Getenv("SHOP_TOKEN")`,
		"const apiKey = process.env.SHOP_API_KEY;",
		"password = request.form['password']",
		"export VAULT_TOKEN=$(vault print token)",
		"secret = config.secret",
		"already " + Marker("jwt") + " and PASSWORD=" + Marker("secret-assignment"),
		"",
	} {
		out, counts, err := r.Redact(s)
		if err != nil || out != s || counts.Total() != 0 {
			t.Errorf("%q -> %q %v %v", s, out, counts, err)
		}
	}
}

// TestRedactOverlaps: two rules matching one value make one redaction,
// named after the specific rule; values next to each other stay apart.
func TestRedactOverlaps(t *testing.T) {
	r, _ := Default()
	out, counts, err := r.Redact("OPENAI_API_KEY=" + FakeOpenAI + "\nSTRIPE_SECRET=" + FakeStripe + " " + FakeGitHubPAT)
	if err != nil {
		t.Fatal(err)
	}
	want := "OPENAI_API_KEY=" + Marker("openai-api-key") + "\nSTRIPE_SECRET=" + Marker("stripe-access-token") + " " + Marker("github-pat")
	if out != want || counts.Total() != 3 {
		t.Errorf("%q %v", out, counts)
	}
	if got := counts.String(); got != "github-pat 1, openai-api-key 1, stripe-access-token 1" {
		t.Errorf("String() = %q", got)
	}
}

// TestRulesAreGitleaks: gitleaks.toml and LICENSE.gitleaks are the files of
// the gitleaks module at GitleaksVersion (go generate refreshes them).
func TestRulesAreGitleaks(t *testing.T) {
	cmd := exec.Command("go", "mod", "download", "-json", "github.com/zricethezav/gitleaks/v8@"+GitleaksVersion)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if err != nil || json.Unmarshal(out, &mod) != nil || mod.Dir == "" {
		if os.Getenv("CI") == "true" { // CI reaches the module proxy: a stale copy must not pass unchecked
			t.Fatalf("the gitleaks module %s cannot be downloaded (%v %s)", GitleaksVersion, err, mod.Error)
		}
		t.Skipf("the gitleaks module %s is not in the module cache and cannot be downloaded (%v %s): the embedded rules are not checked", GitleaksVersion, err, mod.Error)
	}
	for file, ours := range map[string]string{"config/gitleaks.toml": "gitleaks.toml", "LICENSE": "LICENSE.gitleaks"} {
		want, err := os.ReadFile(filepath.Join(mod.Dir, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(ours, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(ours)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s differs from %s of gitleaks %s (%v): run go generate ./internal/redact", ours, file, GitleaksVersion, err)
		}
	}
	// The whole list parses, every expression compiles.
	r, err := New(gitleaksRules, extraRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, ru := range r.rules {
		if _, err := ru.re(); err != nil {
			t.Errorf("rule %s: %v", ru.id, err)
		}
	}
	if len(r.rules) < 200 || len(r.global) == 0 {
		t.Errorf("%d rules, %d global allowlists", len(r.rules), len(r.global))
	}
}

func TestNewRejectsBadLists(t *testing.T) {
	for _, src := range []string{
		"[[rules]]\nid = \"x\"\nregex = '''a'''\nsurprise = 1\n",
		"[[rules]]\nregex = '''a'''\n",
		"[[rules]]\nid = \"x\"\nregex = '''a'''\n[[rules]]\nid = \"x\"\nregex = '''b'''\n",
		"[[rules]]\nid = \"x\"\nregex = '''a'''\n[[rules.allowlists]]\ncondition = \"XOR\"\nregexes = ['''a''']\n",
		"[[allowlists]]\ntargetRules = [\"nope\"]\nregexes = ['''a''']\n",
		"not toml",
	} {
		if _, err := New(src); err == nil {
			t.Errorf("accepted %q", src)
		}
	}
	// A bad expression fails the redaction, never returns the text.
	r, err := New("[[rules]]\nid = \"x\"\nregex = '''(a'''\n")
	if err != nil {
		t.Fatal(err)
	}
	if out, _, err := r.Redact("a secret"); err == nil || out != "" {
		t.Errorf("bad rule: %q %v", out, err)
	}
}

// FuzzRedact: any text redacts without panic, every count is one marker,
// and text without findings comes back unchanged.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"PASSWORD=hunter2-FAKE", "curl -H 'Authorization: Bearer " + FakeBearer + "'", FakePEM, "postgres://a:b@c", "x\n\n" + FakeJWT + "\n", "[REDACTED:x]"} {
		f.Add(s)
	}
	r, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, counts, err := r.Redact(s)
		if err != nil {
			t.Fatal(err)
		}
		if added := strings.Count(out, "[REDACTED:") - strings.Count(s, "[REDACTED:"); added != counts.Total() {
			t.Errorf("%d markers added, counts %v", added, counts)
		}
		if counts.Total() == 0 && out != s {
			t.Errorf("changed without a finding: %q -> %q", s, out)
		}
	})
}
