package lint

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
)

// Defaults of the settings schema.md may change.
const (
	DefaultStaleAfterDays  = 180
	DefaultMergeSimilarity = 0.8
)

// DefaultRequired are the frontmatter keys a page must have when schema.md
// names none (required_frontmatter).
var DefaultRequired = []string{"title", "summary"}

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

// SettingsFrom reads lint's settings from the project's config. Bad values
// keep the default and are listed in Problems.
func SettingsFrom(cfg wiki.Config) Settings {
	s := Settings{
		Disabled:        map[string]bool{},
		StaleAfterDays:  DefaultStaleAfterDays,
		Required:        append([]string(nil), DefaultRequired...),
		MergeSimilarity: DefaultMergeSimilarity,
	}
	raw := cfg.Raw
	for _, k := range wiki.MetaList(raw, "lint_disabled") {
		if !isKind(k) {
			s.Problems = append(s.Problems, fmt.Sprintf("lint_disabled names %q, which is not a lint category (known: %s)", k, strings.Join(Categories(), ", ")))
			continue
		}
		s.Disabled[k] = true
	}
	s.OrphanExempt = wiki.MetaList(raw, "orphan_exempt")
	if v, ok := raw["stale_after_days"]; ok {
		if n, ok := toInt(v); ok && n >= 0 {
			s.StaleAfterDays = n
		} else {
			s.Problems = append(s.Problems, fmt.Sprintf("stale_after_days must be a whole number of days, 0 or more (got %v); using %d", v, DefaultStaleAfterDays))
		}
	}
	if _, ok := raw["required_frontmatter"]; ok {
		s.Required = wiki.MetaList(raw, "required_frontmatter")
	}
	if v, ok := raw["merge_similarity"]; ok {
		f, ok := toFloat(v)
		if ok && f >= 0.5 && f <= 1 {
			s.MergeSimilarity = f
		} else {
			s.Problems = append(s.Problems, fmt.Sprintf("merge_similarity must be a number from 0.5 to 1 (got %v); using %.2f", v, DefaultMergeSimilarity))
		}
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
			if slug, err := wiki.NormalizeSlug(p); err == nil && wiki.PageKey(rel) == wiki.PageKey("pages/"+slug+".md") {
				return true
			}
		}
	}
	return false
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case uint64:
		return int(x), true
	case float64:
		if x == float64(int(x)) {
			return int(x), true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
