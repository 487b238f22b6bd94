package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/internal/schemacheck"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Deps is what tool handlers need.
type Deps struct {
	Store *wiki.Store
	// Log receives internal errors (with details never shown to a model).
	Log *slog.Logger
	// Model is the OpenAI-compatible endpoint propose_plan asks (nil: the
	// tool says none is configured).
	Model *model.Client
	// Search is the wiki's search index, kept in step with every write
	// (registered with Store.AddDerived). nil: search_wiki says so.
	Search *search.Index
	// Links is the wiki's link graph (backlinks, link checks, move_page's
	// rewrites), registered with Store.AddDerived. Required with a Store.
	Links *links.Graph
	// Review holds change sets and the review queue (nil: review mode is
	// treated as off, and propose_changes says review is not available).
	Review *review.Service
	// Git is the wiki's git repository under git: commit or sync (nil:
	// git is off or unavailable; page_history then reads snapshots).
	Git *git.Repo
	// GitError says why schema.md's git mode is not in force (the
	// repository could not be opened); load_project shows it.
	GitError string

	// reflectSchemas makes [newTool] generate every schema from the Go
	// types, ignoring schemas_gen.go (the test that keeps that file fresh).
	reflectSchemas bool
}

func (d Deps) logger() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.Default()
}

// Tool is one MCP tool and its handler, with the toolset it belongs to.
type Tool struct {
	Tool    mcp.Tool
	Handler server.ToolHandlerFunc
	// Toolset groups tools for --toolsets (see [Toolsets]).
	Toolset string

	types uint64 // fingerprint of the input and output Go types (schemas.go)
	// run decodes raw arguments as the handler does and runs the tool's
	// function, with no audit line of its own ([RunWrite]).
	run func(ctx context.Context, raw any) (any, error)
}

// ReadOnly reports whether the tool carries the read-only annotation.
func (t Tool) ReadOnly() bool {
	return t.Tool.Annotations.ReadOnlyHint != nil && *t.Tool.Annotations.ReadOnlyHint
}

// Notes is embedded in every tool output: warnings are things that went
// wrong without failing the call (a derived index marked stale).
type Notes struct {
	Warnings []string `json:"warnings,omitempty" jsonschema:"problems that did not fail the call, such as derived state marked stale"`
}

func (n *Notes) setWarnings(w []string) { n.Warnings = w }

type warner interface{ setWarnings([]string) }

// hints are the four MCP tool annotation hints, always set explicitly
// (mcp-go's defaults would claim destructive and open-world).
type hints struct {
	readOnly, destructive, idempotent, openWorld bool
}

// readOnlyHints marks a tool that reads the wiki and writes only its audit line.
var readOnlyHints = hints{readOnly: true, idempotent: true}

func (h hints) options(title string) []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithTitleAnnotation(title),
		mcp.WithReadOnlyHintAnnotation(h.readOnly),
		mcp.WithDestructiveHintAnnotation(h.destructive),
		mcp.WithIdempotentHintAnnotation(h.idempotent),
		mcp.WithOpenWorldHintAnnotation(h.openWorld),
	}
}

// toolSpec names a tool and describes it to a model: what [newTool] needs
// besides the handler.
type toolSpec struct {
	Name        string // verb_noun, unique in the catalogue
	Toolset     string // the --toolsets group (see [Toolsets])
	Title       string // the title annotation, for people
	Description string // what the tool does and when to use it, for the model
	Hints       hints  // all four annotation hints, set explicitly
}

