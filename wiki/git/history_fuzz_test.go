package git

import (
	"strings"
	"testing"
)

// fuzzNonce is the nonce of the fuzzed log output.
const fuzzNonce = "0123456789abcdef01234567"

// logRecord is one commit of [Repo.follow]'s output, as git prints it.
func logRecord(hash, date, author, subject, client, tool, diff string) string {
	return "\x00" + startMarker(fuzzNonce) + "\x00" + hash + "\x00" + date + "\x00" + author + "\x00" + subject + "\x00" +
		client + "\x00" + tool + "\x00" + endMarker(fuzzNonce) + "\x00\x00\n" + diff
}

// FuzzParseLog: the parse of `git log --follow -z --raw --numstat` output
// (authors, subjects and trailers are anyone's text, and so are paths)
// never panics, keeps only records with a real hash, and lets no control
// character into a field a model reads.
func FuzzParseLog(f *testing.F) {
	h := strings.Repeat("a", 40)
	f.Add(logRecord(h, "2026-05-01T10:00:00+00:00", "Ada Lovelace (claude-code)", "create | Raft", "claude-code 1.2.0", "write_page",
		":000000 100644 0000000000000000000000000000000000000000 "+strings.Repeat("b", 40)+" A\x00pages/raft.md\x002\t0\tpages/raft.md\x00"))
	f.Add(logRecord(h, "2026-05-01T10:00:00Z", "Ada", "move", "", "",
		":100644 100644 "+strings.Repeat("b", 40)+" "+strings.Repeat("b", 40)+" R100\x00pages/a.md\x00pages/b.md\x000\t0\t\x00pages/a.md\x00pages/b.md\x00") +
		logRecord(strings.Repeat("c", 64), "2026-04-01T10:00:00-02:00", "x", "bin", "", "", "-\t-\tpages/a.md\x00"))
	f.Add(logRecord(h, "bad date", "x", "y", "", "", ""))
	f.Add(logRecord(h, "2026-05-01T10:00:00Z", "x\x00y", "s\x00t", "", "", ":1 2 3\x00"))
	f.Add("")
	f.Fuzz(func(t *testing.T, out string) {
		for _, v := range parseLog([]byte(out), fuzzNonce, "pages/x.md") {
			if !hashRe().MatchString(v.full) || !strings.HasPrefix(v.full, v.Commit) {
				t.Fatalf("version with hash %q commit %q", v.full, v.Commit)
			}
			for _, s := range []string{v.Author, v.Client, v.Tool, v.Message} {
				if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
					t.Fatalf("control character in %q", s)
				}
			}
			if v.Added < 0 || v.Removed < 0 {
				t.Fatalf("negative line counts %d %d", v.Added, v.Removed)
			}
		}
		parseBatch([]byte(out))
	})
}
