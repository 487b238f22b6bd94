package eval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/internal/quote"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Where the eval loop keeps its state (all under .llmwiki/, written with
// [wiki.Store.WriteState], never part of the wiki).
const (
	// Dir is the eval folder.
	Dir = ".llmwiki/eval"
	// AnswersDir holds one JSON file per file_answer call:
	// <AnswersDir>/<YYYY-MM-DD>/<answer id>.json (UTC date).
	AnswersDir = Dir + "/answers"
	// RunsDir holds one JSON summary per eval run, for the trend table.
	RunsDir = Dir + "/runs"
	// ReportMD and ReportJSON are the latest report, for people and programs.
	ReportMD   = Dir + "/eval-report.md"
	ReportJSON = Dir + "/eval-report.json"
)

// Limits of a file_answer call.
const (
	MaxQuestionChars = 4_000
	MaxAnswerChars   = 100_000
	MaxTopicChars    = 120
	MaxCitations     = 50
)

// Citation is one piece of evidence for an answer: a file of the wiki and a
// passage copied verbatim from it.
type Citation struct {
	// Path is project-relative ("pages/x.md", "sources/a.md", "context.md");
	// a page may also be named by slug or title.
	Path string `json:"path"`
	// Quote is 8–300 characters copied from the file (see package quote for
	// what the comparison ignores).
	Quote string `json:"quote"`
}

// CitationCheck is a citation with the result of checking it.
type CitationCheck struct {
	// Path is the file checked (resolved from what the caller named).
	Path  string `json:"path"`
	Quote string `json:"quote"`
	// Verified is true when the quote occurs in the file under the
	// normalisation of package quote.
	Verified bool `json:"verified"`
	// Line is the 1-based line where the quote starts (when verified).
	Line int `json:"line,omitempty"`
	// SHA256 is the checked file's sha256 ("" when it could not be read).
	SHA256 string `json:"sha256,omitempty"`
	// Problem says why the citation did not verify.
	Problem string `json:"problem,omitempty"`
}

// AnswerInput is what file_answer records.
type AnswerInput struct {
	Question  string
	Answer    string
	Citations []Citation
	// Topic is an optional short subject ("sync conflicts"), used to find
	// topics asked again and again.
	Topic string
	// Replaces is the id of an earlier answer to the same question that this
	// one corrects.
	Replaces string
}

// AnswerRecord is one stored answer (<AnswersDir>/<date>/<ID>.json).
type AnswerRecord struct {
	ID        string          `json:"id"`
	Time      time.Time       `json:"time"`
	Session   string          `json:"session,omitempty"`
	Client    string          `json:"client,omitempty"`
	Question  string          `json:"question"`
	Topic     string          `json:"topic,omitempty"`
	Answer    string          `json:"answer"`
	Replaces  string          `json:"replaces,omitempty"`
	Citations []CitationCheck `json:"citations"`
}

// FileAnswerResult is what file_answer returns.
type FileAnswerResult struct {
	// AnswerID names the stored answer; pass it as replaces to correct it.
	AnswerID   string          `json:"answer_id"`
	Citations  []CitationCheck `json:"citations"`
	Verified   int             `json:"verified"`
	Unverified int             `json:"unverified"`
	// AllVerified is true when there is at least one citation and every one
	// verified.
	AllVerified bool `json:"all_verified"`
	// Advice is the next step for the agent.
	Advice string `json:"advice"`
}

