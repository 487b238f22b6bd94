package jsonrpc

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestCancelledIDs(t *testing.T) {
	c := NewCancelledIDs()
	c.Add("s1", IDKey(json.RawMessage(`7`)))
	for _, tc := range []struct {
		session, id string
		want        bool
	}{
		{"s1", `7`, true},
		{"s1", `7.0`, true},
		{"s1", `"7"`, false},
		{"s2", `7`, false},
		{"s1", `8`, false},
	} {
		if got := c.Has(tc.session, IDKey(json.RawMessage(tc.id))); got != tc.want {
			t.Errorf("has(%s, %s) = %v, want %v", tc.session, tc.id, got, tc.want)
		}
	}
	if !c.Take("s1", "n:7") || c.Take("s1", "n:7") || c.Has("s1", "n:7") {
		t.Error("take did not forget the id")
	}
	for i := range MaxCancelled + 10 {
		c.Add("s", fmt.Sprint("n:", i))
	}
	if c.Has("s", "n:9") || !c.Has("s", "n:10") || !c.Has("s", fmt.Sprint("n:", MaxCancelled+9)) || len(c.ids) != MaxCancelled || len(c.order) != MaxCancelled {
		t.Errorf("the bound: %d ids, %d in order; oldest kept %v", len(c.ids), len(c.order), c.Has("s", "n:9"))
	}
}
