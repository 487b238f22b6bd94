package plan_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// FuzzParse feeds arbitrary replies to the plan parser. Whatever it accepts
// must be inside the closed vocabulary: at most 20 actions, known kinds only,
// every page named by a canonical slug that maps under pages/, and the size
// limits kept. Seeds are below and in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		validPlan(),
		`{"actions":[]}`,
		`{"takeaways":["a"],"actions":[{"kind":"create_page","slug":"a-b","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"create_page","slug":"../x","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"create_page","slug":"sources/x.md","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"delete_page","slug":"x"}]}`,
		`{"actions":[{"kind":"update_page","slug":"x","base_sha256":"` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `","markdown":"m"}]}`,
		`{"actions":[{"kind":"add_links","slug":"x","links":["a","b"]}]}`,
		`{"actions":[{"kind":"update_context","markdown":"# C"}]}`,
		`{"actions":[{"kind":"append_context_section","heading":"H","markdown":"m"}]}`,
		`{"actions":[{"kind":"append_page_section","slug":"x","heading":"H","markdown":"m","path":"schema.md"}]}`,
		"```json\n{\"actions\":[]}\n```",
		`{"actions":[]} {"actions":[]}`,
		`{"actions":null}`,
		`[]`, `"x"`, `{`, ``,
		`{"actions":[{"kind":"create_page","slug":"a\u002fb","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"create_page","slug":"ａｂ","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"create_page","slug":"en/plugins/graph-view","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"create_page","slug":"a/../b","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"create_page","slug":"sources/x","title":"T","markdown":"x"}]}`,
		`{"actions":[{"kind":"add_links","slug":"a/con","links":["a//b"]}]}`,
		`{"actions":[{"kind":"create_page","kind":"update_context","slug":"a","title":"T","markdown":"x"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := plan.Parse(data)
		if err != nil {
			if p != nil {
				t.Fatal("a plan and an error")
			}
			if store.CodeOf(err) != store.CodeInvalid {
				t.Fatalf("code %s: %v", store.CodeOf(err), err)
			}
			return
		}
		if len(p.Actions) > plan.MaxActions {
			t.Fatalf("%d actions", len(p.Actions))
		}
		for _, a := range p.Actions {
			limit := plan.MaxPageChars
			switch a.Kind {
			case plan.KindCreatePage, plan.KindUpdatePage, plan.KindAppendPageSection, plan.KindAddLinks:
				if !wiki.ValidPageName(a.Slug) || strings.HasPrefix(a.Slug, "sources/") || strings.HasPrefix(a.Slug, "pages/") {
					t.Fatalf("accepted slug %q", a.Slug)
				}
				rel, err := wiki.CleanPath(a.Target())
				if err != nil || wiki.LayerOf(rel) != wiki.LayerPages || rel != "pages/"+a.Slug+".md" {
					t.Fatalf("target %q outside pages/", a.Target())
				}
				for _, l := range a.Links {
					if !wiki.ValidPageName(l) {
						t.Fatalf("accepted link %q", l)
					}
				}
				if len(a.Links) > plan.MaxLinks {
					t.Fatalf("%d links", len(a.Links))
				}
			case plan.KindUpdateContext, plan.KindAppendContextSection:
				if a.Target() != "context.md" || a.Slug != "" {
					t.Fatalf("context action with slug %q", a.Slug)
				}
			default:
				t.Fatalf("accepted kind %q", a.Kind)
			}
			if a.Kind == plan.KindAppendPageSection || a.Kind == plan.KindAppendContextSection {
				limit = plan.MaxSectionChars
			}
			if utf8.RuneCountInString(a.Markdown) > limit {
				t.Fatalf("markdown of %d chars", utf8.RuneCountInString(a.Markdown))
			}
		}
	})
}
