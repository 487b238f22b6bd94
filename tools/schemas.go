package tools

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// schemaOptions gives a tool its input and output schemas. mcp-go generates
// them from In and Out by reflection, which for the whole catalogue costs
// every server start far more than reading prepared schemas
// (BenchmarkCatalogueSchemas), so the generated schemas are kept in
// schemas_gen.go (refreshed with go generate ./tools) and used as they
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
	return []mcp.ToolOption{mcp.WithInputSchema[In](), mcp.WithOutputSchema[Out](), singleTypeSchemas}
}

// singleTypeSchemas rewrites the schemas mcp-go generated so that every
// "type" is one JSON type. mcp-go types a Go slice or pointer as
// ["null", "array"] (or ["null", "object"]); clients that coerce arguments
// by the exact type (the MCP Inspector CLI) or map tool schemas onto a
// single-type dialect (Gemini's function declarations) cannot use that. An
// optional field is optional by not being required, and [nullFree] makes
// every output match: no nil slice or map is sent as null.
func singleTypeSchemas(t *mcp.Tool) {
	if len(t.RawInputSchema) > 0 {
		t.RawInputSchema = singleTypes(t.RawInputSchema)
	}
	if t.OutputSchema.Type != "" {
		out, err := json.Marshal(t.OutputSchema)
		if err != nil {
			return
		}
		t.OutputSchema = mcp.ToolOutputSchema{}
		t.RawOutputSchema = singleTypes(out)
	}
}

// singleTypes returns the JSON schema s with "null" dropped from every type
// list, keys in their order. A list left with one type becomes that type;
// one with several stays a list (the catalogue test refuses it). Values of
// keywords holding instance data (enum, const, default, examples) are
// copied as they are. s is JSON mcp-go produced; on a decoding error it is
// returned unchanged.
func singleTypes(s []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var b bytes.Buffer
	if err := copySchema(dec, &b, inSchema); err != nil {
		return s
	}
	return b.Bytes()
}

// What a JSON value is to [copySchema].
type schemaPart int

const (
	inSchema schemaPart = iota // a schema, or a list of schemas
	inNames                    // an object of schemas by name (properties, $defs)
	inData                     // instance data (enum, const, default, examples)
)

// copySchema copies the next JSON value of dec to b, rewriting the type
// lists of the schemas in it.
func copySchema(dec *json.Decoder, b *bytes.Buffer, part schemaPart) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		b.WriteByte('{')
		for first := true; dec.More(); first = false {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			if !first {
				b.WriteByte(',')
			}
			writeJSON(b, key)
			b.WriteByte(':')
			next := part
			switch {
			case part == inNames:
				next = inSchema
			case part == inData:
			case key == "type":
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return err
				}
				var types []any
				if json.Unmarshal(raw, &types) == nil {
					writeJSON(b, singleType(types))
				} else {
					b.Write(raw) // "string"
				}
				continue
			case key == "enum" || key == "const" || key == "default" || key == "examples":
				next = inData
			case key == "properties" || key == "patternProperties" || key == "$defs" || key == "definitions" || key == "dependentSchemas":
				next = inNames
			}
			if err := copySchema(dec, b, next); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // '}'
			return err
		}
		b.WriteByte('}')
	case json.Delim('['):
		b.WriteByte('[')
		for first := true; dec.More(); first = false {
			if !first {
				b.WriteByte(',')
			}
			if err := copySchema(dec, b, part); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ']'
			return err
		}
		b.WriteByte(']')
	default:
		writeJSON(b, tok)
	}
	return nil
}

// singleType drops "null" from a type list.
func singleType(list []any) any {
	kept := make([]any, 0, len(list))
	for _, t := range list {
		if t != "null" {
			kept = append(kept, t)
		}
	}
	switch len(kept) {
	case 0:
		return list
	case 1:
		return kept[0]
	}
	return kept
}

