package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tailscale/hujson"
)

// jsonDoc is a JSON or JSONC (comments, trailing commas) document edited in
// place: keys llmwiki sets are changed, everything else (other servers,
// unknown keys, comments, key order, indentation) stays byte for byte.
type jsonDoc struct {
	v     hujson.Value
	jsonc bool
	unit  string // one level of indentation, as the file uses it
}

// parseJSON parses data (empty means {}). With jsonc false the file must be
// standard JSON; the error names the line and column of the problem.
func parseJSON(data []byte, jsonc bool) (*jsonDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	if !jsonc {
		var x any
		if err := json.Unmarshal(data, &x); err != nil {
			if se, ok := err.(*json.SyntaxError); ok {
				l, c := lineCol(data, max(int(se.Offset)-1, 0)) // Offset is just past the bad byte
				return nil, fmt.Errorf("not valid JSON at line %d, column %d: %v", l, c, se)
			}
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON with comments: %v", strings.TrimPrefix(err.Error(), "hujson: "))
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("the top level is not a JSON object")
	}
	return &jsonDoc{v: v, jsonc: jsonc, unit: indentUnit(data)}, nil
}

func lineCol(b []byte, off int) (int, int) {
	if off > len(b) {
		off = len(b)
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// indentUnit guesses one indentation level from the first indented line.
func indentUnit(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		t := strings.TrimLeft(l, " \t")
		if t != "" && len(t) < len(l) {
			return l[:len(l)-len(t)]
		}
	}
	return "  "
}

// bytes returns the document.
func (d *jsonDoc) bytes() []byte {
	out := d.v.Pack()
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

// get returns the decoded value at path, or nil, false.
func (d *jsonDoc) get(path ...string) (any, bool) {
	v := d.find(path)
	if v == nil {
		return nil, false
	}
	var x any
	if err := json.Unmarshal(standard(*v), &x); err != nil {
		return nil, false
	}
	return x, true
}

func (d *jsonDoc) find(path []string) *hujson.Value {
	ptr := ""
	for _, p := range path {
		ptr += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(p)
	}
	return d.v.Find(ptr)
}

// standard returns v as standard JSON. It packs v into a new buffer first:
// hujson standardizes in place, which would blank the comments of the
// document v belongs to.
func standard(v hujson.Value) []byte {
	b, err := hujson.Standardize(v.Pack())
	if err != nil {
		return nil
	}
	return b
}

// set makes path hold val (any JSON-encodable value), creating the objects
// on the way. A key that already holds an equal value is left alone, so a
// second run changes no byte. It fails when something on the way is not an
// object (the file is then left to the person).
func (d *jsonDoc) set(val any, path ...string) error {
	if cur, ok := d.get(path...); ok && jsonEqual(cur, val) {
		return nil
	}
	obj := d.v.Value.(*hujson.Object)
	indent := ""
	for i, key := range path {
		last := i == len(path)-1
		idx := memberIndex(obj, key)
		if last {
			nv, err := d.encode(val, indent+d.unit)
			if err != nil {
				return err
			}
			if idx >= 0 {
				obj.Members[idx].Value.Value = nv.Value
				return nil
			}
			d.appendMember(obj, key, nv, indent)
			return nil
		}
		if idx < 0 {
			nv, err := d.encode(map[string]any{}, indent+d.unit)
			if err != nil {
				return err
			}
			d.appendMember(obj, key, nv, indent)
			idx = len(obj.Members) - 1
		}
		next, ok := obj.Members[idx].Value.Value.(*hujson.Object)
		if !ok {
			return fmt.Errorf("%q is not an object; llmwiki will not replace it", strings.Join(path[:i+1], "."))
		}
		obj, indent = next, indent+d.unit
	}
	return nil
}

// addToList makes the array at path contain s (creating it), keeping its
// other elements.
func (d *jsonDoc) addToList(s string, path ...string) error {
	cur, ok := d.get(path...)
	if !ok {
		return d.set([]string{s}, path...)
	}
	list, isList := cur.([]any)
	if !isList {
		return fmt.Errorf("%q is not a list; llmwiki will not replace it", strings.Join(path, "."))
	}
	for _, x := range list {
		if x == s {
			return nil
		}
	}
	arr := d.find(path).Value.(*hujson.Array)
	lit, _ := json.Marshal(s)
	el := hujson.ArrayElement{Value: hujson.Literal(lit)}
	if n := len(arr.Elements); n > 0 {
		el.BeforeExtra = append(hujson.Extra(nil), arr.Elements[0].BeforeExtra...)
		if len(el.BeforeExtra) == 0 {
			el.BeforeExtra = hujson.Extra(" ")
		}
		if arr.Elements[n-1].AfterExtra != nil {
			el.AfterExtra = hujson.Extra{}
		}
	}
	arr.Elements = append(arr.Elements, el)
	return nil
}

// encode renders val as an indented hujson value whose lines start at
// indent (the members' indentation of the object it goes into).
func (d *jsonDoc) encode(val any, indent string) (hujson.Value, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, d.unit)
	if err := enc.Encode(val); err != nil {
		return hujson.Value{}, err
	}
	v, err := hujson.Parse(bytes.TrimSpace(b.Bytes()))
	if err != nil {
		return hujson.Value{}, err
	}
	return v, nil
}

// appendMember adds key: val at the end of obj, whose own members are
// indented by indent+unit, moving comments that stood before the closing
// brace in front of the new member.
func (d *jsonDoc) appendMember(obj *hujson.Object, key string, val hujson.Value, indent string) {
	name, _ := json.Marshal(key)
	memberIndent := indent + d.unit
	before := "\n" + memberIndent
	after := string(obj.AfterExtra)
	if i := strings.LastIndexByte(after, '\n'); i >= 0 {
		if head := strings.TrimRight(after[:i], " \t"); strings.TrimSpace(head) != "" {
			before = head + before
		}
		obj.AfterExtra = hujson.Extra(after[i:])
	} else {
		obj.AfterExtra = hujson.Extra("\n" + indent)
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra(before), Value: hujson.Literal(name)},
		Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: val.Value},
	}
	if n := len(obj.Members); n > 0 && obj.Members[n-1].Value.AfterExtra != nil {
		m.Value.AfterExtra = hujson.Extra{} // the file uses trailing commas
	}
	obj.Members = append(obj.Members, m)
}

