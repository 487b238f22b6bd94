package lint

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// Defaults of the settings schema.md may change ([wiki.Settings] holds them).
const (
	DefaultStaleAfterDays  = wiki.DefaultStaleAfterDays
	DefaultMergeSimilarity = wiki.DefaultMergeSimilarity
)

// DefaultRequired are the frontmatter keys a page must have when schema.md
// names none (required_frontmatter).
var DefaultRequired = wiki.DefaultRequiredFrontmatter

// Settings are lint's settings, read from schema.md's frontmatter:
//
//	lint_disabled: [orphan_page, page_without_sources]  # categories to turn off
//	orphan_exempt: [home, "journal/*"]     # pages that may have no inbound links
//	stale_after_days: 180                  # 0 turns the age check off
//	required_frontmatter: [title, summary] # keys every page must have
//	merge_similarity: 0.8                  # shingle Jaccard for merge candidates
type Settings struct {
	// Disabled are the categories turned off (lint_disabled).
	Disabled map[string]bool
	// OrphanExempt are pages that may have no inbound links
	// (orphan_exempt): slugs ("home"), paths under pages/ ("en/Home" or
	// "en/Home.md"), or path.Match patterns ("journal/*"), compared
	// case-insensitively.
	OrphanExempt []string
	// StaleAfterDays: a page whose updated time is older is stale; 0 turns
	// the check off (a source changed after the page is still reported).
	StaleAfterDays int
	// Required are the frontmatter keys every page must have.
	Required []string
	// MergeSimilarity is the shingle Jaccard similarity at or above which
	// two pages are merge candidates (0.5 to 1).
	MergeSimilarity float64
	// Problems are settings that could not be used, said in words.
	Problems []string
}

// SettingsFrom takes lint's settings from the project's config, which
// parsed them ([wiki.ParseSettings]). Problems are every setting the config
// refused, and each lint_disabled name that is not a lint category.
func SettingsFrom(cfg wiki.Settings) Settings {
	s := Settings{
		Disabled:        map[string]bool{},
		OrphanExempt:    cfg.OrphanExempt,
		StaleAfterDays:  cfg.StaleAfterDays,
		Required:        cfg.RequiredFrontmatter,
		MergeSimilarity: cfg.MergeSimilarity,
		Problems:        append([]string(nil), cfg.Problems...),
	}
	for _, k := range cfg.LintDisabled {
		if !isKind(k) {
			s.Problems = append(s.Problems, fmt.Sprintf("lint_disabled names %q, which is not a lint category (known: %s)", k, strings.Join(Categories(), ", ")))
			continue
		}
		s.Disabled[k] = true
	}
	sort.Strings(s.Problems)
	return s
}

// exempt reports whether the page rel is in orphan_exempt.
func (s Settings) exempt(rel string) bool {
	under := strings.TrimPrefix(rel, "pages/")
	noExt := strings.TrimSuffix(under, path.Ext(under))
	for _, pat := range s.OrphanExempt {
		p := strings.TrimPrefix(strings.TrimSpace(pat), "pages/")
		if p == "" {
			continue
		}
		for _, cand := range []string{under, noExt} {
			if strings.EqualFold(p, cand) {
				return true
			}
			if ok, err := path.Match(strings.ToLower(p), strings.ToLower(cand)); err == nil && ok {
				return true
			}
		}
		if !strings.Contains(p, "/") {
			if slug, err := mdoc.NormalizeSlug(p); err == nil && wiki.PageKey(rel) == wiki.PageKey("pages/"+slug+".md") {
				return true
			}
		}
	}
	return false
}