// newTool builds a tool with typed input In and output Out from spec, and a
// handler running fn through [typed].
func newTool[In, Out any](d Deps, spec toolSpec, fn func(context.Context, In) (Out, error)) Tool {
	types := typesFingerprint[In, Out]()
	opts := append([]mcp.ToolOption{mcp.WithDescription(spec.Description)}, schemaOptions[In, Out](d, spec.Name, types)...)
	opts = append(opts, spec.Hints.options(spec.Title)...)
	t := mcp.NewTool(spec.Name, opts...)
	run := decodeRun(t, fn)
	anyRun := func(ctx context.Context, raw any) (any, error) {
		out, err := run(ctx, raw)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return Tool{Tool: t, Handler: typed(d, t, run), Toolset: spec.Toolset, types: types, run: anyRun}
}

// decodeRun is fn behind the strict decoding of its raw arguments against
// the tool's own input schema ([decodeArgs]).
func decodeRun[In, Out any](t mcp.Tool, fn func(context.Context, In) (Out, error)) func(context.Context, any) (Out, error) {
	// Compiled on first call: start-up cost matters to editors that spawn
	// the server for every session.
	validate := sync.OnceValue(func() func(any) error { return schemaValidator(t) })
	renamed := sync.OnceValue(func() map[string]string { return renamesFor(t) })
	return func(ctx context.Context, raw any) (Out, error) {
		var in In
		if err := decodeArgs(raw, &in, validate(), renamed()); err != nil {
			var zero Out
			return zero, err
		}
		return fn(ctx, in)
	}
}

// typed wraps fn as an MCP handler: strict argument decoding and validation
// against the tool's own input schema (unknown arguments, wrong types and
// missing required fields are refused by name), a [store.Call] in the context,
// one audit line, and errors mapped by [toolError].
func typed[Out any](d Deps, t mcp.Tool, run func(context.Context, any) (Out, error)) server.ToolHandlerFunc {
	readOnly := Tool{Tool: t}.ReadOnly()
	reviewable := reviewableTools[t.Name]
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.GetRawArguments()
		call := store.NewCall(t.Name, sessionID(ctx, d.Store), raw)
		fillClient(ctx, call)
		ctx = store.WithCall(ctx, call)
		ctx, finishProgress := withProgress(ctx, req)
		var err error
		if !readOnly {
			// A write tool on a read-only wiki is refused before it does
			// anything, whatever its arguments (serve --read-only does not
			// register it at all).
			err = d.Store.CheckWritable()
		}
		var out Out
		if err == nil {
			// A read-only tool never reaches review: it pays no settings read.
			mode := wiki.ReviewOff
			if !readOnly {
				mode = d.reviewMode()
			}
			held := false
			if reviewable && mode == wiki.ReviewBefore {
				held, err = writesReviewed(ctx, run, raw)
			}
			if held {
				out, err = proposeCall[Out](ctx, d, t.Name, raw)
			} else if err == nil {
				out, err = run(ctx, raw)
				if err == nil && mode == wiki.ReviewAfter {
					markForReview(call)
				}
			}
		}
		if err != nil && ctx.Err() != nil {
			err = cancelledError(err)
		}
		progressSent := finishProgress()
		if aerr := d.Store.Audit(call, err); aerr != nil {
			d.logger().Error("audit line not written", "tool", t.Name, "err", aerr)
		}
		logCall(ctx, call, readOnly)
		if progressSent {
			settle(ctx)
		}
		if err != nil {
			return toolError(d, t.Name, err), nil
		}
		if w, ok := any(&out).(warner); ok {
			if ws := call.WarningsSnapshot(); len(ws) > 0 {
				w.setWarnings(ws)
			}
		}
		out = nullFree(out)
		text, merr := json.Marshal(out)
		if merr != nil {
			return toolError(d, t.Name, merr), nil
		}
		return mcp.NewToolResultStructured(out, string(text)), nil
	}
}

// cancelledError classes err, the failure of a call whose context ended
// (the client cancelled it, or the server is shutting down), as
// CodeCancelled, keeping its public message (which says what was left
// undone): the wiki codes its own cancellations so already; an I/O error
// caused by the ending context is reclassed here.
func cancelledError(err error) error {
	if store.CodeOf(err) == store.CodeCancelled {
		return err
	}
	msg := store.PublicMessage(err)
	if store.CodeOf(err) == store.CodeInternal {
		msg = "cancelled; nothing was changed"
	}
	return &store.Error{Code: store.CodeCancelled, Msg: msg, Err: err}
}

// errCancelledBeforeStart refuses a request cancelled before it started
// (see [Options.Cancelled]); the transport drops the answer.
var errCancelledBeforeStart = errors.New("request cancelled by the client before it started")

