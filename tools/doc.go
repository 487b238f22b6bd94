// Package tools adapts the wiki store to MCP: one file per tool, each a
// constructor returning the tool (name, description, typed input and output
// schemas, all four annotation hints) and its handler. Handlers are thin:
// they decode the arguments strictly, call one or two [wiki.Store] methods,
// and map errors with [toolError]. Every call, good or bad, leaves exactly
// one audit line.
//
// [Catalogue] lists every tool; [Register] puts a selection on a server. The
// schema of each tool is snapshotted in testdata/tools/ and its tools/list
// answer per mode in testdata/tools-list/; go generate ./tools refreshes them
// and schemas_gen.go.
package tools

// schemas_gen.go first: the tools/list goldens are served from it, so they
// are written by a second test binary built with the new file.
//go:generate go test -run TestToolSchemasGoldenGenerated -update .
//go:generate go test -run TestToolSchemasGolden -update .
