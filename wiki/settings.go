package wiki

import (
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Defaults of the settings schema.md may change.
const (
	// DefaultContextMaxLines is context.md's line cap (context_max_lines).
	DefaultContextMaxLines = 400
	// DefaultStaleAfterDays is lint's page age limit (stale_after_days).
	DefaultStaleAfterDays = 180
	// DefaultMergeSimilarity is lint's merge-candidate threshold
	// (merge_similarity).
	DefaultMergeSimilarity = 0.8
	// DefaultReview is the review mode when schema.md names none: agents
	// are never blocked (a client without elicitation would leave every
	// write of `before` pending), and every agent write still reaches a
	// person, as a diff to accept or revert.
	DefaultReview = ReviewAfter
)

// The review modes (schema.md review:).
const (
	// ReviewOff: writes apply at once and are not queued.
	ReviewOff = "off"
	// ReviewAfter: writes apply at once and each one waits in the review
	// queue for a person to accept or revert.
	ReviewAfter = "after"
	// ReviewBefore: nothing under pages/ or context.md changes until a
	// person approves it.
	ReviewBefore = "before"
)

// The git modes (schema.md git:).
const (
	// GitOff: llmwiki never runs git (the default).
	GitOff = "off"
	// GitCommit: every audited write that changed files is one commit of
	// exactly those files.
	GitCommit = "commit"
	// GitSync: GitCommit, and `llmwiki sync` (or serve's background sync,
	// sync_interval_minutes) rebases the wiki's commits on its remote and
	// pushes them.
	GitSync = "sync"
)

// DefaultRequiredFrontmatter are the frontmatter keys a page must have when
// schema.md names none (required_frontmatter).
var DefaultRequiredFrontmatter = []string{"title", "summary"}

// Settings is the project's settings, read from schema.md's frontmatter (the
// person owns it; no tool writes it) by [ParseSettings], the one parse of
// those settings: every part of llmwiki reads its settings from here.
//
// One rule holds for every key:
//   - a whole-number setting takes an integer (a YAML 3, or 3.0); a decimal
//     (2.5), a string or a value out of its range is refused;
//   - a number setting takes an integer or a decimal within its range;
//   - a boolean setting takes true or false, nothing else;
//   - a list setting takes a list, or one string split on commas;
//   - a word setting (index) takes one of its words.
//
// A refused value keeps the default and adds a problem to Problems, naming
// the key, what it takes, what it got and the default in force. A key that
// is absent keeps the default silently. Keys llmwiki does not read are
// allowed and ignored (they stay in Raw).
type Settings struct {
	// ContextMaxLines is context.md's line cap (context_max_lines, 1 or
	// more).
	ContextMaxLines int
	// AutoIndex regenerates index.md in every write that changes the set of
	// pages or their title, summary or tags (index: auto, the default;
	// index: manual turns it off).
	AutoIndex bool
	// Retention is how long snapshots are kept (snapshot_keep_days,
	// snapshot_keep_last, 0 or more); the default keeps them all. See
	// [Store.PruneSnapshots].
	Retention Retention
	// Lang is the language of files that name none (lang), "" when unset.
	Lang string
	// CaptureSessions lets `llmwiki capture --if-enabled` save sessions
	// (capture_sessions).
	CaptureSessions bool
	// LintDisabled are the lint categories turned off (lint_disabled); lint
	// checks the names.
	LintDisabled []string
	// OrphanExempt are the pages that may have no inbound links
	// (orphan_exempt).
	OrphanExempt []string
	// StaleAfterDays: a page not updated for this many days is stale; 0
	// turns lint's age check off (stale_after_days).
	StaleAfterDays int
	// RequiredFrontmatter are the keys every page must have
	// (required_frontmatter).
	RequiredFrontmatter []string
	// MergeSimilarity is the shingle similarity, 0.5 to 1, at or above
	// which lint reports two pages as merge candidates (merge_similarity).
	MergeSimilarity float64
	// Review is the review mode (review: off, after or before; see
	// [ReviewOff], [ReviewAfter], [ReviewBefore]).
	Review string
	// Git is the git mode (git: off, commit or sync; see [GitOff],
	// [GitCommit], [GitSync]).
	Git string
	// GitHooks lets the repository's hooks run on llmwiki's own commits
	// (git_hooks; default false: hooks the wiki did not ask for never run).
	GitHooks bool
	// SyncInterval is how often serve syncs with the remote in the
	// background under git: sync (sync_interval_minutes, whole minutes; 0,
	// the default, turns the background sync off).
	SyncInterval time.Duration
	// Raw is schema.md's whole frontmatter.
	Raw map[string]any
	// Problems are the settings that were refused, one sentence each,
	// sorted.
	Problems []string
	// Err is why schema.md's frontmatter could not be read, if it could not;
	// the defaults are in force then.
	Err string
}

type configCache struct {
	mu    sync.Mutex
	mtime time.Time
	size  int64
	cfg   Settings
	ok    bool
}

// Settings returns the project's settings. It re-reads schema.md when its size
// or modification time changed.
func (s *Store) Settings() Settings {
	cc := &s.cfgCache
	cc.mu.Lock()
	defer cc.mu.Unlock()
	fi, err := s.root.Stat("schema.md")
	if err == nil && cc.ok && fi.ModTime().Equal(cc.mtime) && fi.Size() == cc.size {
		return cc.cfg
	}
	cfg := ParseSettings(nil)
	if err != nil {
		if !os.IsNotExist(err) {
			cfg.Err = "schema.md cannot be read"
		}
		return cfg
	}
	data, _, rerr := s.ReadRaw("schema.md")
	if rerr == nil {
		d, perr := mdoc.ParseDoc("schema.md", data)
		if perr != nil {
			cfg.Err = store.PublicMessage(perr)
		} else if d.Meta != nil {
			cfg = ParseSettings(d.Meta)
		}
	}
	cc.cfg, cc.mtime, cc.size, cc.ok = cfg, fi.ModTime(), fi.Size(), true
	return cfg
}

// ParseSettings reads the settings from meta, schema.md's frontmatter (nil
// gives the defaults), by the rule of [Settings].
func ParseSettings(meta map[string]any) Settings {
	if meta == nil {
		meta = map[string]any{}
	}
	p := settingsParser{meta: meta}
	cfg := Settings{
		ContextMaxLines: p.whole("context_max_lines", DefaultContextMaxLines, 1),
		AutoIndex:       p.word("index", "auto", "auto", "manual") == "auto",
		Retention: Retention{
			KeepDays: p.whole("snapshot_keep_days", 0, 0),
			KeepLast: p.whole("snapshot_keep_last", 0, 0),
		},
		Lang:                p.text("lang"),
		CaptureSessions:     p.boolean("capture_sessions", false),
		LintDisabled:        p.list("lint_disabled", nil),
		OrphanExempt:        p.list("orphan_exempt", nil),
		StaleAfterDays:      p.whole("stale_after_days", DefaultStaleAfterDays, 0),
		RequiredFrontmatter: p.list("required_frontmatter", DefaultRequiredFrontmatter),
		MergeSimilarity:     p.number("merge_similarity", DefaultMergeSimilarity, 0.5, 1),
		Review:              p.review(),
		Git:                 p.git(),
		GitHooks:            p.boolean("git_hooks", false),
		SyncInterval:        time.Duration(p.whole("sync_interval_minutes", 0, 0)) * time.Minute,
		Raw:                 meta,
	}
	sort.Strings(p.problems)
	cfg.Problems = p.problems
	return cfg
}

// settingsParser reads typed settings from a frontmatter map, collecting
// the problems of refused values.
type settingsParser struct {
	meta     map[string]any
	problems []string
}

func (p *settingsParser) refuse(key, takes string, got any, def any) {
	p.problems = append(p.problems, fmt.Sprintf("%s must be %s (got %v); using %v", key, takes, got, def))
}

// whole reads an integer setting of at least lo.
func (p *settingsParser) whole(key string, def, lo int) int {
	v, ok := p.meta[key]
	if !ok || v == nil {
		return def
	}
	var n int
	switch x := v.(type) {
	case int:
		n, ok = x, true
	case int64:
		n, ok = int(x), x >= math.MinInt && x <= math.MaxInt
	case uint64:
		n, ok = int(x), x <= math.MaxInt
	case float64:
		n, ok = int(x), x == math.Trunc(x) && math.Abs(x) < 1<<53
	default:
		ok = false
	}
	if !ok || n < lo {
		p.refuse(key, fmt.Sprintf("a whole number, %d or more", lo), v, def)
		return def
	}
	return n
}

// number reads a number setting from lo to hi.
func (p *settingsParser) number(key string, def, lo, hi float64) float64 {
	v, ok := p.meta[key]
	if !ok || v == nil {
		return def
	}
	var f float64
	switch x := v.(type) {
	case int:
		f, ok = float64(x), true
	case int64:
		f, ok = float64(x), true
	case uint64:
		f, ok = float64(x), true
	case float64:
		f, ok = x, true
	default:
		ok = false
	}
	if !ok || math.IsNaN(f) || f < lo || f > hi {
		p.refuse(key, fmt.Sprintf("a number from %v to %v", lo, hi), v, def)
		return def
	}
	return f
}

// boolean reads a true/false setting.
func (p *settingsParser) boolean(key string, def bool) bool {
	v, ok := p.meta[key]
	if !ok || v == nil {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		p.refuse(key, "true or false", v, def)
		return def
	}
	return b
}

// list reads a list setting: a list, or one string split on commas.
func (p *settingsParser) list(key string, def []string) []string {
	v, ok := p.meta[key]
	if !ok || v == nil {
		return append([]string(nil), def...)
	}
	switch v.(type) {
	case []any, []string, string:
		return mdoc.MetaList(p.meta, key)
	}
	p.refuse(key, "a list", v, def)
	return append([]string(nil), def...)
}

// word reads a setting that is one of words.
func (p *settingsParser) word(key, def string, words ...string) string {
	v, ok := p.meta[key]
	if !ok || v == nil {
		return def
	}
	if s, isStr := v.(string); isStr {
		for _, w := range words {
			if s == w {
				return s
			}
		}
	}
	p.refuse(key, fmt.Sprintf("one of %v", words), v, def)
	return def
}

// review reads the review mode; a YAML 1.1 "off" read as false is off.
func (p *settingsParser) review() string {
	if b, ok := p.meta["review"].(bool); ok && !b {
		return ReviewOff
	}
	return p.word("review", DefaultReview, ReviewOff, ReviewAfter, ReviewBefore)
}

// git reads the git mode; YAML's false (git: false) is off.
func (p *settingsParser) git() string {
	if b, ok := p.meta["git"].(bool); ok && !b {
		return GitOff
	}
	return p.word("git", GitOff, GitOff, GitCommit, GitSync)
}

// text reads a string setting.
func (p *settingsParser) text(key string) string {
	v, ok := p.meta[key]
	if !ok || v == nil {
		return ""
	}
	if s, isStr := v.(string); isStr {
		return s
	}
	p.refuse(key, "a word", v, `""`)
	return ""
}