// auditCancelledCall writes the audit line of a tools/call (raw, the
// JSON-RPC message) cancelled before its handler ran. Other requests write
// no audit line, as when they run.
func auditCancelledCall(ctx context.Context, d Deps, message any) {
	raw, ok := message.(json.RawMessage)
	if !ok || d.Store == nil {
		return
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments any    `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method != string(mcp.MethodToolsCall) || m.Params.Name == "" {
		return
	}
	call := store.NewCall(m.Params.Name, sessionID(ctx, d.Store), m.Params.Arguments)
	fillClient(ctx, call)
	err := store.Errorf(store.CodeCancelled, "cancelled by the client before it started; nothing was changed")
	if aerr := d.Store.Audit(call, err); aerr != nil {
		d.logger().Error("audit line not written", "tool", m.Params.Name, "err", aerr)
	}
}

// toolError maps a store error to a tool result the model can act on: the
// code and the public message, never a host path or a stack trace. Internal
// causes are logged to stderr.
func toolError(d Deps, tool string, err error) *mcp.CallToolResult {
	code := store.CodeOf(err)
	msg := store.PublicMessage(err)
	if code == store.CodeInternal {
		d.logger().Error("tool failed", "tool", tool, "err", err)
		msg += "; nothing was changed. The server log has details"
	}
	return mcp.NewToolResultError(fmt.Sprintf("%s: %s", code, msg))
}

func sessionID(ctx context.Context, st *wiki.Store) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		if id := s.SessionID(); id != "" && id != "stdio" {
			return id
		}
	}
	return st.SessionID()
}

type remoteKey struct{}

// WithRemoteAddr records the peer address of an HTTP session in ctx, for the
// audit line.
func WithRemoteAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, remoteKey{}, addr)
}

func fillClient(ctx context.Context, c *store.Call) {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		ci := s.GetClientInfo()
		if ci.Name != "" {
			c.Client = strings.TrimSpace(ci.Name + " " + ci.Version)
		}
	}
	if a, ok := ctx.Value(remoteKey{}).(string); ok {
		c.Remote = a
	}
}

// decodeArgs refuses the renamed argument names, checks raw against the
// tool's input schema, then decodes it
// strictly into v.
func decodeArgs(raw any, v any, validate func(any) error, renamed map[string]string) error {
	if raw == nil {
		raw = map[string]any{}
	}
	if err := checkUTF8("", raw); err != nil {
		return err
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return store.Errorf(store.CodeInvalid, "arguments are not a JSON object")
	}
	if string(b) == "null" {
		b = []byte("{}")
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return store.Errorf(store.CodeInvalid, "arguments are not a JSON object")
	}
	args, ok := generic.(map[string]any)
	if !ok {
		return store.Errorf(store.CodeInvalid, "arguments must be a JSON object")
	}
	// An argument given as null is one not given (decoding leaves its field
	// unset either way); the schemas type optional arguments without null.
	for k, a := range args {
		if a == nil {
			delete(args, k)
		}
	}
	if err := checkRenamed(args, renamed); err != nil {
		return err
	}
	if validate != nil {
		if err := validate(generic); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "json: ")
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Never Go's own words ("into Go struct field SearchWikiInput…").
			msg = fmt.Sprintf("argument %s: a JSON %s does not fit; it must be %s", te.Field, te.Value, jsonKind(te.Type))
		}
		if strings.HasPrefix(msg, "unknown field") {
			// Quoted as checkRenamed quotes: 'name'.
			msg = "unknown argument '" + strings.Trim(strings.TrimPrefix(msg, "unknown field "), `"`) + "'; check the tool's input schema"
		}
		return store.Errorf(store.CodeInvalid, "invalid arguments: %s", msg)
	}
	return nil
}

// renamedArgs are, per tool, the argument names the wire vocabulary
// (docs/design.md) replaced, each with its new name. A call that still uses
// one is refused as invalid with the new name, so a model or client written
// against the old names can correct itself; an argument is never silently
// dropped or mapped. A key names a field inside array items as
// "items[].field".
var renamedArgs = map[string]map[string]string{
	"write_page":           {"body": "content"},
	"read_page":            {"slug": "page"},
	"move_page":            {"from": "page", "to": "slug"},
	"list_pages":           {"offset": "cursor"},
	"lint_findings":        {"offset": "cursor"},
	"search_wiki":          {"offset": "cursor"},
	"submit_lint_findings": {"findings[].file": "path", "findings[].evidence[].file": "path"},
	"propose_plan":         {"source": "path"},
}

// bannedArgs are the names the wire vocabulary (docs/design.md) never uses
// for an argument, each with the names that replace it, best first. A call to
// any tool that passes one is refused naming the first replacement the tool's
// input schema has; [renamedArgs] adds what only one tool once called
// otherwise.
var bannedArgs = map[string][]string{
	"body":        {"content"},
	"text":        {"content"},
	"file":        {"path", "page"},
	"offset":      {"cursor"},
	"next_offset": {"cursor"},
	"from":        {"page", "path"},
	"to":          {"slug", "path"},
	"source":      {"path"},
	"slug":        {"page"},
}

// renamesFor is the table of old argument names checkRenamed refuses for t:
// [renamedArgs] of t, and every name of [bannedArgs] that is not an argument
// of t, when t has one of its replacements.
func renamesFor(t mcp.Tool) map[string]string {
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(t.RawInputSchema, &schema)
	out := map[string]string{}
	for old, news := range bannedArgs {
		if _, ok := schema.Properties[old]; ok {
			continue
		}
		for _, name := range news {
			if _, ok := schema.Properties[name]; ok {
				out[old] = name
				break
			}
		}
	}
	for old, name := range renamedArgs[t.Name] {
		out[old] = name
	}
	return out
}

