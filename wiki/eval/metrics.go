package eval

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/internal/quote"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Options configure [Evaluate].
type Options struct {
	// Since limits the eval to calls and answers at or after it (zero: all).
	Since time.Time
	// Transcripts is a folder of Claude Code session transcripts (*.jsonl,
	// searched recursively) read as a second source of questions ("" for
	// none). See [ReadTranscripts].
	Transcripts string
	// Judge, when set, checks each answer against the full text of the files
	// its question read (see [Judge]).
	Judge Judge
	// JudgeMax caps how many questions the judge sees (newest first); 0
	// means 50.
	JudgeMax int
	// Progress, when set, is told what eval is doing (one line each).
	Progress func(string)
}

// MinTopicRepeats is how often a topic must be asked, without a page that
// covers it, to be reported as a gap.
const MinTopicRepeats = 3

// HitRateTarget is the wiki hit rate eval's guidelines aim for (llm-kb's eval loop:
// "Target: 80%+").
const HitRateTarget = 0.8

// Report is everything one eval run found. It is written as
// eval-report.json; eval-report.md renders it for people.
type Report struct {
	Generated time.Time `json:"generated"`
	// Since is the start of the window ("" for the whole log).
	Since       string           `json:"since,omitempty"`
	AuditLog    LogStats         `json:"audit_log"`
	Transcripts *TranscriptStats `json:"transcripts,omitempty"`
	// BadAnswerRecords counts eval-store files that could not be read.
	BadAnswerRecords int         `json:"bad_answer_records,omitempty"`
	Summary          Summary     `json:"summary"`
	MostRead         []FileCount `json:"most_read"`
	Errors           []Issue     `json:"errors"`
	Warnings         []Issue     `json:"warnings"`
	Gaps             Gaps        `json:"gaps"`
	// Trend is the summary of earlier runs, oldest first, then this one.
	Trend     []RunSummary `json:"trend"`
	Unfiled   Unfiled      `json:"unfiled"`
	Judge     *JudgeStats  `json:"judge,omitempty"`
	Questions []*Question  `json:"questions"`
}

// Summary holds the headline numbers. Rates are fractions in [0, 1].
type Summary struct {
	// Queries is the number of answered questions; Sessions the sessions
	// they came from.
	Queries  int `json:"queries"`
	Sessions int `json:"sessions"`
	// Hits are questions answered from the wiki without reading or citing
	// a raw source (pages, context.md, search results); HitRate =
	// Hits/Queries. FromNothing are questions answered with nothing read or
	// searched in the session: neither hits nor NeededSources.
	Hits          int     `json:"wiki_hits"`
	HitRate       float64 `json:"wiki_hit_rate"`
	NeededSources int     `json:"needed_sources"`
	FromNothing   int     `json:"answered_from_nothing"`
	// FileReads is the sum over questions of distinct files read;
	// WastedReads the sum of those never cited by the question's answer.
	FileReads   int `json:"file_reads"`
	WastedReads int `json:"wasted_reads"`
	// AvgDurationMS is the mean question duration (first call to answer).
	AvgDurationMS float64 `json:"avg_duration_ms"`
	Searches      int     `json:"searches"`
	// Citations counts citations of the latest answers; Verified those
	// whose quote was found; CitationErrors those that were wrong when the
	// answer was given; StaleCitations those right then whose file changed.
	Citations         int     `json:"citations"`
	CitationsVerified int     `json:"citations_verified"`
	CitationErrors    int     `json:"citation_errors"`
	StaleCitations    int     `json:"stale_citations"`
	CitationValidity  float64 `json:"citation_validity"`
	Uncited           int     `json:"answers_without_citations"`
	GapCount          int     `json:"gaps"`
	ErrorCount        int     `json:"errors"`
	WarningCount      int     `json:"warnings"`
}

// FileCount is how many questions read one file.
type FileCount struct {
	Path      string `json:"path"`
	Questions int    `json:"questions"`
}