// FileAnswer checks every citation of in against the files as they are now,
// stores the answer in the eval store and returns the verdicts. It writes
// nothing in the wiki. The answer id and citation counts are added to the
// [store.Call] in ctx (audit line "extra": answer_id, citations, verified).
//
// Errors (CodeInvalid): empty question or answer, limits exceeded, a
// replaces id that names no stored answer.
func FileAnswer(ctx context.Context, st *wiki.Store, in AnswerInput) (FileAnswerResult, error) {
	var out FileAnswerResult
	in.Question = strings.TrimSpace(in.Question)
	in.Answer = strings.TrimSpace(in.Answer)
	in.Topic = strings.Join(strings.Fields(in.Topic), " ")
	in.Replaces = strings.TrimSpace(in.Replaces)
	switch {
	case in.Question == "":
		return out, store.Errorf(store.CodeInvalid, "question is empty; give the person's question as they asked it")
	case in.Answer == "":
		return out, store.Errorf(store.CodeInvalid, "answer is empty; give the answer you are about to send")
	case utf8.RuneCountInString(in.Question) > MaxQuestionChars:
		return out, store.Errorf(store.CodeTooLarge, "question has %d characters; the limit is %d", utf8.RuneCountInString(in.Question), MaxQuestionChars)
	case utf8.RuneCountInString(in.Answer) > MaxAnswerChars:
		return out, store.Errorf(store.CodeTooLarge, "answer has %d characters; the limit is %d", utf8.RuneCountInString(in.Answer), MaxAnswerChars)
	case utf8.RuneCountInString(in.Topic) > MaxTopicChars:
		return out, store.Errorf(store.CodeInvalid, "topic has %d characters; name the subject in a few words (at most %d characters)", utf8.RuneCountInString(in.Topic), MaxTopicChars)
	case len(in.Citations) > MaxCitations:
		return out, store.Errorf(store.CodeTooLarge, "%d citations; the limit is %d (cite the passages that carry the answer)", len(in.Citations), MaxCitations)
	}
	if in.Replaces != "" {
		if !ValidAnswerID(in.Replaces) {
			return out, store.Errorf(store.CodeInvalid, "replaces %q is not an answer id; use the answer_id an earlier file_answer returned", in.Replaces)
		}
		if _, ok, err := st.ReadState(answerPath(in.Replaces)); err != nil {
			return out, err
		} else if !ok {
			return out, store.Errorf(store.CodeNotFound, "no stored answer has id %s; use the answer_id an earlier file_answer returned", in.Replaces)
		}
	}
	v := newVerifier(st)
	checks := make([]CitationCheck, 0, len(in.Citations))
	for _, c := range in.Citations {
		cc := v.check(c.Path, c.Quote)
		checks = append(checks, cc)
		if cc.Verified {
			out.Verified++
		} else {
			out.Unverified++
		}
	}
	now := st.Now()
	rec := AnswerRecord{ID: newAnswerID(now), Time: now, Question: in.Question, Topic: in.Topic, Answer: in.Answer, Replaces: in.Replaces, Citations: checks}
	call := store.CallFrom(ctx)
	if call != nil {
		rec.Session, rec.Client = call.Session, call.Client
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return out, store.Errorf(store.CodeInternal, "encode the answer record")
	}
	if err := st.WriteState(answerPath(rec.ID), append(data, '\n')); err != nil {
		return out, err
	}
	call.SetExtra("answer_id", rec.ID)
	call.SetExtra("citations", len(checks))
	call.SetExtra("verified", out.Verified)
	out.AnswerID, out.Citations = rec.ID, checks
	out.AllVerified = len(checks) > 0 && out.Unverified == 0
	switch {
	case len(checks) == 0:
		out.Advice = "Recorded, but with no citations: cite the file and a verbatim quote (8-300 characters) for each claim so the answer can be checked, then call file_answer again with replaces=\"" + rec.ID + "\"."
	case out.Unverified > 0:
		out.Advice = fmt.Sprintf("%d of %d citations did not verify (see each problem). Re-read the file, copy the passage exactly or drop the claim, then call file_answer again with replaces=%q before you answer.", out.Unverified, len(checks), rec.ID)
	default:
		out.Advice = fmt.Sprintf("All %d citations verified.", len(checks))
	}
	return out, nil
}

// ValidAnswerID reports whether id has the shape file_answer gives:
// "a" + UTC time "20060102T150405Z" + "-" + 8 hex digits.
func ValidAnswerID(id string) bool {
	if len(id) != 26 || id[0] != 'a' || id[17] != '-' {
		return false
	}
	if _, err := time.Parse("20060102T150405Z", id[1:17]); err != nil {
		return false
	}
	_, err := hex.DecodeString(id[18:])
	return err == nil
}

func newAnswerID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "a" + now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// answerPath is where the answer with a valid id is stored.
func answerPath(id string) string {
	t, _ := time.Parse("20060102T150405Z", id[1:17])
	return AnswersDir + "/" + t.Format("2006-01-02") + "/" + id + ".json"
}

