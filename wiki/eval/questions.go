package eval

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/internal/quote"
	"github.com/llmwiki/llmwiki/wiki"
)

// AnswerTool is the tool whose calls close a question.
const AnswerTool = "file_answer"

// How audited tool calls count (see [Question]):
//   - orientation: load_project returns schema.md, guidelines.md and
//     context.md to every workflow whether or not the question needs them, so
//     its reads are neither wasted nor a sign of needing sources;
//   - search: search_wiki's query is recorded; paths it returns (in "reads"
//     or extra "results") are search results, not file reads;
//   - reading: read_page, gather_sources and any tool named read_*: the
//     paths in "reads" are file reads;
//   - every other tool (writes, lint, plans) does not count toward a
//     question's reads.
var (
	orientationTools = map[string]bool{"load_project": true}
	searchTools      = map[string]bool{"search_wiki": true}
	readingTools     = map[string]bool{"read_page": true, "gather_sources": true}
)

func isReadingTool(tool string) bool {
	return readingTools[tool] || strings.HasPrefix(tool, "read_")
}

// Kinds of file a question can read, by layer.
func isPageLayer(rel string) bool {
	l := wiki.LayerOf(rel)
	return l == wiki.LayerPages || l == wiki.LayerContext
}

func isSourceLayer(rel string) bool {
	l := wiki.LayerOf(rel)
	return l == wiki.LayerSources || l == wiki.LayerResearch
}

// Question is one question a session answered, with what it took. Facts
// come from the audit log (or a transcript); the judged fields (Hit, Wasted,
// Checks) are set by [Evaluate].
type Question struct {
	// ID is the answer id (the latest when the answer was corrected); ""
	// for a transcript question answered without file_answer.
	ID string `json:"id,omitempty"`
	// Source is "audit" or "claude-transcript".
	Source   string `json:"source"`
	Session  string `json:"session"`
	Client   string `json:"client,omitempty"`
	Question string `json:"question"`
	Topic    string `json:"topic,omitempty"`
	Answer   string `json:"answer"`
	// Start is the first call of the question; End is when its (last)
	// answer was filed. DurationMS is End-Start in milliseconds.
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	DurationMS float64   `json:"duration_ms"`
	// Calls is the number of tool calls the question took, file_answer
	// included.
	Calls int `json:"calls"`
	// Searches are the search queries made, in order.
	Searches []string `json:"searches"`
	// SearchResults are paths search returned (when the audit line has them).
	SearchResults []string `json:"search_results,omitempty"`
	// EmptySearches are the searches that found nothing (extra "hits": 0).
	EmptySearches []string `json:"empty_searches,omitempty"`
	// PagesRead and SourcesRead are the distinct files read, in first-read
	// order: pages/ and context.md; sources/ (research notes included).
	PagesRead   []string `json:"pages_read"`
	SourcesRead []string `json:"sources_read"`
	// Citations as filed, with the verdict at filing time (not in the JSON
	// report: Checks has each with eval's verdict). Filed is false when only
	// the audit line's arguments were available.
	Citations []CitationCheck `json:"-"`
	Filed     bool            `json:"filed"`
	// Revisions counts answers that corrected an earlier one (replaces, or
	// the same question filed again in the session).
	Revisions int `json:"revisions"`

	// Judged by Evaluate:

	// Checks are the citations checked now (see [CitationResult]).
	Checks []CitationResult `json:"citation_checks"`
	// Hit is true when the question was answered from the wiki (pages,
	// context.md, search results) without reading or citing a raw source.
	Hit bool `json:"wiki_hit"`
	// FromNothing is true when nothing was read or searched in the session
	// up to the answer: not a wiki hit, and not a source gap either.
	FromNothing bool `json:"answered_from_nothing"`
	// Wasted are the files read but never cited. For a transcript question
	// (whose answer names files rather than quoting them) the reads are
	// wasted only when the answer names none of them: all or none.
	Wasted []string `json:"wasted_reads"`
	// TopicKey groups questions on one topic (see topicKey).
	TopicKey string `json:"topic_key"`

	seq   int
	seen  []string // every path whose content a call returned (orientation included)
	cited []string // paths a transcript answer names (no quote to check)
	// filedQuestion is the question a transcript's file_answer call gave.
	filedQuestion string
	// lazy: Citations were rebuilt from the audit line (all verified at
	// filing); the stored record, with each file's sha256, is read only
	// when a citation fails now.
	lazy bool
}

