package wiki

import (
	"reflect"
	"testing"
)

func TestHeadingsAndSectionRange(t *testing.T) {
	doc := "# Guidelines\r\n\r\n## Eval Insights (auto-generated 2026-11-22)\r\nx\r\n" + // 0..
		"## My Rules\r\n```\r\n## Eval Insights\r\n```\r\n<!-- note\r\n## Not a heading\r\n-->\r\n" +
		"   ~~~\r\n# nor this\r\n   ~~~\r\n    ## indented code\r\n##no space\r\n## Last\r\n"
	hs, open := Headings([]byte(doc))
	var got []string
	for _, h := range hs {
		got = append(got, doc[h.Start:h.End])
	}
	want := []string{
		"# Guidelines\r\n\r\n",
		"## Eval Insights (auto-generated 2026-11-22)\r\nx\r\n",
		"## My Rules\r\n```\r\n## Eval Insights\r\n```\r\n<!-- note\r\n## Not a heading\r\n-->\r\n   ~~~\r\n# nor this\r\n   ~~~\r\n    ## indented code\r\n##no space\r\n",
		"## Last\r\n",
	}
	if !reflect.DeepEqual(got, want) || open {
		t.Errorf("sections = %q (open %v)", got, open)
	}
	if hs[1].Title != "Eval Insights (auto-generated 2026-11-22)" || hs[1].Level != 2 || hs[0].Level != 1 {
		t.Errorf("headings = %+v", hs)
	}
	s, e := SectionRange([]byte(doc), "Eval Insights")
	if doc[s:e] != want[1] {
		t.Errorf("SectionRange = %q", doc[s:e])
	}
	s, e = SectionRange([]byte(doc), "My Rules")
	if doc[s:e] != want[2] {
		t.Errorf("My Rules = %q", doc[s:e])
	}
	if s, _ := SectionRange([]byte(doc), "Not a heading"); s != -1 {
		t.Errorf("a heading inside an HTML comment was found")
	}
	for _, tail := range []string{"## A\n```\nopen", "## A\n<!--\nopen", "<!-- x --> \n## A\n"} {
		_, open := Headings([]byte(tail))
		if want := tail != "<!-- x --> \n## A\n"; open != want {
			t.Errorf("%q: open = %v", tail, open)
		}
	}
}
