// Package jsonrpc is what the transports (server/stdio, HTTP) share below
// mcp-go: the screen of each raw JSON-RPC message before mcp-go decodes it,
// the error replies and their audit lines, request ids as keys, and the
// registry of the ids clients cancelled.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The screen every transport applies to a raw JSON-RPC message before
// mcp-go decodes it. encoding/json turns an invalid UTF-8 byte into U+FFFD
// without a word, so a tool would store the replacement character where the
// client sent something else; such a message is refused whole instead, with
// a parse error and an audit line, and nothing is written. stdio screens
// each line (server/stdio); HTTP screens each POST body in its guard.

// JSON-RPC error codes the screens answer with.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	// CodeNotInitialized is the code LSP uses for a request before
	// initialize; MCP defines none, and -32000..-32099 are the server's.
	CodeNotInitialized = -32002
)

// MsgInvalidUTF8 is the error message of a message that is not valid UTF-8.
const MsgInvalidUTF8 = "Parse error: request is not valid UTF-8"

// ScreenEncoding checks the bytes of one JSON-RPC message (a stdio line, an
// HTTP body). It returns 0 and "" when the message may go on to mcp-go, or
// the JSON-RPC error code and message to refuse it with.
func ScreenEncoding(raw []byte) (int, string) {
	if !utf8.Valid(raw) {
		return CodeParseError, MsgInvalidUTF8
	}
	return 0, ""
}

// AuditRejected writes the audit line of a message a screen refused: tool
// is the name a tools/call names (when it reads as one), else "protocol";
// args are the method and the size in bytes, never the content; the error
// is CodeInvalid with msg. identify, when not nil, fills in who sent it
// (session, remote address) before the line is written.
func AuditRejected(st *wiki.Store, raw []byte, msg string, identify func(*store.Call)) {
	if st == nil {
		return
	}
	var probe struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal(bytes.ToValidUTF8(raw, []byte("\uFFFD")), &probe)
	tool := "protocol"
	if probe.Method == "tools/call" && probe.Params.Name != "" && utf8.ValidString(probe.Params.Name) && len(probe.Params.Name) < 64 {
		tool = probe.Params.Name
	}
	c := store.NewCall(tool, st.SessionID(), map[string]any{"method": probe.Method, "bytes": len(raw)})
	if identify != nil {
		identify(c)
	}
	st.Audit(c, store.Errorf(store.CodeInvalid, "%s", msg))
}

// RPCError encodes a JSON-RPC error response (without a newline); id nil
// encodes as null.
func RPCError(id json.RawMessage, code int, msg string) []byte {
	var v any
	if id != nil {
		v = id
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      v,
		"error":   map[string]any{"code": code, "message": msg},
	})
	return b
}

// RequestID returns the id of a raw message when it can be read and is a
// string or a number, else nil.
func RequestID(raw []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	clean := bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	if json.Unmarshal(clean, &probe) == nil && len(probe.ID) > 0 && ValidID(probe.ID) {
		return probe.ID
	}
	return nil
}

// ValidID reports a JSON-RPC id: a string or a number.
func ValidID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// CodeInvalidParams is JSON-RPC's invalid params, which MCP uses for an
// unknown prompt, resource template or resource (SEP-2164).
const CodeInvalidParams = -32602

// ScreenParams refuses, before mcp-go sees them, the requests whose params
// name something srv does not serve, which mcp-go would accept or answer
// with an internal error: completion/complete for an unknown prompt or
// resource template, resources/subscribe to a URI srv does not serve, and
// prompts/get of a prompt without a required argument or with one it does
// not have (the prompt's handler would refuse it as an internal error).
// It returns 0 and "" for every other message.
func ScreenParams(srv *server.MCPServer, raw []byte) (int, string) {
	var probe struct {
		Method string `json:"method"`
		Params struct {
			URI       string         `json:"uri"`
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
			Ref       struct {
				Type string `json:"type"`
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"ref"`
		} `json:"params"`
	}
	// A large message is decoded only when it spells one of these methods
	// plainly: a write_page body can be megabytes.
	large := len(raw) > 64<<10 && !bytes.Contains(raw, []byte("completion/complete")) && !bytes.Contains(raw, []byte("resources/subscribe")) && !bytes.Contains(raw, []byte("prompts/get"))
	if srv == nil || large || json.Unmarshal(raw, &probe) != nil {
		return 0, ""
	}
	switch probe.Method {
	case string(mcp.MethodCompletionComplete):
		switch probe.Params.Ref.Type {
		case "ref/prompt":
			if _, ok := srv.ListPrompts()[probe.Params.Ref.Name]; !ok {
				return CodeInvalidParams, "Invalid params: no prompt named " + strconv.Quote(Truncate(probe.Params.Ref.Name))
			}
		case "ref/resource":
			if u := probe.Params.Ref.URI; u != tools.PageTemplate && !tools.Serves(srv, u) {
				return CodeInvalidParams, "Invalid params: no resource or resource template " + strconv.Quote(Truncate(u))
			}
		}
	case string(mcp.MethodPromptsGet):
		if sp, ok := srv.ListPrompts()[probe.Params.Name]; ok {
			return screenPromptArgs(sp.Prompt, probe.Params.Arguments)
		}
	case string(mcp.MethodResourcesSubscribe):
		if u := probe.Params.URI; u != "" && !tools.Serves(srv, u) {
			return CodeInvalidParams, "Invalid params: this server serves no resource " + strconv.Quote(Truncate(u))
		}
	}
	return 0, ""
}

// screenPromptArgs refuses prompts/get arguments that miss a required
// argument of p (absent or blank, as prompts.Render reads them) or name one
// p does not have, in Render's words.
func screenPromptArgs(p mcp.Prompt, args map[string]any) (int, string) {
	known := map[string]bool{}
	for _, a := range p.Arguments {
		known[a.Name] = true
		v, _ := args[a.Name].(string)
		if a.Required && strings.TrimSpace(v) == "" {
			return CodeInvalidParams, fmt.Sprintf("Invalid params: the %s prompt needs the argument %q (%s)", p.Name, a.Name, a.Description)
		}
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !known[k] {
			return CodeInvalidParams, fmt.Sprintf("Invalid params: the %s prompt has no argument %q", p.Name, Truncate(k))
		}
	}
	return 0, ""
}

// ResponseID returns the id of a JSON-RPC response, reading the message's
// top-level keys only until it knows: mcp-go writes the id before the
// result, so a large result (a whole page) is not parsed a second time.
func ResponseID(msg []byte) (json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(msg))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var id json.RawMessage
	answer := false
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, false
		}
		switch k {
		case "method":
			return nil, false // a notification or a request of the server's
		case "result", "error":
			answer = true
			if id != nil {
				return id, true
			}
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		if k == "id" {
			id = v
			if answer {
				return id, true
			}
		}
	}
	return id, answer && id != nil
}

// IDKey is a JSON-RPC id as a map key: strings and numbers kept apart,
// numbers by value (1 and 1.0 are one id); "" for no id or null.
func IDKey(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if len(raw) == 0 || d.Decode(&v) != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return "s:" + v
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
		}
		return "n:" + v.String()
	}
	return ""
}

// Truncate cuts s to 200 bytes for an audit argument.
func Truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