func writeJSON(b *bytes.Buffer, v any) {
	enc, _ := json.Marshal(v)
	b.Write(enc)
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

// nullFree returns v with every nil slice and map that encoding/json would
// write as null (a field without omitempty or omitzero, an element of a
// slice, a value of a map) replaced by an empty one, so that a tool's
// output matches its output schema, where an array is always an array.
// Only what changes is copied: v's slices and maps may be shared with the
// wiki's caches and are never written.
func nullFree[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	if fixed, ok := nullFreeValue(rv); ok {
		return fixed.Interface().(T)
	}
	return v
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// nullFreeValue returns a copy of v with its nested nil slices and maps
// made empty, and whether anything changed. A nil v itself is its
// container's business (see [emptyIfNil]).
func nullFreeValue(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	if !mayHoldNull(t) {
		return v, false
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		elem, ok := nullFreeValue(v.Elem())
		if !ok {
			return v, false
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(elem)
		return p, true
	case reflect.Struct:
		var out reflect.Value
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" && opts == "" {
				continue
			}
			fv := v.Field(i)
			opts = "," + opts + ","
			if strings.Contains(opts, ",omitzero,") && fv.IsZero() ||
				strings.Contains(opts, ",omitempty,") && (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.Len() == 0 {
				continue // left out
			}
			fixed, ok := emptyIfNil(fv)
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(t).Elem()
				out.Set(v)
			}
			out.Field(i).Set(fixed)
		}
		if out.IsValid() {
			return out, true
		}
		return v, false
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return v, false // []byte is a base64 string
		}
		var out reflect.Value
		for i := range v.Len() {
			fixed, ok := emptyIfNil(v.Index(i))
			if !ok {
				continue
			}
			if !out.IsValid() {
				if t.Kind() == reflect.Slice {
					out = reflect.MakeSlice(t, v.Len(), v.Len())
					reflect.Copy(out, v)
				} else {
					out = reflect.New(t).Elem()
					out.Set(v)
				}
			}
			out.Index(i).Set(fixed)
		}
		if out.IsValid() {
			return out, true
		}
		return v, false
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		var out reflect.Value
		iter := v.MapRange()
		for iter.Next() {
			fixed, ok := emptyIfNil(iter.Value())
			if !ok {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(t, v.Len())
				inner := v.MapRange()
				for inner.Next() {
					out.SetMapIndex(inner.Key(), inner.Value())
				}
			}
			out.SetMapIndex(iter.Key(), fixed)
		}
		if out.IsValid() {
			return out, true
		}
		return v, false
	}
	return v, false
}

var nullTypes sync.Map // reflect.Type -> bool, see mayHoldNull

// mayHoldNull reports whether a value of type t can hold a nil slice or
// map that encoding/json writes as null, so that [nullFreeValue] walks only
// what can need it (a list of 6,000 pages whose lists are all omitempty is
// not walked). Cached by type.
func mayHoldNull(t reflect.Type) bool {
	if v, ok := nullTypes.Load(t); ok {
		return v.(bool)
	}
	r := holdsNull(t, map[reflect.Type]bool{})
	nullTypes.Store(t, r)
	return r
}

// holdsNull is [mayHoldNull] uncached; visiting holds the types being
// looked at (a recursive type refers back to itself).
func holdsNull(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if v, ok := nullTypes.Load(t); ok {
		return v.(bool)
	}
	if visiting[t] {
		return false
	}
	visiting[t] = true
	defer delete(visiting, t)
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return false // encoded its own way
	}
	nullable := func(t reflect.Type) bool {
		return t.Kind() == reflect.Map || t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8
	}
	switch t.Kind() {
	case reflect.Pointer:
		return holdsNull(t.Elem(), visiting)
	case reflect.Slice, reflect.Array, reflect.Map:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() != reflect.Map {
			return false
		}
		return nullable(t.Elem()) || holdsNull(t.Elem(), visiting)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" && opts == "" {
				continue
			}
			opts = "," + opts + ","
			omit := strings.Contains(opts, ",omitempty,") || strings.Contains(opts, ",omitzero,")
			if !omit && nullable(f.Type) || holdsNull(f.Type, visiting) {
				return true
			}
		}
	}
	return false
}

// emptyIfNil is [nullFreeValue] for a value encoded even when empty: a nil
// slice or map becomes an empty one.
func emptyIfNil(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() && v.Type().Elem().Kind() != reflect.Uint8 {
			return reflect.MakeSlice(v.Type(), 0, 0), true
		}
	case reflect.Map:
		if v.IsNil() {
			return reflect.MakeMap(v.Type()), true
		}
	}
	return nullFreeValue(v)
}
