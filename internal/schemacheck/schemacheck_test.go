package schemacheck

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const testSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "kind"],
  "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
    "kind": {"enum": ["a", "b"]},
    "one": {"const": "x"},
    "n": {"type": "integer", "minimum": 1, "maximum": 10},
    "f": {"type": "number", "exclusiveMaximum": 1.5},
    "list": {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": true, "items": {"$ref": "#/$defs/item"}}
  },
  "$defs": {"item": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}
}`

func TestViolations(t *testing.T) {
	sch, err := Compile("mem://test.json", []byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, doc string
		want      []Violation
	}{
		{"valid", `{"name": "ab", "kind": "a"}`, nil},
		{"missing two", `{}`, []Violation{{Instance: "", Keyword: "/required", Message: "missing properties: 'kind', 'name'", Missing: []string{"kind", "name"}}}},
		{"missing one", `{"name": "ab"}`, []Violation{{Keyword: "/required", Message: "missing property: 'kind'", Missing: []string{"kind"}}}},
		{"unknown", `{"name": "ab", "kind": "a", "zz": 1, "b": 2}`, []Violation{{Keyword: "/additionalProperties", Message: "additionalProperties 'b', 'zz' not allowed", Unknown: []string{"b", "zz"}}}},
		{"type", `{"name": 5, "kind": "a"}`, []Violation{{Instance: "/name", Keyword: "/properties/name/type", Message: "expected string, but got number"}}},
		{"lengths and pattern", `{"name": "ABCDEF", "kind": "a"}`, []Violation{
			{Instance: "/name", Keyword: "/properties/name/maxLength", Message: "length must be <= 5, but got 6"},
			{Instance: "/name", Keyword: "/properties/name/pattern", Message: "does not match pattern '^[a-z]+$'"},
		}},
		{"min length", `{"name": "a", "kind": "a"}`, []Violation{{Instance: "/name", Keyword: "/properties/name/minLength", Message: "length must be >= 2, but got 1"}}},
		{"enum and const", `{"name": "ab", "kind": "c", "one": "y"}`, []Violation{
			{Instance: "/kind", Keyword: "/properties/kind/enum", Message: `value must be one of "a", "b"`},
			{Instance: "/one", Keyword: "/properties/one/const", Message: `value must be "x"`},
		}},
		{"numbers", `{"name": "ab", "kind": "a", "n": 11, "f": 2.5}`, []Violation{
			{Instance: "/f", Keyword: "/properties/f/exclusiveMaximum", Message: "must be < 1.5 but found 2.5"},
			{Instance: "/n", Keyword: "/properties/n/maximum", Message: "must be <= 10 but found 11"},
		}},
		{"integer", `{"name": "ab", "kind": "a", "n": 0.5}`, []Violation{{Instance: "/n", Keyword: "/properties/n/type", Message: "expected integer, but got number"}}},
		{"items through $ref", `{"name": "ab", "kind": "a", "list": [{"id": 1}]}`, []Violation{{Instance: "/list/0/id", Keyword: "/properties/list/items/$ref/properties/id/type", Message: "expected string, but got number"}}},
		{"too many", `{"name": "ab", "kind": "a", "list": [{"id": "a"}, {"id": "a"}, {"id": "b"}]}`, []Violation{
			{Instance: "/list", Keyword: "/properties/list/maxItems", Message: "maximum 2 items allowed, but found 3 items"},
			{Instance: "/list", Keyword: "/properties/list/uniqueItems", Message: "items at index 0 and 1 are equal"},
		}},
		{"too few", `{"name": "ab", "kind": "a", "list": []}`, []Violation{{Instance: "/list", Keyword: "/properties/list/minItems", Message: "minimum 1 items required, but found 0 items"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var doc any
			if err := json.Unmarshal([]byte(c.doc), &doc); err != nil {
				t.Fatal(err)
			}
			err := sch.Validate(doc)
			if c.want == nil {
				if err != nil {
					t.Fatalf("invalid: %v", err)
				}
				return
			}
			got, ok := Violations(err)
			if !ok {
				t.Fatalf("not a validation error: %v", err)
			}
			// The validator's order among siblings is not part of the contract.
			sortViolations(got)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func sortViolations(vs []Violation) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && vs[j].Instance+vs[j].Keyword < vs[j-1].Instance+vs[j-1].Keyword; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}

func TestNotAValidationError(t *testing.T) {
	if vs, ok := Violations(json.Unmarshal([]byte("{"), new(any))); ok || vs != nil {
		t.Errorf("got %v, %v", vs, ok)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, doc := range []string{`{`, `{"type": 5}`, `{"$ref": "#/$defs/none"}`} {
		if _, err := Compile("mem://bad.json", []byte(doc)); err == nil {
			t.Errorf("%s compiled", doc)
		} else if strings.Contains(err.Error(), "/work/") {
			t.Errorf("%s: error names a host path: %v", doc, err)
		}
	}
}

func TestPath(t *testing.T) {
	for ptr, want := range map[string]string{
		"":                             "",
		"/actions/2/slug":              "actions[2].slug",
		"/tags/0":                      "tags[0]",
		"/a~1b/c~0d":                   "a/b.c~d",
		"/findings/0/evidence/1/quote": "findings[0].evidence[1].quote",
	} {
		if got := Path(ptr); got != want {
			t.Errorf("Path(%q) = %q, want %q", ptr, got, want)
		}
	}
}