func memberIndex(obj *hujson.Object, key string) int {
	for i, m := range obj.Members {
		var k string
		if json.Unmarshal(standard(hujson.Value{Value: m.Name.Value}), &k) == nil && k == key {
			return i
		}
	}
	return -1
}

// jsonEqual compares a decoded value with any JSON-encodable value.
func jsonEqual(decoded, val any) bool {
	b, err := json.Marshal(val)
	if err != nil {
		return false
	}
	var norm any
	if json.Unmarshal(b, &norm) != nil {
		return false
	}
	return reflect.DeepEqual(decoded, norm)
}

// kv is one key of an ordered object.
type kv struct {
	Key   string
	Value any
}

// ordered is a JSON object that keeps its keys in order.
type ordered []kv

// MarshalJSON encodes the keys in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// setEntry writes the object fields at path: the whole object when it is
// absent, else each field on its own, so keys a person or the client added
// to the entry (disabled, autoApprove, timeouts) stay.
func (d *jsonDoc) setEntry(fields ordered, path ...string) error {
	if _, ok := d.get(path...); !ok {
		return d.set(fields, path...)
	}
	if _, isObj := d.find(path).Value.(*hujson.Object); !isObj {
		return fmt.Errorf("%q is not an object; llmwiki will not replace it", strings.Join(path, "."))
	}
	for _, f := range fields {
		if err := d.set(f.Value, append(append([]string(nil), path...), f.Key)...); err != nil {
			return err
		}
	}
	return nil
}