// checkRenamed refuses args when they use a name of renamed (see
// [renamedArgs]), naming the argument's new name.
func checkRenamed(args map[string]any, renamed map[string]string) error {
	var msgs []string
	for old, name := range renamed {
		for _, at := range findArg(args, strings.Split(old, "."), "") {
			field := old[strings.LastIndex(old, ".")+1:]
			if at == "" {
				msgs = append(msgs, fmt.Sprintf("unknown argument '%s'; use '%s'", field, name))
			} else {
				msgs = append(msgs, fmt.Sprintf("argument %s: unknown field '%s'; use '%s'", at, field, name))
			}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	sort.Strings(msgs)
	if len(msgs) > 5 {
		msgs = msgs[:5]
	}
	return store.Errorf(store.CodeInvalid, "invalid arguments: %s", strings.Join(msgs, "; "))
}

// findArg returns where the field path (segments like "findings[]" and
// "file") occurs in v, as the location of the object holding the last
// segment ("" for the arguments themselves, "findings[2].evidence[0]").
func findArg(v any, path []string, at string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	seg := path[0]
	if len(path) == 1 {
		if _, ok := m[seg]; ok {
			return []string{at}
		}
		return nil
	}
	name, isList := strings.CutSuffix(seg, "[]")
	child := name
	if at != "" {
		child = at + "." + name
	}
	if !isList {
		return findArg(m[name], path[1:], child)
	}
	items, _ := m[name].([]any)
	var found []string
	for i, item := range items {
		found = append(found, findArg(item, path[1:], fmt.Sprintf("%s[%d]", child, i))...)
	}
	return found
}

// jsonKind names the JSON value a Go type takes, for decode errors.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a whole number from -9223372036854775808 to 9223372036854775807"
	case reflect.Int32:
		return "a whole number from -2147483648 to 2147483647"
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "a whole number from 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another type (see the tool's input schema)"
}

func checkUTF8(at string, v any) error {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return store.Errorf(store.CodeInvalid, "argument %s is not valid UTF-8 text", strings.TrimPrefix(at, "."))
		}
	case map[string]any:
		for k, v := range x {
			if !utf8.ValidString(k) {
				return store.Errorf(store.CodeInvalid, "an argument name is not valid UTF-8")
			}
			if err := checkUTF8(at+"."+k, v); err != nil {
				return err
			}
		}
	case []any:
		for i, v := range x {
			if err := checkUTF8(fmt.Sprintf("%s[%d]", at, i), v); err != nil {
				return err
			}
		}
	case []string:
		for i, v := range x {
			if err := checkUTF8(fmt.Sprintf("%s[%d]", at, i), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// plural is "what 'a'" or "whats 'a', 'b'".
func plural(what string, names []string) string {
	if len(names) > 1 {
		what += "s"
	}
	return what + " '" + strings.Join(names, "', '") + "'"
}

var schemaCache sync.Map // tool name+schema -> *jsonschema.Schema

// schemaValidator compiles the tool's input schema (santhosh-tekuri/jsonschema)
// into a function that reports the first problems in words a model can use.
func schemaValidator(t mcp.Tool) func(any) error {
	raw := t.RawInputSchema
	if len(raw) == 0 {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil
		}
		raw = b
	}
	key := t.Name + "\x00" + string(raw)
	if v, ok := schemaCache.Load(key); ok {
		return validatorFunc(v.(*jsonschema.Schema))
	}
	sch, err := schemacheck.Compile("mem://tools/"+t.Name+".json", raw)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	schemaCache.Store(key, sch)
	return validatorFunc(sch)
}

func validatorFunc(sch *jsonschema.Schema) func(any) error {
	return func(v any) error {
		err := sch.Validate(v)
		if err == nil {
			return nil
		}
		vs, ok := schemacheck.Violations(err)
		if !ok {
			return store.Errorf(store.CodeInvalid, "invalid arguments")
		}
		var msgs []string
		for _, v := range vs {
			at := schemacheck.Path(v.Instance)
			var m string
			switch {
			case len(v.Unknown) > 0 && at == "":
				m = plural("unknown argument", v.Unknown) + "; check the tool's input schema"
			case len(v.Unknown) > 0:
				m = "argument " + at + ": " + plural("unknown field", v.Unknown) + "; check the tool's input schema"
			case len(v.Missing) > 0 && at == "":
				m = plural("missing required argument", v.Missing)
			case len(v.Missing) > 0:
				m = "argument " + at + ": " + plural("missing required field", v.Missing)
			case at != "":
				m = "argument " + at + ": " + v.Message
			default:
				m = v.Message
			}
			msgs = append(msgs, m)
		}
		sort.Strings(msgs)
		if len(msgs) > 5 {
			msgs = msgs[:5]
		}
		return store.Errorf(store.CodeInvalid, "invalid arguments: %s", strings.Join(msgs, "; "))
	}
}
