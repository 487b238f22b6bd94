package quote

import (
	"strings"
	"testing"
)

func TestFound(t *testing.T) {
	text := "## Results\n\nThe **snapshot** interval is “five minutes” — and\nsnapshots are kept for\u00a07 days.\n"
	cases := []struct {
		quote string
		want  bool
	}{
		{"the snapshot interval is \"five minutes\" - and snapshots are kept", true}, // emphasis, curly quotes, dash, line wrap
		{"SNAPSHOTS ARE KEPT FOR 7 DAYS", true},                                      // case, NBSP
		{"snapshots are retained for 7 days", false},                                 // a paraphrase fails
		{"interval   is\n\"five", true},                                              // whitespace runs
		{"ﬁve minutes", true},                                                        // NFKC folds the ligature ﬁ to "fi"
		{"", false},
	}
	for _, c := range cases {
		if got := Found(c.quote, text); got != c.want {
			t.Errorf("Found(%q) = %v, want %v", c.quote, got, c.want)
		}
	}
	if got := Found("ﬁnal word", "The final word."); !got {
		t.Error("NFKC: the ligature ﬁ should match fi")
	}
}

func TestCheck(t *testing.T) {
	cases := map[string]bool{
		strings.Repeat("a", 7):   false,
		strings.Repeat("a", 8):   true,
		strings.Repeat("é", 300): true,
		strings.Repeat("a", 301): false,
		"   \n\t  ":              false,
		"  12345678  ":           true,
	}
	for q, ok := range cases {
		if got := Check(q) == ""; got != ok {
			t.Errorf("Check(%q...) ok = %v, want %v (%s)", q[:min(len(q), 10)], got, ok, Check(q))
		}
	}
}

func TestLine(t *testing.T) {
	text := "line one\nline two has the *needle* here\nline three\n"
	if got := Line("the needle here", text); got != 2 {
		t.Errorf("Line = %d, want 2", got)
	}
	if got := Line("not present at all", text); got != 0 {
		t.Errorf("Line = %d, want 0", got)
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"“quoted” — text", "**bold** _it_", "a\u00a0b", "\xff\xfe", "ﬁ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if Normalize(n) != n {
			t.Errorf("Normalize is not idempotent on %q: %q then %q", s, n, Normalize(n))
		}
		if n != "" && !Found(n, s) {
			t.Errorf("the normal form of %q is not found in it", s)
		}
	})
}

func TestPrepare(t *testing.T) {
	text := "# Title\n\nThe **snapshot** interval is “five\nminutes” — and\n\n\nkept for\u00a07 days.\n"
	p := Prepare(text)
	if p.Normalized() != Normalize(text) {
		t.Fatalf("Prepare %q != Normalize %q", p.Normalized(), Normalize(text))
	}
	for q, want := range map[string]int{
		"the snapshot interval":       3,
		`"five minutes" - and`:        3,
		"minutes\" — and kept for 7":  4,
		"KEPT FOR 7 DAYS":             7,
		"title the snapshot":          1,
		"not in the text at all here": 0,
	} {
		line, ok := p.Find(q)
		if line != want || ok != (want > 0) {
			t.Errorf("Find(%q) = %d, %v; want %d", q, line, ok, want)
		}
		if l := Line(q, text); l != want {
			t.Errorf("Line(%q) = %d, want %d", q, l, want)
		}
	}
}

// FuzzPrepare: the prepared text is the normal form of the whole text, and
// Find agrees with Found and Line.
func FuzzPrepare(f *testing.F) {
	f.Add("a\nb", "a b")
	f.Add("**x**\n\n_y_ ~~z~~", "x y")
	f.Add("¨\n¨a", "a")
	f.Add("\xff\n\xfe", "\ufffd")
	f.Fuzz(func(t *testing.T, text, q string) {
		p := Prepare(text)
		if p.Normalized() != Normalize(text) {
			t.Fatalf("Prepare(%q) = %q, Normalize = %q", text, p.Normalized(), Normalize(text))
		}
		line, ok := p.Find(q)
		if ok != Found(q, text) {
			t.Fatalf("Find(%q) ok=%v, Found=%v in %q", q, ok, Found(q, text), text)
		}
		if ok && line != Line(q, text) {
			t.Fatalf("Find(%q) line %d, Line = %d in %q", q, line, Line(q, text), text)
		}
	})
}
