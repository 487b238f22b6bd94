// Package redact replaces secrets in text by markers, with gitleaks' rule
// list (https://github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT;
// the copy here is checked against the module by TestRulesAreGitleaks) and
// a few rules of its own for what a conversation holds and gitleaks' rules,
// made for source code, let through (extra.toml).
//
// The matching follows gitleaks' detector on a fragment without a path or
// commit: a rule runs when one of its keywords is in the text (lower case)
// or it has none; rules bound to file paths never run; the secret is the
// rule's secretGroup, else its first non-empty group, else the whole match;
// a secret whose Shannon entropy is at or below the rule's entropy is not
// one; the global allowlists and the rule's own (regexes on the secret, the
// match or the line, stopwords, AND/OR conditions) let a match go. Unlike
// gitleaks it ignores "gitleaks:allow" comments (a transcript quoting one
// must not keep its secret) and does not decode base64 or hex.
//
// The rule list is parsed and each rule's expression compiled on first use
// only, so linking the package costs a program's start nothing.
package redact

import (
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// GitleaksVersion is the gitleaks release gitleaks.toml is copied from;
// after changing it, go generate copies that release's files.
const GitleaksVersion = "v8.30.1"

//go:generate go test -run TestRulesAreGitleaks -update .

var (
	//go:embed gitleaks.toml
	gitleaksRules string
	//go:embed extra.toml
	extraRules string
)

// Marker is what a secret is replaced by: "[REDACTED:" + rule id + "]".
func Marker(rule string) string { return "[REDACTED:" + rule + "]" }

// markerRE finds markers already in a text, so a second pass leaves them
// (and what they replaced) alone.
var markerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[REDACTED:[\w.-]+\]`) })

// Counts is how many values were redacted, by rule id.
type Counts map[string]int

// Add adds o to c.
func (c Counts) Add(o Counts) {
	for k, v := range o {
		c[k] += v
	}
}

// Total is the number of values redacted.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// String lists the kinds with their counts, most first: "openai-api-key 2,
// jwt 1".
func (c Counts) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if c[keys[i]] != c[keys[j]] {
			return c[keys[i]] > c[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, c[k])
	}
	return strings.Join(parts, ", ")
}

// Redactor holds a parsed rule list. It is safe for concurrent use.
type Redactor struct {
	rules  []*rule
	global []*allowlist
}

// Default returns the redactor of gitleaks' rules and llmwiki's own; the
// first call parses them.
var Default = sync.OnceValues(func() (*Redactor, error) {
	r, err := New(gitleaksRules, extraRules)
	if err != nil {
		return nil, fmt.Errorf("secret rules: %w", err)
	}
	return r, nil
})

// New parses rule lists in gitleaks' format. Rules of later lists rank
// after earlier ones when two matches overlap; gitleaks' generic-api-key
// ranks after every specific rule of its list.
func New(lists ...string) (*Redactor, error) {
	r := &Redactor{}
	ids := map[string]*rule{}
	type targeted struct {
		a     *allowlist
		rules []string
	}
	var pending []targeted
	for i, src := range lists {
		var f fileDef
		md, err := toml.Decode(src, &f)
		if err != nil {
			return nil, err
		}
		if u := md.Undecoded(); len(u) > 0 {
			return nil, fmt.Errorf("list %d: unknown keys %v", i+1, u)
		}
		if f.Allowlist != nil {
			if len(f.Allowlists) > 0 {
				return nil, fmt.Errorf("list %d: [allowlist] cannot be used alongside [[allowlists]]", i+1)
			}
			f.Allowlists = append(f.Allowlists, *f.Allowlist)
		}
		for _, d := range f.Allowlists {
			a, err := d.compile()
			if err != nil {
				return nil, fmt.Errorf("list %d: [[allowlists]]: %w", i+1, err)
			}
			if len(d.TargetRules) > 0 {
				pending = append(pending, targeted{a, d.TargetRules})
			} else {
				r.global = append(r.global, a)
			}
		}
		for _, d := range f.Rules {
			if strings.TrimSpace(d.ID) == "" {
				return nil, fmt.Errorf("list %d: a rule has no id", i+1)
			}
			if ids[d.ID] != nil {
				return nil, fmt.Errorf("list %d: rule %s is defined twice", i+1, d.ID)
			}
			ru, err := d.compile(i*2 + boolInt(d.ID == "generic-api-key"))
			if err != nil {
				return nil, fmt.Errorf("list %d: rule %s: %w", i+1, d.ID, err)
			}
			ids[d.ID] = ru
			r.rules = append(r.rules, ru)
		}
	}
	for _, t := range pending {
		for _, id := range t.rules {
			ru := ids[id]
			if ru == nil {
				return nil, fmt.Errorf("[[allowlists]] target rule %q does not exist", id)
			}
			ru.allow = append(ru.allow, t.a)
		}
	}
	return r, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The TOML shapes of gitleaks' config (config/config.go's ViperConfig).
type fileDef struct {
	Title      string         `toml:"title"`
	MinVersion string         `toml:"minVersion"`
	Allowlist  *allowlistDef  `toml:"allowlist"`
	Allowlists []allowlistDef `toml:"allowlists"`
	Rules      []ruleDef      `toml:"rules"`
}

type ruleDef struct {
	ID          string         `toml:"id"`
	Description string         `toml:"description"`
	Regex       string         `toml:"regex"`
	Path        string         `toml:"path"`
	SecretGroup int            `toml:"secretGroup"`
	Entropy     number         `toml:"entropy"`
	Keywords    []string       `toml:"keywords"`
	Tags        []string       `toml:"tags"`
	Allowlist   *allowlistDef  `toml:"allowlist"`
	Allowlists  []allowlistDef `toml:"allowlists"`
	// Required makes a rule report only near the rules it names; a
	// redactor redacts the rule's match on its own, which hides more.
	Required []struct {
		ID            string `toml:"id"`
		WithinLines   *int   `toml:"withinLines"`
		WithinColumns *int   `toml:"withinColumns"`
	} `toml:"required"`
	SkipReport bool `toml:"skipReport"`
}

// number is a TOML integer or float (gitleaks writes entropy = 3).
type number float64

func (n *number) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		*n = number(x)
	case float64:
		*n = number(x)
	default:
		return fmt.Errorf("%v is not a number", v)
	}
	return nil
}

type allowlistDef struct {
	Description string   `toml:"description"`
	Condition   string   `toml:"condition"`
	Commits     []string `toml:"commits"`
	Paths       []string `toml:"paths"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	StopWords   []string `toml:"stopwords"`
	TargetRules []string `toml:"targetRules"`
}