// answerIndex lists the stored answers of the window by id and reads a
// record only when asked (the audit line's arguments hold most of it).
type answerIndex struct {
	st     *wiki.Store
	since  time.Time
	paths  map[string]string // id -> project-relative path
	loaded map[string]*AnswerRecord
	bad    int
}

// listAnswers lists the eval store's answers made on or after since's day.
func listAnswers(st *wiki.Store, since time.Time) (*answerIndex, error) {
	idx := &answerIndex{st: st, since: since, paths: map[string]string{}, loaded: map[string]*AnswerRecord{}}
	days, err := st.ReadDir(AnswersDir)
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	} else if err != nil {
		return nil, store.Errorf(store.CodeInternal, "list the eval store")
	}
	for _, d := range days {
		day, err := time.Parse("2006-01-02", d.Name())
		if !d.IsDir() || err != nil || (!since.IsZero() && day.Add(24*time.Hour).Before(since)) {
			continue
		}
		dir := path.Join(AnswersDir, d.Name())
		files, err := st.ReadDir(dir)
		if err != nil {
			idx.bad++
			continue
		}
		for _, f := range files {
			id := strings.TrimSuffix(f.Name(), ".json")
			if f.Type().IsRegular() && strings.HasSuffix(f.Name(), ".json") && ValidAnswerID(id) {
				idx.paths[id] = path.Join(dir, f.Name())
			}
		}
	}
	return idx, nil
}

// has reports whether the store holds the answer id.
func (idx *answerIndex) has(id string) bool {
	_, ok := idx.paths[id]
	return ok
}

// get reads the answer id (once); nil when it is missing or unreadable.
func (idx *answerIndex) get(id string) *AnswerRecord {
	if r, ok := idx.loaded[id]; ok {
		return r
	}
	var rec *AnswerRecord
	if p, ok := idx.paths[id]; ok {
		data, found, err := idx.st.ReadState(p)
		var r AnswerRecord
		if err != nil || !found || json.Unmarshal(data, &r) != nil || r.ID != id {
			idx.bad++
		} else {
			rec = &r
		}
	}
	idx.loaded[id] = rec
	return rec
}

// LoadAnswers reads every stored answer made at or after since (zero:
// all), keyed by id; bad counts records that could not be read.
func LoadAnswers(st *wiki.Store, since time.Time) (map[string]*AnswerRecord, int, error) {
	idx, err := listAnswers(st, since)
	if err != nil {
		return nil, 0, err
	}
	out := map[string]*AnswerRecord{}
	for id := range idx.paths {
		if r := idx.get(id); r != nil && (since.IsZero() || !r.Time.Before(since)) {
			out[id] = r
		}
	}
	return out, idx.bad, nil
}

// verifier checks citations with lint's evidence verifier (package
// wiki/lint: the same resolution, normalisation and 8-300 character rule as
// verified lint findings), and records the sha256 of each file checked so a
// later eval can tell a wrong citation from a file that changed.
type verifier struct {
	st  *wiki.Store
	v   *lint.Verifier
	sha map[string]string
}

func newVerifier(st *wiki.Store) *verifier {
	return &verifier{st: st, v: lint.NewVerifier(st), sha: map[string]string{}}
}

// check verifies one citation against the file's current content.
func (v *verifier) check(p, q string) CitationCheck {
	ev := v.v.Verify(lint.Quote{Path: strings.TrimSpace(p), Quote: q})
	cc := CitationCheck{Path: ev.Path, Quote: q, Verified: ev.Verified, Line: ev.Line, Problem: ev.Reason}
	if cc.Path == "" {
		cc.Path = strings.TrimSpace(p)
	}
	if wiki.LayerOf(cc.Path) != wiki.LayerState {
		sum, ok := v.sha[cc.Path]
		if !ok {
			if data, err := v.st.ReadFile(cc.Path); err == nil {
				sum = store.SHA256Hex(data)
			}
			v.sha[cc.Path] = sum
		}
		cc.SHA256 = sum
	}
	return cc
}

// checkText verifies q against a given version of a file (a snapshot).
func checkText(q, text string) (int, bool) {
	if quote.Check(q) != "" {
		return 0, false
	}
	return quote.Prepare(text).Find(q)
}