// Unfiled counts work that ended without an answer being filed: the calls
// a session made after its last file_answer (or in a session that never
// filed one) that searched or read files.
type Unfiled struct {
	Sessions int `json:"sessions"`
	Calls    int `json:"calls"`
	Reads    int `json:"reads"`
}

// call is the compact form of one audit line that grouping needs.
type call struct {
	t       time.Time
	end     time.Time
	seq     int
	tool    string
	query   string
	empty   bool // a search that found nothing
	reads   []string
	seen    []string
	results []string
	ans     *AnswerRecord
	filed   bool // ans holds the verdicts made at filing
	lazy    bool // ans was rebuilt from the audit line; the store has the record
}

// grouper builds questions from audit lines and stored answers.
type grouper struct {
	answers  *answerIndex
	used     map[string]bool
	sessions map[string][]*call
	client   map[string]string
	seq      int
}

func newGrouper(answers *answerIndex) *grouper {
	return &grouper{answers: answers, used: map[string]bool{}, sessions: map[string][]*call{}, client: map[string]string{}}
}

// add takes one audit line.
func (g *grouper) add(r *AuditLine) {
	if r.Tool == "internal" || strings.HasPrefix(r.Tool, "internal:") || strings.HasPrefix(r.Tool, "cli:") || r.Session == "" {
		return
	}
	g.seq++
	c := &call{t: r.Time, end: r.Time.Add(time.Duration(r.DurationMS * float64(time.Millisecond))), seq: g.seq, tool: r.Tool}
	ok := r.Outcome == "ok"
	var args, extra map[string]any
	if ok && (r.Tool == AnswerTool || searchTools[r.Tool]) {
		_ = json.Unmarshal(r.Args, &args)
		_ = json.Unmarshal(r.Extra, &extra)
	}
	switch {
	case r.Tool == AnswerTool:
		if !ok {
			break
		}
		id, _ := extra["answer_id"].(string)
		a, complete := answerFromArgs(id, r, args)
		c.ans = a
		if !g.answers.has(id) {
			break
		}
		g.used[id] = true
		// The stored record adds the verdicts made at filing. When the
		// arguments were kept whole and every citation verified then
		// (extra: verified == citations), it is read only if a citation
		// fails now (see judgeQuestions).
		n, _ := extra["citations"].(float64)
		v, _ := extra["verified"].(float64)
		if complete && int(n) == len(a.Citations) && v == n {
			for i := range a.Citations {
				a.Citations[i].Verified = true
			}
			c.filed, c.lazy = true, true
		} else if rec := g.answers.get(id); rec != nil {
			c.ans, c.filed = rec, true
		}
	case orientationTools[r.Tool]:
		if ok {
			c.seen = r.Reads
		}
	case searchTools[r.Tool]:
		if !ok {
			break
		}
		c.query = argText(args["query"])
		if hits, isNum := extra["hits"].(float64); isNum && hits == 0 {
			c.empty = true
		}
		c.results = append(c.results, r.Reads...)
		if res, isList := extra["results"].([]any); isList {
			for _, x := range res {
				if s, isStr := x.(string); isStr {
					c.results = append(c.results, s)
				}
			}
		}
	case isReadingTool(r.Tool):
		if ok {
			c.reads = r.Reads
		}
	}
	if r.Client != "" {
		g.client[r.Session] = r.Client
	}
	g.sessions[r.Session] = append(g.sessions[r.Session], c)
}