type rule struct {
	id          string
	rank        int
	secretGroup int
	entropy     float64
	keywords    []string
	allow       []*allowlist
	// skip: a rule bound to file paths (or not reported on its own) never
	// matches a fragment without a path.
	skip bool
	src  string
	re   func() (*regexp.Regexp, error)
}

func (d ruleDef) compile(rank int) (*rule, error) {
	r := &rule{id: d.ID, rank: rank, secretGroup: d.SecretGroup, entropy: float64(d.Entropy), src: d.Regex, skip: d.Path != "" || d.Regex == "" || d.SkipReport}
	for _, k := range d.Keywords {
		r.keywords = append(r.keywords, strings.ToLower(k))
	}
	if d.Allowlist != nil {
		if len(d.Allowlists) > 0 {
			return nil, fmt.Errorf("[rules.allowlist] cannot be used alongside [[rules.allowlists]]")
		}
		d.Allowlists = append(d.Allowlists, *d.Allowlist)
	}
	for _, ad := range d.Allowlists {
		a, err := ad.compile()
		if err != nil {
			return nil, fmt.Errorf("[[rules.allowlists]]: %w", err)
		}
		r.allow = append(r.allow, a)
	}
	src := d.Regex
	r.re = sync.OnceValues(func() (*regexp.Regexp, error) { return regexp.Compile(src) })
	return r, nil
}

type allowlist struct {
	and bool
	// target is "secret", "match" or "line".
	target string
	// A list with paths or commits needs them (AND) or is about them only
	// (OR): a fragment without a path or commit never meets them.
	hasPaths  bool
	regexes   func() (*regexp.Regexp, error)
	hasRegex  bool
	stopWords []string
}

func (d allowlistDef) compile() (*allowlist, error) {
	a := &allowlist{hasPaths: len(d.Paths) > 0 || len(d.Commits) > 0, hasRegex: len(d.Regexes) > 0}
	switch strings.ToUpper(d.Condition) {
	case "AND", "&&":
		a.and = true
	case "", "OR", "||":
	default:
		return nil, fmt.Errorf("unknown condition %q", d.Condition)
	}
	switch d.RegexTarget {
	case "", "secret":
		a.target = "secret"
	case "match", "line":
		a.target = d.RegexTarget
	default:
		return nil, fmt.Errorf("unknown regexTarget %q", d.RegexTarget)
	}
	if !a.hasPaths && !a.hasRegex && len(d.StopWords) == 0 {
		return nil, fmt.Errorf("an allowlist needs commits, paths, regexes or stopwords")
	}
	for _, w := range d.StopWords {
		a.stopWords = append(a.stopWords, strings.ToLower(w))
	}
	// One alternation, as gitleaks joins them.
	joined := "(?:" + strings.Join(d.Regexes, ")|(?:") + ")"
	a.regexes = sync.OnceValues(func() (*regexp.Regexp, error) { return regexp.Compile(joined) })
	return a, nil
}

// allowed reports whether the allowlist lets the finding go.
func (a *allowlist) allowed(secret, match, line string) (bool, error) {
	regexOK := false
	if a.hasRegex {
		re, err := a.regexes()
		if err != nil {
			return false, err
		}
		t := secret
		switch a.target {
		case "match":
			t = match
		case "line":
			t = line
		}
		regexOK = t != "" && re.MatchString(t)
	}
	stopOK := false
	if len(a.stopWords) > 0 && secret != "" {
		ls := strings.ToLower(secret)
		for _, w := range a.stopWords {
			if strings.Contains(ls, w) {
				stopOK = true
				break
			}
		}
	}
	if !a.and {
		return regexOK || stopOK, nil
	}
	if a.hasPaths || (a.hasRegex && !regexOK) || (len(a.stopWords) > 0 && !stopOK) {
		return false, nil
	}
	return true, nil
}

