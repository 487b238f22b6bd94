// Package tools adapts the wiki store to MCP: one file per tool, each a
// constructor returning the tool (name, description, typed input and output
// schemas, all four annotation hints) and its handler. Handlers are thin:
// they decode the arguments strictly, call one or two [wiki.Store] methods,
// and map errors with [toolError]. Every call, good or bad, leaves exactly
// one audit line.
//
// [Catalogue] lists every tool; [Register] puts a selection on a server. The
// schema of each tool is snapshotted in testdata/tools/ (go test ./tools
// -update refreshes them).
package tools