// Issue is one error or warning, tied to the question that produced it.
type Issue struct {
	// Kind: "citation" (a quote not found, or not checkable), "uncited"
	// (an answer without citations), "cited-unread" (a file cited but never
	// read in the session), "stale-citation" (right when given, the file
	// changed since), "contradiction" and other judge kinds.
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	// Title is one line saying what is wrong.
	Title      string   `json:"title"`
	Question   string   `json:"question,omitempty"`
	QuestionID string   `json:"question_id,omitempty"`
	Session    string   `json:"session,omitempty"`
	Searches   []string `json:"searches,omitempty"`
	Path       string   `json:"path,omitempty"`
	Quote      string   `json:"quote,omitempty"`
	Detail     string   `json:"detail,omitempty"`
	// Recommendation is what to do about it.
	Recommendation string `json:"recommendation,omitempty"`
}

// Gaps are what the wiki lacks.
type Gaps struct {
	// NeededSources are questions answered from raw sources.
	NeededSources []SourceGap `json:"needed_sources"`
	// RepeatedTopics are topics asked MinTopicRepeats or more times that no
	// page covers.
	RepeatedTopics []TopicGap `json:"repeated_topics"`
	// EmptySearches are searches that found nothing, with their question.
	EmptySearches []SearchGap `json:"empty_searches"`
	// DanglingLinks are wikilinks in pages that resolve to nothing.
	DanglingLinks []DanglingLink `json:"dangling_links"`
	// LinkCheck names how dangling links were found.
	LinkCheck string `json:"link_check"`
	// Judge are gaps a judge model reported.
	Judge []Issue `json:"judge,omitempty"`
}

// SourceGap is a question that needed raw sources.
type SourceGap struct {
	Question   string   `json:"question"`
	QuestionID string   `json:"question_id,omitempty"`
	Topic      string   `json:"topic"`
	Sources    []string `json:"sources"`
}

// SearchGap is a search that found nothing.
type SearchGap struct {
	Query      string `json:"query"`
	Question   string `json:"question"`
	QuestionID string `json:"question_id,omitempty"`
}

// TopicGap is a topic asked again and again without a page.
type TopicGap struct {
	Topic string `json:"topic"`
	Key   string `json:"key"`
	Asked int    `json:"asked"`
	// Questions are up to five of the questions asked, newest first.
	Questions []string `json:"questions"`
}

