package links

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestViewUpdateProperty: random creates, edits and deletes through the
// store (pages in folders with clashing names, links to pages, headings,
// folders and names that do not exist yet) keep the view updated in place,
// its suggester included, equal to one built from scratch after every
// commit: backlinks, dangling links and ambiguity come out the same.
func TestViewUpdateProperty(t *testing.T) {
	ctx := context.Background()
	names := []string{"a", "b", "c", "x/a", "x/b", "y/a", "y/z/c", "d"}
	targets := []string{"a", "b", "c", "d", "x/a", "y/a", "z/c", "missing", "a#One", "b#Two", "../a", "nowhere#x"}
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 20))
		st, _ := teststore.New(t, nil)
		g := openGraph(st)
		if _, err := g.Fresh(ctx); err != nil {
			t.Fatal(err)
		}
		body := func() string {
			s := "# T\n\n"
			if r.IntN(2) == 0 {
				s += "## One\n\n## Two\n\n"
			}
			for range r.IntN(4) {
				s += fmt.Sprintf("[[%s]] ", targets[r.IntN(len(targets))])
			}
			return s + "\n"
		}
		for step := range 60 {
			rel := "pages/" + names[r.IntN(len(names))] + ".md"
			old, err := st.Root().ReadFile(rel)
			exists := err == nil
			op := "create"
			err = st.Update(ctx, func(tx *store.Tx) error {
				switch {
				case !exists:
					return tx.Create(rel, []byte(body()))
				case r.IntN(3) == 0:
					op = "delete"
					return tx.Delete(rel, store.SHA256Hex(old))
				default:
					op = "edit"
					return tx.Replace(rel, []byte(body()), store.SHA256Hex(old))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			v, err := g.View(ctx)
			if err != nil {
				t.Fatal(err)
			}
			v.suggMu.Lock()
			carried := v.sugg != nil
			v.suggMu.Unlock()
			if step > 0 && !carried {
				t.Fatalf("seed %d step %d: the suggester was not carried to the new view", seed, step)
			}
			v.Suggester() // carried to the next views from now on
			g.mu.Lock()
			inc, full := g.view, buildView(g.entries)
			g.mu.Unlock()
			if d := sameView(inc, full); d != "" {
				t.Fatalf("seed %d step %d (%s %s): %s", seed, step, op, rel, d)
			}
			if d := sameSuggester(inc.Suggester(), NewSuggester(full.Pages())); d != "" {
				t.Fatalf("seed %d step %d (%s %s): suggester: %s", seed, step, op, rel, d)
			}
		}
	}
}

func sameSuggester(inc, full *Suggester) string {
	if a, b := inc.byTitle.flat(), full.byTitle.flat(); !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("titles %v, rebuilt %v", a, b)
	}
	if a, b := inc.bySlug.flat(), full.bySlug.flat(); !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("slugs %v, rebuilt %v", a, b)
	}
	return ""
}
