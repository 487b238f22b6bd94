package tools

import (
	"encoding/json"
	"hash/fnv"
	"reflect"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// schemaOptions gives a tool its input and output schemas. mcp-go generates
// them from In and Out by reflection, which for the whole catalogue took
// about 15 ms of every server start, so the generated schemas are kept in
// schemas_gen.go (refreshed with go test ./tools -update) and used as they
// are while the Go types still match the fingerprint stored with them. A
// type edited since falls back to reflection: a stale schema is never
// served; TestToolSchemasGoldenGenerated fails until the file is refreshed.
func schemaOptions[In, Out any](d Deps, name string, types uint64) []mcp.ToolOption {
	if g, ok := generatedSchemas[name]; ok && !d.reflectSchemas && g.types == types {
		return []mcp.ToolOption{func(t *mcp.Tool) {
			t.InputSchema = mcp.ToolInputSchema{} // mcp.NewTool's default; the raw one replaces it
			t.RawInputSchema = json.RawMessage(g.in)
			t.RawOutputSchema = json.RawMessage(g.out)
		}}
	}
	return []mcp.ToolOption{mcp.WithInputSchema[In](), mcp.WithOutputSchema[Out]()}
}

// generatedSchema is one tool's entry in schemas_gen.go: the JSON mcp-go
// publishes for its input and output schema, and the fingerprint of the Go
// types they were generated from.
type generatedSchema struct {
	in, out string
	types   uint64
}

// typesFingerprint hashes everything of In and Out that schema generation
// reads: type names and kinds, and each struct field's name, type and tags,
// recursively (FNV-1a, 64 bits).
func typesFingerprint[In, Out any]() uint64 {
	seen := map[reflect.Type]bool{}
	b := appendType(make([]byte, 0, 4096), reflect.TypeFor[In](), seen)
	b = append(b, '|')
	b = appendType(b, reflect.TypeFor[Out](), seen)
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

func appendType(b []byte, t reflect.Type, seen map[reflect.Type]bool) []byte {
	b = append(b, t.String()...)
	b = append(b, '/')
	b = strconv.AppendUint(b, uint64(t.Kind()), 10)
	b = append(b, '(')
	if !seen[t] {
		seen[t] = true
		switch t.Kind() {
		case reflect.Array:
			b = strconv.AppendInt(b, int64(t.Len()), 10)
			b = appendType(b, t.Elem(), seen)
		case reflect.Pointer, reflect.Slice:
			b = appendType(b, t.Elem(), seen)
		case reflect.Map:
			b = appendType(b, t.Key(), seen)
			b = appendType(b, t.Elem(), seen)
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				b = append(b, f.Name...)
				if f.Anonymous {
					b = append(b, '*')
				}
				// Length-prefixed: no tag can pass for another field.
				b = strconv.AppendInt(b, int64(len(f.Tag)), 10)
				b = append(b, ':')
				b = append(b, f.Tag...)
				b = appendType(b, f.Type, seen)
			}
		}
	}
	return append(b, ')')
}