// CitationResult is one citation as eval judged it.
type CitationResult struct {
	Path  string `json:"path"`
	Quote string `json:"quote"`
	// Status is "verified" (found in the file now), "stale" (verified when
	// the answer was filed; the file has changed since and no longer holds
	// it) or "error" (wrong when the answer was given).
	Status  string `json:"status"`
	Line    int    `json:"line,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Snapshot is the stored version the quote was verified in, for a
	// stale citation when one exists.
	Snapshot string `json:"snapshot,omitempty"`
}

// Evaluate reads the audit log, the eval store and (optionally) transcripts
// and computes the report. It writes nothing; see [Write].
func Evaluate(ctx context.Context, st *wiki.Store, graph *links.Graph, opts Options) (*Report, error) {
	say := opts.Progress
	if say == nil {
		say = func(string) {}
	}
	rep := &Report{Generated: st.Now(), Errors: []Issue{}, Warnings: []Issue{}, MostRead: []FileCount{}, Questions: []*Question{}}
	if !opts.Since.IsZero() {
		rep.Since = opts.Since.UTC().Format(time.RFC3339)
	}
	answers, err := listAnswers(st, opts.Since)
	if err != nil {
		return nil, err
	}
	g := newGrouper(answers)
	say("Reading the audit log...")
	rep.AuditLog, err = ReadAudit(st, opts.Since, g.add)
	if err != nil {
		return nil, err
	}
	qs, unf := g.questions()
	rep.Unfiled = unf
	if opts.Transcripts != "" {
		say("Reading Claude Code transcripts...")
		tq, ts, err := ReadTranscripts(opts.Transcripts, st, opts.Since)
		if err != nil {
			return nil, err
		}
		tq, ts.Duplicates = dropCovered(tq, qs)
		ts.Used = len(tq)
		rep.Transcripts = &ts
		qs = append(qs, tq...)
	}
	sort.SliceStable(qs, func(i, j int) bool {
		if !qs[i].Start.Equal(qs[j].Start) {
			return qs[i].Start.Before(qs[j].Start)
		}
		if qs[i].Session != qs[j].Session {
			return qs[i].Session < qs[j].Session
		}
		return qs[i].seq < qs[j].seq
	})
	rep.Questions = qs
	say(fmt.Sprintf("Found %s across %s", english.Count(len(qs), "answered question"), english.Count(countSessions(qs), "session")))
	v := newVerifier(st)
	judgeQuestions(rep, st, v, answers)
	rep.BadAnswerRecords = answers.bad
	if rep.Gaps, err = findGaps(ctx, st, graph, qs); err != nil {
		return nil, err
	}
	if opts.Judge != nil {
		rep.Judge = runJudge(ctx, st, opts, rep, say)
	}
	summarise(rep)
	prev, err := loadRuns(st)
	if err != nil {
		return nil, err
	}
	if len(prev) > 9 {
		prev = prev[len(prev)-9:]
	}
	rep.Trend = append(prev, summaryOf(rep))
	return rep, nil
}

func countSessions(qs []*Question) int {
	seen := map[string]bool{}
	for _, q := range qs {
		seen[q.Source+"\x00"+q.Session] = true
	}
	return len(seen)
}

// judgeQuestions checks citations, wasted reads, hits and topics for every
// question, adding errors and warnings to rep.
func judgeQuestions(rep *Report, st *wiki.Store, v *verifier, answers *answerIndex) {
	sessionSeen := map[string]map[string]bool{}
	for _, q := range rep.Questions {
		seen := sessionSeen[q.Source+"\x00"+q.Session]
		if seen == nil {
			seen = map[string]bool{}
			sessionSeen[q.Source+"\x00"+q.Session] = seen
		}
		for _, p := range q.PagesRead {
			seen[p] = true
		}
		for _, p := range q.SourcesRead {
			seen[p] = true
		}
		for _, p := range q.SearchResults {
			seen[p] = true
		}
		for _, p := range q.seen {
			seen[p] = true
		}
		fromNothing := len(seen) == 0 && len(q.Searches) == 0
		q.TopicKey = topicKey(q.Topic, q.Question)
		cited := map[string]bool{}
		q.Checks = make([]CitationResult, 0, len(q.Citations))
		if q.lazy {
			// The record is needed only when a citation fails now (for the
			// file's sha256 at filing: stale or wrong).
			for _, c := range q.Citations {
				if !v.check(c.Path, c.Quote).Verified {
					if rec := answers.get(q.ID); rec != nil && len(rec.Citations) == len(q.Citations) {
						q.Citations = rec.Citations
					}
					break
				}
			}
		}
		for i, c := range q.Citations {
			cr := checkCitation(st, v, c, q.Filed)
			q.Checks = append(q.Checks, cr)
			cited[cr.Path] = true
			issue := Issue{Question: q.Question, QuestionID: q.ID, Session: q.Session, Searches: q.Searches, Path: cr.Path, Quote: c.Quote}
			switch cr.Status {
			case "error":
				issue.Kind, issue.Severity = "citation", "error"
				issue.Title = shortProblem(cr.Problem)
				issue.Detail = fmt.Sprintf("Citation %d of the answer: %s", i+1, cr.Problem)
				issue.Recommendation = "Copy quotes verbatim from the file you read; fix unverified citations (file_answer reports them) before answering"
				rep.Errors = append(rep.Errors, issue)
			case "stale":
				issue.Kind, issue.Severity = "stale-citation", "warning"
				issue.Title = fmt.Sprintf("citation %d verified when answered, but %s has changed since", i+1, cr.Path)
				issue.Recommendation = "Re-check answers that rely on " + cr.Path
				rep.Warnings = append(rep.Warnings, issue)
			}
			if cr.Status != "error" && !seen[cr.Path] && q.Source == "audit" {
				issue.Kind, issue.Severity = "cited-unread", "warning"
				issue.Title = "cited " + cr.Path + " without reading it in the session"
				issue.Recommendation = "Read a file (read_page) before citing it"
				rep.Warnings = append(rep.Warnings, issue)
			}
		}
		for _, p := range q.cited {
			cited[p] = true
		}
		if len(q.Citations) == 0 && q.Source == "audit" {
			rep.Warnings = append(rep.Warnings, Issue{Kind: "uncited", Severity: "warning", Title: "answer filed without citations",
				Question: q.Question, QuestionID: q.ID, Session: q.Session, Searches: q.Searches,
				Recommendation: "Cite the file and a verbatim quote for every claim"})
		}
		q.Wasted = []string{}
		needed := false
		reads := append(append([]string{}, q.PagesRead...), q.SourcesRead...)
		citesRead := false
		for _, p := range reads {
			citesRead = citesRead || cited[p]
		}
		for _, p := range reads {
			// A transcript answer names the files it used, when it does, in
			// prose: one named read shows the reading served the answer.
			if !cited[p] && (q.Source != "claude-transcript" || !citesRead) {
				q.Wasted = append(q.Wasted, p)
			}
		}
		if len(q.SourcesRead) > 0 {
			needed = true
		}
		for p := range cited {
			if isSourceLayer(p) {
				needed = true
			}
		}
		q.FromNothing = fromNothing
		q.Hit = !needed && !fromNothing
	}
}

// shortProblem is a problem message without its advice (after "; " or
// " (").
func shortProblem(p string) string {
	for _, sep := range []string{"; ", " ("} {
		if i := strings.Index(p, sep); i > 0 {
			p = p[:i]
		}
	}
	return p
}

// checkCitation judges one filed citation against the file now, falling
// back to the verdict made when the answer was filed.
func checkCitation(st *wiki.Store, v *verifier, c CitationCheck, filed bool) CitationResult {
	now := v.check(c.Path, c.Quote)
	cr := CitationResult{Path: now.Path, Quote: c.Quote, Line: now.Line}
	switch {
	case filed && !c.Verified:
		cr.Status, cr.Problem, cr.Line = "error", c.Problem, 0
		if cr.Problem == "" {
			cr.Problem = "did not verify when the answer was filed"
		}
		if now.Verified {
			cr.Problem += " (the file has changed since and now holds the quote)"
		}
	case now.Verified:
		cr.Status = "verified"
	case filed && c.Verified && c.SHA256 != "" && c.SHA256 != now.SHA256:
		cr.Status, cr.Line = "stale", c.Line
		cr.Problem = "the file changed after the answer: " + now.Problem
		cr.Snapshot = snapshotWith(st, c.Path, c.SHA256, c.Quote)
	default:
		cr.Status, cr.Problem = "error", now.Problem
	}
	return cr
}

// snapshotWith returns the snapshot of rel whose content has sha256 sum and
// holds q, or "".
func snapshotWith(st *wiki.Store, rel, sum, q string) string {
	snaps, err := st.Snapshots(rel)
	if err != nil || len(sum) < 16 {
		return ""
	}
	for _, s := range snaps {
		if s.SHA256Prefix != sum[:16] {
			continue
		}
		data, ok, err := st.ReadState(s.Snapshot)
		if err != nil || !ok || store.SHA256Hex(data) != sum {
			continue
		}
		if _, found := checkText(q, string(data)); found {
			return s.Snapshot
		}
	}
	return ""
}

// findGaps lists questions that needed sources, topics asked again and
// again without a page, and dangling links.
func findGaps(ctx context.Context, st *wiki.Store, graph *links.Graph, qs []*Question) (Gaps, error) {
	g := Gaps{NeededSources: []SourceGap{}, RepeatedTopics: []TopicGap{}, EmptySearches: []SearchGap{}, DanglingLinks: []DanglingLink{}}
	for _, q := range qs {
		for _, s := range q.EmptySearches {
			g.EmptySearches = append(g.EmptySearches, SearchGap{Query: s, Question: q.Question, QuestionID: q.ID})
		}
		if q.Hit || q.FromNothing {
			continue
		}
		srcs := append([]string{}, q.SourcesRead...)
		for _, c := range q.Checks {
			if isSourceLayer(c.Path) {
				srcs = addUnique(srcs, c.Path)
			}
		}
		g.NeededSources = append(g.NeededSources, SourceGap{Question: q.Question, QuestionID: q.ID, Topic: topicLabel(q), Sources: srcs})
	}
	groups := map[string][]*Question{}
	var keys []string
	for _, q := range qs {
		if q.TopicKey == "" {
			continue
		}
		if groups[q.TopicKey] == nil {
			keys = append(keys, q.TopicKey)
		}
		groups[q.TopicKey] = append(groups[q.TopicKey], q)
	}
	pages := newPageIndex(st)
	for _, k := range keys {
		group := groups[k]
		if len(group) < MinTopicRepeats || topicCovered(pages, group) {
			continue
		}
		tg := TopicGap{Key: k, Asked: len(group), Topic: topicLabel(group[len(group)-1])}
		for i := len(group) - 1; i >= 0 && len(tg.Questions) < 5; i-- {
			tg.Questions = append(tg.Questions, group[i].Question)
		}
		g.RepeatedTopics = append(g.RepeatedTopics, tg)
	}
	sort.SliceStable(g.RepeatedTopics, func(i, j int) bool {
		if g.RepeatedTopics[i].Asked != g.RepeatedTopics[j].Asked {
			return g.RepeatedTopics[i].Asked > g.RepeatedTopics[j].Asked
		}
		return g.RepeatedTopics[i].Key < g.RepeatedTopics[j].Key
	})
	var err error
	g.DanglingLinks, g.LinkCheck, err = danglingLinks(ctx, graph)
	return g, err
}

// topicCovered reports whether a page covers a group of questions on one
// topic: a page resolves by the topic's name (title, slug or alias), or a
// question of the group was a wiki hit that read or cited a page under
// pages/.
func topicCovered(pages pageIndex, group []*Question) bool {
	for _, q := range group {
		if q.Topic != "" && pages.has(q.Topic) {
			return true
		}
		if !q.Hit {
			continue
		}
		for _, p := range q.PagesRead {
			if wiki.LayerOf(p) == wiki.LayerPages {
				return true
			}
		}
		for _, c := range q.Checks {
			if wiki.LayerOf(c.Path) == wiki.LayerPages && c.Status != "error" {
				return true
			}
		}
	}
	return false
}

// pageIndex answers "is there a page by this name" the way
// [wiki.Store.ResolvePage] does (slug in any case or separator style, title
// or alias, case-insensitive), from one scan of the catalogue.
type pageIndex map[string]bool

func newPageIndex(st *wiki.Store) pageIndex {
	idx := pageIndex{}
	pages, err := st.Pages()
	if err != nil {
		return idx
	}
	for _, p := range pages {
		idx["k:"+wiki.PageKey(p.Path)] = true
		idx["n:"+strings.ToLower(p.Title)] = true
		for _, a := range p.Aliases {
			idx["n:"+strings.ToLower(a)] = true
		}
	}
	return idx
}

func (idx pageIndex) has(name string) bool {
	name = strings.TrimSpace(name)
	return idx["k:"+wiki.PageKey("pages/"+name+".md")] || idx["n:"+strings.ToLower(name)]
}

// topicLabel names a question's topic for people: the topic the agent gave,
// else the question itself.
func topicLabel(q *Question) string {
	if q.Topic != "" {
		return q.Topic
	}
	return q.Question
}

// stopwords are dropped when a topic key is derived from a question (built
// on first use).
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for from with without about into over under
		is are was were be been being am do does did done doing have has had having can could should would will shall may might must
		what whats which who whom whose when where why how i me my mine we us our you your it its this that these those there here
		they them their he she his her not no yes please tell explain show give list describe define mean means meaning
		use using used work works get set make vs versus than then so such some any all each every also just only more most
		between difference differences way ways thing things s t`) {
		m[w] = true
	}
	return m
})

