package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Compile compiles one self-contained schema document. url names the
// document (any scheme, e.g. "mem://plan.json"); the draft is the one its
// $schema names, 2020-12 when it names none. Errors are the library's:
// invalid JSON, a schema that breaks its meta-schema, an unresolved $ref.
func Compile(url string, doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// Violation is one failing keyword of a validation.
type Violation struct {
	// Instance is the JSON pointer of the failing value ("/actions/0/slug";
	// "" is the whole document). [Path] turns it into "actions[0].slug".
	Instance string
	// Keyword is where the keyword sits in the schema, followed through
	// $ref ("/properties/actions/items/$ref/allOf/0/then/$ref/properties/slug/$ref/pattern").
	Keyword string
	// Message says what is wrong without the location, e.g. "expected
	// integer, but got string" or "length must be <= 200, but got 230".
	Message string
	// Missing names the absent properties of a failed "required", sorted.
	Missing []string
	// Unknown names the properties "additionalProperties": false refused,
	// sorted.
	Unknown []string
}

// Violations lists the failing leaf keywords of err (what
// [jsonschema.Schema.Validate] returned), in the validator's order; ok is
// false when err is not a validation error.
func Violations(err error) (vs []Violation, ok bool) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, false
	}
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if len(u.Errors) > 0 {
			for i := range u.Errors {
				walk(&u.Errors[i])
			}
			return
		}
		if u.Error == nil {
			return
		}
		vs = append(vs, violation(u))
	}
	walk(ve.DetailedOutput())
	return vs, true
}

func violation(u *jsonschema.OutputUnit) Violation {
	v := Violation{Instance: u.InstanceLocation, Keyword: u.KeywordLocation}
	switch k := u.Error.Kind.(type) {
	case *kind.Type:
		v.Message = fmt.Sprintf("expected %s, but got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Enum:
		if len(k.Want) == 1 {
			v.Message = "value must be " + jsonText(k.Want[0])
			break
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		v.Message = "value must be one of " + strings.Join(want, ", ")
	case *kind.Const:
		v.Message = "value must be " + jsonText(k.Want)
	case *kind.Required:
		v.Missing = sorted(k.Missing)
		if len(v.Missing) == 1 {
			v.Message = "missing property: " + quoted(v.Missing)
		} else {
			v.Message = "missing properties: " + quoted(v.Missing)
		}
	case *kind.AdditionalProperties:
		v.Unknown = sorted(k.Properties)
		v.Message = "additionalProperties " + quoted(v.Unknown) + " not allowed"
	case *kind.MinLength:
		v.Message = fmt.Sprintf("length must be >= %d, but got %d", k.Want, k.Got)
	case *kind.MaxLength:
		v.Message = fmt.Sprintf("length must be <= %d, but got %d", k.Want, k.Got)
	case *kind.Pattern:
		v.Message = "does not match pattern " + quote(k.Want)
	case *kind.MinItems:
		v.Message = fmt.Sprintf("minimum %d items required, but found %d items", k.Want, k.Got)
	case *kind.MaxItems:
		v.Message = fmt.Sprintf("maximum %d items allowed, but found %d items", k.Want, k.Got)
	case *kind.Minimum:
		v.Message = fmt.Sprintf("must be >= %s but found %s", num(k.Want), num(k.Got))
	case *kind.Maximum:
		v.Message = fmt.Sprintf("must be <= %s but found %s", num(k.Want), num(k.Got))
	case *kind.ExclusiveMinimum:
		v.Message = fmt.Sprintf("must be > %s but found %s", num(k.Want), num(k.Got))
	case *kind.ExclusiveMaximum:
		v.Message = fmt.Sprintf("must be < %s but found %s", num(k.Want), num(k.Got))
	case *kind.UniqueItems:
		v.Message = fmt.Sprintf("items at index %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	default:
		v.Message = u.Error.String()
	}
	return v
}

// Path turns a JSON pointer into the dotted form a person reads:
// "/actions/2/slug" is "actions[2].slug", "" is "".
func Path(ptr string) string {
	var b strings.Builder
	for _, p := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if p == "" {
			continue
		}
		if isDigits(p) {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~"))
	}
	return b.String()
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// quote writes s in single quotes, as the validator's own messages do.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func num(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
