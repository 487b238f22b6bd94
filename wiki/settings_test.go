package wiki

import (
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// Every setting of schema.md follows one rule: a decimal given to a
// whole-number setting, a string given to a number or a boolean, a word
// that is not one of its words, or a value out of range is refused, the
// default stays, and a problem names the key, so no reader truncates
// context_max_lines: 2.5 to 2 while another refuses stale_after_days: 2.5.
func TestSettingsOneRule(t *testing.T) {
	s, dir := newStore(t)
	mustWrite(t, dir, "schema.md", `---
context_max_lines: 2.5
snapshot_keep_days: 7.5
snapshot_keep_last: 3.0
stale_after_days: 2.5
merge_similarity: "high"
index: Manual
capture_sessions: "yes"
lint_disabled: 3
lang: de
title: kept, not read
---
# Schema
`)
	cfg := s.Settings()
	if cfg.ContextMaxLines != DefaultContextMaxLines || cfg.Retention.KeepDays != 0 || cfg.Retention.KeepLast != 3 ||
		cfg.StaleAfterDays != DefaultStaleAfterDays || cfg.MergeSimilarity != DefaultMergeSimilarity ||
		!cfg.AutoIndex || cfg.CaptureSessions || cfg.LintDisabled != nil || cfg.Lang != "de" {
		t.Errorf("refused values did not keep their defaults: %+v", cfg)
	}
	var keys []string
	for _, p := range cfg.Problems {
		keys = append(keys, p[:strings.IndexByte(p, ' ')])
	}
	want := []string{"capture_sessions", "context_max_lines", "index", "lint_disabled", "merge_similarity", "snapshot_keep_days", "stale_after_days"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("problems name %q, want %q:\n%s", keys, want, strings.Join(cfg.Problems, "\n"))
	}
	if p := cfg.Problems[1]; p != "context_max_lines must be a whole number, 1 or more (got 2.5); using 400" {
		t.Errorf("problem %q", p)
	}
	proj, err := s.LoadProject(t.Context())
	if err != nil || proj.ContextCap != DefaultContextMaxLines || !strings.Contains(strings.Join(proj.Problems, "\n"), "schema.md settings: context_max_lines must be") {
		t.Errorf("load_project: cap %d, problems %q, %v", proj.ContextCap, proj.Problems, err)
	}
}

func TestParseSettings(t *testing.T) {
	for _, c := range []struct {
		meta map[string]any
		ok   func(Settings) bool
	}{
		{map[string]any{"context_max_lines": 120}, func(c Settings) bool { return c.ContextMaxLines == 120 }},
		{map[string]any{"context_max_lines": 120.0}, func(c Settings) bool { return c.ContextMaxLines == 120 }},
		{map[string]any{"context_max_lines": 0}, func(c Settings) bool { return c.ContextMaxLines == DefaultContextMaxLines && len(c.Problems) == 1 }},
		{map[string]any{"stale_after_days": 0}, func(c Settings) bool { return c.StaleAfterDays == 0 && len(c.Problems) == 0 }},
		{map[string]any{"merge_similarity": 1}, func(c Settings) bool { return c.MergeSimilarity == 1 }},
		{map[string]any{"merge_similarity": 0.3}, func(c Settings) bool { return c.MergeSimilarity == DefaultMergeSimilarity && len(c.Problems) == 1 }},
		{map[string]any{"index": "manual"}, func(c Settings) bool { return !c.AutoIndex }},
		{map[string]any{"capture_sessions": true}, func(c Settings) bool { return c.CaptureSessions }},
		{map[string]any{"orphan_exempt": "home, journal/*"}, func(c Settings) bool { return reflect.DeepEqual(c.OrphanExempt, []string{"home", "journal/*"}) }},
		{map[string]any{"required_frontmatter": []any{}}, func(c Settings) bool { return len(c.RequiredFrontmatter) == 0 && len(c.Problems) == 0 }},
		{map[string]any{"unknown_key": 2.5, "context_max_lines": nil}, func(c Settings) bool {
			return len(c.Problems) == 0 && c.ContextMaxLines == DefaultContextMaxLines && reflect.DeepEqual(c.RequiredFrontmatter, DefaultRequiredFrontmatter)
		}},
	} {
		if cfg := ParseSettings(c.meta); !c.ok(cfg) {
			t.Errorf("ParseSettings(%v) = %+v", c.meta, cfg)
		}
	}
	tmpl, _ := Template("schema.md")
	d, err := mdoc.ParseDoc("schema.md", tmpl)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := ParseSettings(d.Meta); len(cfg.Problems) != 0 || cfg.Retention.KeepLast != 20 || cfg.Review != ReviewAfter {
		t.Errorf("the starting schema.md: %+v", cfg)
	}
}

// TestReviewSetting: review: takes off, after or before; YAML 1.1's
// unquoted off (read as false) is off; anything else is refused with the
// default, after, in force.
func TestReviewSetting(t *testing.T) {
	for _, c := range []struct {
		value   any
		want    string
		refused bool
	}{
		{nil, ReviewAfter, false},
		{"off", ReviewOff, false},
		{false, ReviewOff, false},
		{"after", ReviewAfter, false},
		{"before", ReviewBefore, false},
		{"Before", ReviewAfter, true},
		{true, ReviewAfter, true},
		{3, ReviewAfter, true},
	} {
		meta := map[string]any{}
		if c.value != nil {
			meta["review"] = c.value
		}
		cfg := ParseSettings(meta)
		if cfg.Review != c.want || (len(cfg.Problems) > 0) != c.refused {
			t.Errorf("review: %v gives %q, problems %v; want %q, refused %v", c.value, cfg.Review, cfg.Problems, c.want, c.refused)
		}
		if c.refused && (len(cfg.Problems) != 1 || !strings.Contains(cfg.Problems[0], "review must be one of [off after before]")) {
			t.Errorf("review: %v: problems %v", c.value, cfg.Problems)
		}
	}
}
