package stdio

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/server/jsonrpc"
)

// FuzzScreenLines feeds arbitrary bytes to the stdio line screen (what an
// MCP client writes to the server's stdin). Every line is forwarded
// byte-for-byte, skipped (blank) or answered; only well-formed single JSON
// objects in valid UTF-8 are forwarded, in order; every answer is one line
// of valid UTF-8 JSON-RPC with an error code and a string or number id
// (or null). A request is taken as cancelled before it is passed on only
// when a cancel naming it follows.
func FuzzScreenLines(f *testing.F) {
	for _, s := range []string{
		"",
		"\n\n  \r\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n", // before initialize
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`,            // no newline at the end
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r\n",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_page\",\"arguments\":{\"page\":\"\xff\xfe\"}}}\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
		`{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"` + "\n",
		"not json\n\"a string\"\n42\nnull\n",
		`{"id":[1],"method":"initialize"}` + "\n" + `{"id":null,"method":"x"}` + "\n",
		"\xef\xbb\xbf{\"id\":1,\"method\":\"initialize\"}\n", // a BOM
		"{\"id\":1,\"method\":\"initialize\"}\x00\n",
		"\xed\xa0\x80\n", // a surrogate half, invalid UTF-8
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n" + `{"jsonrpc":"2.0","id":7,"method":"tools/call"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fwd, answers bytes.Buffer
		var codes []int
		pending, cancelled := newInFlight(), jsonrpc.NewCancelledIDs()
		err := screenLines(bytes.NewReader(data), &fwd, func(line []byte, code int, msg string) {
			codes = append(codes, code)
			writeError(&answers, line, code, msg)
			jsonrpc.AuditRejected(nil, line, msg, nil)
		}, func(l []byte) bool { pending.sent(l); return true }, func(l, next []byte) { cancelAhead(cancelled, l, next) })
		if err != nil {
			t.Fatalf("screenLines: %v", err)
		}
		// A request is taken as cancelled only when a cancel follows it.
		if n := cancelled.Len(); n > 0 && !bytes.Contains(data, []byte("notifications/cancelled")) {
			t.Fatalf("%d ids taken as cancelled with no cancel in the input", n)
		}
		// Replay the lines: each good one was forwarded as it was.
		rest := fwd.Bytes()
		var sc screen
		rejected := 0
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			code, _ := sc.check(line)
			switch code {
			case 0:
				if !bytes.HasPrefix(rest, line) {
					t.Fatalf("line %q was not forwarded as it was (forwarded now: %q)", line, rest[:min(len(rest), 80)])
				}
				rest = rest[len(line):]
				tl := bytes.TrimSpace(line)
				if !utf8.Valid(line) || !json.Valid(tl) || tl[0] != '{' {
					t.Fatalf("forwarded a line that is not one JSON object in UTF-8: %q", line)
				}
			case -1:
				if len(bytes.TrimSpace(line)) != 0 {
					t.Fatalf("skipped a line that is not blank: %q", line)
				}
			default:
				rejected++
			}
		}
		if len(rest) != 0 {
			t.Fatalf("forwarded bytes that were not a line of the input: %q", rest)
		}
		if rejected != len(codes) {
			t.Fatalf("%d lines should have been answered, %d were", rejected, len(codes))
		}
		// Every answer is one line of JSON-RPC.
		lines := bytes.Split(bytes.TrimSuffix(answers.Bytes(), []byte("\n")), []byte("\n"))
		if answers.Len() == 0 {
			lines = nil
		}
		if len(lines) != len(codes) {
			t.Fatalf("%d answers for %d rejected lines: %q", len(lines), len(codes), answers.String())
		}
		for i, a := range lines {
			if !utf8.Valid(a) {
				t.Fatalf("answer is not UTF-8: %q", a)
			}
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(a, &resp); err != nil {
				t.Fatalf("answer %q is not JSON: %v", a, err)
			}
			if resp.JSONRPC != "2.0" || resp.Error.Code != codes[i] || resp.Error.Message == "" {
				t.Fatalf("answer %q (want code %d)", a, codes[i])
			}
			if id := string(resp.ID); id != "null" && !jsonrpc.ValidID(resp.ID) {
				t.Fatalf("answer carries the id %s, which is not a string or number", id)
			}
		}
	})
}