// addStoredOnly adds stored answers whose audit line was not seen (a torn
// or lost line) at their own time.
func (g *grouper) addStoredOnly() {
	var ids []string
	for id := range g.answers.paths {
		if !g.used[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		a := g.answers.get(id)
		if a == nil || (!g.answers.since.IsZero() && a.Time.Before(g.answers.since)) {
			continue
		}
		sess := a.Session
		if sess == "" {
			sess = "unknown"
		}
		g.seq++
		g.sessions[sess] = append(g.sessions[sess], &call{t: a.Time, end: a.Time, seq: g.seq, tool: AnswerTool, ans: a, filed: true})
		if a.Client != "" && g.client[sess] == "" {
			g.client[sess] = a.Client
		}
	}
}

// questions splits every session at its answers.
func (g *grouper) questions() ([]*Question, Unfiled) {
	g.addStoredOnly()
	var out []*Question
	var unf Unfiled
	ids := make([]string, 0, len(g.sessions))
	for s := range g.sessions {
		ids = append(ids, s)
	}
	sort.Strings(ids)
	for _, sess := range ids {
		calls := g.sessions[sess]
		sort.SliceStable(calls, func(i, j int) bool {
			if !calls[i].t.Equal(calls[j].t) {
				return calls[i].t.Before(calls[j].t)
			}
			return calls[i].seq < calls[j].seq
		})
		byID := map[string]*Question{}
		var last *Question
		var seg []*call
		for _, c := range calls {
			if c.ans == nil {
				seg = append(seg, c)
				continue
			}
			a := c.ans
			q := byID[a.Replaces]
			if q == nil && last != nil && sameQuestion(last.Question, a.Question) {
				q = last
			}
			if q == nil {
				q = &Question{Source: "audit", Session: sess, Client: g.client[sess], Start: c.t, seq: c.seq}
				if len(seg) > 0 {
					q.Start = seg[0].t
				}
				out = append(out, q)
			} else {
				q.Revisions++
			}
			for _, s := range seg {
				q.absorb(s)
			}
			q.Calls++
			q.ID, q.Question, q.Topic, q.Answer = a.ID, a.Question, a.Topic, a.Answer
			q.Citations, q.Filed, q.lazy = a.Citations, c.filed, c.lazy
			if c.end.After(q.End) {
				q.End = c.end
			}
			if a.ID != "" {
				byID[a.ID] = q
			}
			last = q
			seg = seg[:0]
		}
		// What is left after the last answer was never filed.
		reads := 0
		n := 0
		for _, s := range seg {
			if s.query != "" || len(s.reads) > 0 {
				n++
				reads += len(s.reads)
			}
		}
		if n > 0 {
			unf.Sessions++
			unf.Calls += n
			unf.Reads += reads
		}
	}
	for _, q := range out {
		q.DurationMS = float64(q.End.Sub(q.Start).Microseconds()) / 1000
	}
	return out, unf
}

// absorb adds one call's searches and reads to q.
func (q *Question) absorb(c *call) {
	q.Calls++
	if c.query != "" {
		q.Searches = append(q.Searches, c.query)
		if c.empty {
			q.EmptySearches = append(q.EmptySearches, c.query)
		}
	}
	q.SearchResults = addUnique(q.SearchResults, c.results...)
	q.seen = append(q.seen, c.seen...)
	for _, r := range c.reads {
		switch {
		case isPageLayer(r):
			q.PagesRead = addUnique(q.PagesRead, r)
		case isSourceLayer(r):
			q.SourcesRead = addUnique(q.SourcesRead, r)
		}
	}
}

func addUnique(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, x := range list {
			if x == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// sameQuestion reports whether two questions are the same text under the
// quote normalisation (case, spacing, punctuation marks around it).
func sameQuestion(a, b string) bool {
	na := strings.TrimRight(quote.Normalize(a), "?!. ")
	nb := strings.TrimRight(quote.Normalize(b), "?!. ")
	return na != "" && na == nb
}

// answerFromArgs rebuilds an answer from file_answer's audit arguments,
// normalised as file_answer stores them. Arguments over the audit size
// limit were replaced by their length and hash; they are shown as such,
// and complete is false.
func answerFromArgs(id string, r *AuditLine, args map[string]any) (a *AnswerRecord, complete bool) {
	complete = true
	text := func(v any) string {
		if _, isStr := v.(string); v != nil && !isStr {
			complete = false
		}
		return argText(v)
	}
	a = &AnswerRecord{ID: id, Time: r.Time, Session: r.Session, Client: r.Client,
		Question: strings.TrimSpace(text(args["question"])), Answer: strings.TrimSpace(text(args["answer"])),
		Topic: strings.Join(strings.Fields(text(args["topic"])), " "), Replaces: strings.TrimSpace(text(args["replaces"]))}
	if list, ok := args["citations"].([]any); ok {
		for _, x := range list {
			m, isMap := x.(map[string]any)
			if !isMap {
				complete = false
			}
			a.Citations = append(a.Citations, CitationCheck{Path: strings.TrimSpace(text(m["path"])), Quote: text(m["quote"])})
		}
	} else if args["citations"] != nil {
		complete = false
	}
	return a, complete
}

// argText returns a string argument, or a note for one the audit log
// replaced by its length and hash.
func argText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if n, ok := x["len"].(float64); ok {
			return fmt.Sprintf("(%d bytes, not kept in the audit log)", int(n))
		}
	}
	return ""
}