// topicKey groups questions on one topic: the content words of the topic
// the agent gave (or, without one, of the question), lowercased under the
// quote normalisation, with stopwords and a plural "s" dropped, sorted and
// de-duplicated. "How do I set up Sync?" and "set up sync how" share the
// key "set sync up".
func topicKey(topic, question string) string {
	text := topic
	if strings.TrimSpace(text) == "" {
		text = question
	}
	words := strings.FieldsFunc(quote.Normalize(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	set := map[string]bool{}
	for _, w := range words {
		if stopwords()[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		set[w] = true
	}
	if len(set) == 0 {
		return strings.Join(words, " ")
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// summarise fills rep.Summary and rep.MostRead from the judged questions.
func summarise(rep *Report) {
	s := &rep.Summary
	s.Queries = len(rep.Questions)
	s.Sessions = countSessions(rep.Questions)
	var dur float64
	reads := map[string]int{}
	for _, q := range rep.Questions {
		switch {
		case q.FromNothing:
			s.FromNothing++
		case q.Hit:
			s.Hits++
		default:
			s.NeededSources++
		}
		s.FileReads += len(q.PagesRead) + len(q.SourcesRead)
		s.WastedReads += len(q.Wasted)
		dur += q.DurationMS
		s.Searches += len(q.Searches)
		for _, p := range q.PagesRead {
			reads[p]++
		}
		for _, p := range q.SourcesRead {
			reads[p]++
		}
		if len(q.Citations) == 0 && q.Source == "audit" {
			s.Uncited++
		}
		for _, c := range q.Checks {
			s.Citations++
			switch c.Status {
			case "verified":
				s.CitationsVerified++
			case "stale":
				s.StaleCitations++
			case "error":
				s.CitationErrors++
			}
		}
	}
	if s.Queries > 0 {
		s.HitRate = float64(s.Hits) / float64(s.Queries)
		s.AvgDurationMS = round1(dur / float64(s.Queries))
	}
	if s.Citations > 0 {
		s.CitationValidity = float64(s.Citations-s.CitationErrors) / float64(s.Citations)
	}
	for p, n := range reads {
		rep.MostRead = append(rep.MostRead, FileCount{Path: p, Questions: n})
	}
	sort.Slice(rep.MostRead, func(i, j int) bool {
		if rep.MostRead[i].Questions != rep.MostRead[j].Questions {
			return rep.MostRead[i].Questions > rep.MostRead[j].Questions
		}
		return rep.MostRead[i].Path < rep.MostRead[j].Path
	})
	if len(rep.MostRead) > 50 {
		rep.MostRead = rep.MostRead[:50]
	}
	s.GapCount = len(rep.Gaps.NeededSources) + len(rep.Gaps.RepeatedTopics) + len(rep.Gaps.EmptySearches) + len(rep.Gaps.DanglingLinks) + len(rep.Gaps.Judge)
	s.ErrorCount, s.WarningCount = len(rep.Errors), len(rep.Warnings)
}

func round1(x float64) float64 {
	return float64(int64(x*10+0.5)) / 10
}

// RunSummary is one run's headline numbers, kept under RunsDir for the
// trend across runs.
type RunSummary struct {
	Time           time.Time `json:"time"`
	Since          string    `json:"since,omitempty"`
	Queries        int       `json:"queries"`
	HitRate        float64   `json:"wiki_hit_rate"`
	WastedReads    int       `json:"wasted_reads"`
	CitationErrors int       `json:"citation_errors"`
	AvgDurationMS  float64   `json:"avg_duration_ms"`
	Gaps           int       `json:"gaps"`
}

func summaryOf(rep *Report) RunSummary {
	s := rep.Summary
	return RunSummary{Time: rep.Generated, Since: rep.Since, Queries: s.Queries, HitRate: s.HitRate, WastedReads: s.WastedReads,
		CitationErrors: s.CitationErrors, AvgDurationMS: s.AvgDurationMS, Gaps: s.GapCount}
}

// runFile is where a run's summary is kept.
func runFile(t time.Time) string {
	return path.Join(RunsDir, t.UTC().Format("20060102T150405.000000000Z")+".json")
}
