package wiki

import (
	"net/url"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// TestResolvePagePercentEncoded: a page's name as its resource URI spells it
// (percent-encoded: spaces, folders, non-ASCII) resolves to the same page as
// the decoded name; a name that is neither is still not found.
func TestResolvePagePercentEncoded(t *testing.T) {
	s, dir := newStore(t)
	mustWrite(t, dir, "pages/en/Plugins/Graph view.md", "---\ntitle: Graph view\n---\n# Graph view\n")
	mustWrite(t, dir, "pages/café crème.md", "---\ntitle: Coffee\n---\n# Coffee\n")
	cases := []struct{ name, want string }{
		{"en/Plugins/Graph view", "pages/en/Plugins/Graph view.md"},
		{url.PathEscape("en/Plugins/Graph view"), "pages/en/Plugins/Graph view.md"},
		{"café crème", "pages/café crème.md"},
		{url.PathEscape("café crème"), "pages/café crème.md"},
		{"caf%C3%A9%20cr%C3%A8me", "pages/café crème.md"},
	}
	for _, c := range cases {
		got, err := s.ResolvePage(c.name)
		if err != nil || got != c.want {
			t.Errorf("ResolvePage(%q) = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	for _, name := range []string{"nothing%20here", "100%", "%zz"} {
		if got, err := s.ResolvePage(name); store.CodeOf(err) != store.CodeNotFound {
			t.Errorf("ResolvePage(%q) = %q, %v; want not found", name, got, err)
		}
	}
}
