// Package schemacheck compiles JSON schemas with
// santhosh-tekuri/jsonschema/v6 (the validator mcp-go already links, so the
// binary carries one) and explains a failed validation in words a model can
// act on: one [Violation] per failing keyword, located by JSON pointer, with
// a message such as "expected integer, but got string".
//
// tools/ checks tool arguments against each tool's input schema with it;
// wiki/plan checks model replies against the plan and deep-lint schemas.
package schemacheck