type finding struct {
	start, end int
	rule       *rule
}

// Redact returns s with every secret the rules find replaced by its
// Marker, and how many were replaced by rule. Markers already in s are
// left as they are. An error (a rule list that does not compile) returns
// no text: the caller must not write s unredacted.
func (r *Redactor) Redact(s string) (string, Counts, error) {
	counts := Counts{}
	if s == "" {
		return s, counts, nil
	}
	lower := strings.ToLower(s)
	markers := markerRE().FindAllStringIndex(s, -1)
	var found []finding
	for _, ru := range r.rules {
		if ru.skip || !ru.relevant(lower) {
			continue
		}
		fs, err := r.match(ru, s, markers)
		if err != nil {
			return "", nil, fmt.Errorf("rule %s: %w", ru.id, err)
		}
		found = append(found, fs...)
	}
	if len(found) == 0 {
		return s, counts, nil
	}
	// Overlapping findings become one redaction, named after the most
	// specific rule among them (lowest rank, then the longest match).
	sort.Slice(found, func(i, j int) bool {
		if found[i].start != found[j].start {
			return found[i].start < found[j].start
		}
		return found[i].end > found[j].end
	})
	var merged []finding
	for _, f := range found {
		if n := len(merged); n > 0 && f.start < merged[n-1].end {
			m := &merged[n-1]
			if better(f, *m) {
				m.rule = f.rule
			}
			m.end = max(m.end, f.end)
			continue
		}
		merged = append(merged, f)
	}
	var b strings.Builder
	last := 0
	for _, m := range merged {
		b.WriteString(s[last:m.start])
		b.WriteString(Marker(m.rule.id))
		counts[m.rule.id]++
		last = m.end
	}
	b.WriteString(s[last:])
	return b.String(), counts, nil
}

func better(a, b finding) bool {
	if a.rule.rank != b.rule.rank {
		return a.rule.rank < b.rule.rank
	}
	return a.end-a.start > b.end-b.start
}

func (ru *rule) relevant(lower string) bool {
	if len(ru.keywords) == 0 {
		return true
	}
	for _, k := range ru.keywords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// match returns the rule's findings in s, as gitleaks' detectRule does.
func (r *Redactor) match(ru *rule, s string, markers [][]int) ([]finding, error) {
	re, err := ru.re()
	if err != nil {
		return nil, err
	}
	if ru.secretGroup > re.NumSubexp() {
		return nil, fmt.Errorf("secretGroup %d but the expression has %d groups", ru.secretGroup, re.NumSubexp())
	}
	var out []finding
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		// gitleaks trims newlines off the match.
		ms, me := m[0], m[1]
		for ms < me && s[ms] == '\n' {
			ms++
		}
		for me > ms && s[me-1] == '\n' {
			me--
		}
		if ms == me {
			continue
		}
		ss, se := ms, me
		if re.NumSubexp() > 0 {
			if g := ru.secretGroup; g > 0 {
				ss, se = m[2*g], m[2*g+1]
			} else {
				for g := 1; g <= re.NumSubexp(); g++ {
					if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
						ss, se = m[2*g], m[2*g+1]
						break
					}
				}
			}
			if ss < 0 || se <= ss {
				continue // the secret group matched nothing
			}
			ss, se = max(ss, ms), min(se, me)
			if se <= ss {
				continue
			}
		}
		secret := s[ss:se]
		if ru.entropy != 0 && entropy(secret) <= ru.entropy {
			continue
		}
		if overlaps(markers, ss, se) {
			continue
		}
		line := lineAround(s, ms, me)
		ok, err := allowedBy(r.global, secret, s[ms:me], line)
		if err == nil && !ok {
			ok, err = allowedBy(ru.allow, secret, s[ms:me], line)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, finding{ss, se, ru})
		}
	}
	return out, nil
}

func allowedBy(lists []*allowlist, secret, match, line string) (bool, error) {
	for _, a := range lists {
		ok, err := a.allowed(secret, match, line)
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

func overlaps(spans [][]int, start, end int) bool {
	for _, sp := range spans {
		if sp[0] < end && start < sp[1] {
			return true
		}
	}
	return false
}

// lineAround is the text of the lines the match [start, end) is on.
func lineAround(s string, start, end int) string {
	ls := strings.LastIndexByte(s[:start], '\n') + 1
	le := strings.IndexByte(s[end:], '\n')
	if le < 0 {
		return s[ls:]
	}
	return s[ls : end+le]
}

// entropy is the Shannon entropy of data in bits per character, as
// gitleaks computes it (rune counts over the byte length).
func entropy(data string) float64 {
	if data == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range data {
		counts[c]++
	}
	inv := 1 / float64(len(data))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}
