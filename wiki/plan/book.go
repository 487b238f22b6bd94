package plan

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Dir is where plans are kept: one <id>.json file each.
const Dir = ".llmwiki/plans"

// Plan statuses.
const (
	StatusPending   = "pending"   // awaiting approval until Expires
	StatusApplying  = "applying"  // claimed by an Apply that is running
	StatusApplied   = "applied"   // every selected action ran
	StatusFailed    = "failed"    // an action failed; Results say which ran
	StatusDiscarded = "discarded" // applied with nothing selected
	StatusDeclined  = "declined"  // a person declined it; nothing was written
)

// OpChangeSet is the Op of a change set: actions an agent proposed
// (propose_changes, or a direct write in review mode "before") for a person
// to approve.
const OpChangeSet = "change_set"

// keepFinished is how long finished or expired plans stay on disk.
const keepFinished = 7 * 24 * time.Hour

// Plan is a proposal saved for approval.
type Plan struct {
	ID string `json:"id"`
	// Op is the operation that proposed it: "ingest", "build" or
	// [OpChangeSet].
	Op string `json:"op"`
	// Number is the plan's short number for people ("change set #12"),
	// unique in the wiki, assigned by [Book.Save].
	Number int `json:"number,omitempty"`
	// Client and Session are who proposed it (the MCP client's name and
	// version, the audit session).
	Client  string    `json:"client,omitempty"`
	Session string    `json:"session,omitempty"`
	Status  string    `json:"status"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	// Source is the ingested source (ingest), recorded in the frontmatter
	// of the pages the plan writes.
	Source string `json:"source,omitempty"`
	// Folded are the sources a context.md action records as folded.
	Folded []string `json:"folded,omitempty"`
	// ContextSHA256 is context.md's sha256 when the plan was proposed; a
	// context action conflicts if it changed meanwhile.
	ContextSHA256 string   `json:"context_sha256,omitempty"`
	Takeaways     []string `json:"takeaways,omitempty"`
	Actions       []Action `json:"actions"`
	// Reserved are the slugs the plan creates; no other pending plan may
	// create them.
	Reserved []string `json:"reserved,omitempty"`
	// Model is the usage of the completion(s) that proposed the plan.
	Model *model.Usage `json:"model,omitempty"`
	// Selected are the 1-based action numbers approved; Results what each
	// did; Finished when Apply ended.
	Selected []int `json:"selected,omitempty"`
	// Reviewer says how a person decided (elicitation, web, cli), when one
	// did.
	Reviewer string     `json:"reviewer,omitempty"`
	Results  []Result   `json:"results,omitempty"`
	Finished *time.Time `json:"finished,omitempty"`
}

// Result is what one approved action did.
type Result struct {
	N    int    `json:"n"`
	Kind string `json:"kind"`
	Path string `json:"path"`
	// Status is "ok", "failed" or "not_run" (after an earlier failure).
	Status string `json:"status"`
	SHA256 string `json:"sha256,omitempty"`
	Error  string `json:"error,omitempty"`
	// Notes are things the executor adjusted (links skipped because their
	// target page was not selected).
	Notes []string `json:"notes,omitempty"`
}

// UnmarshalJSON reads a result, also one stored before the wire vocabulary
// named its file "path" (then "target").
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	var v struct {
		plain
		OldTarget string `json:"target"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Result(v.plain)
	if r.Path == "" {
		r.Path = v.OldTarget
	}
	return nil
}

// Expired reports whether the plan can no longer be applied at now.
func (p *Plan) Expired(now time.Time) bool { return !now.Before(p.Expires) }

var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^p-[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$`) })

// ValidID reports whether id has the form of a plan id (p-YYYYMMDD-HHMMSS-xxxxxx),
// so a caller-supplied id can never name another file.
func ValidID(id string) bool { return idPattern().MatchString(id) }

func newID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "p-" + now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func planPath(id string) string { return Dir + "/" + id + ".json" }

// Book stores plans of one wiki.
type Book struct{ s *wiki.Store }

// NewBook returns the plan store of s.
func NewBook(s *wiki.Store) *Book { return &Book{s: s} }

// Load reads a plan. An id of the wrong form is CodeInvalid; a missing plan
// CodeNotFound.
func (b *Book) Load(id string) (*Plan, error) {
	id = strings.TrimSpace(id)
	if !ValidID(id) {
		return nil, store.Errorf(store.CodeInvalid, "plan id %q is not of the form p-YYYYMMDD-HHMMSS-xxxxxx; llmwiki plans lists the plans", id)
	}
	data, ok, err := b.s.ReadState(planPath(id))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, store.Errorf(store.CodeNotFound, "plan %s does not exist (finished plans are removed after a week); propose a new one", id)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, store.Errorf(store.CodeInvalid, "plan %s is damaged and cannot be read; propose a new one", id)
	}
	if p.ID != id {
		return nil, store.Errorf(store.CodeInvalid, "plan file %s names another plan (%s); propose a new one", id, p.ID)
	}
	return &p, nil
}

func (b *Book) write(p *Plan) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return store.Errorf(store.CodeInternal, "encode plan: %v", err)
	}
	return b.s.WriteState(planPath(p.ID), append(data, '\n'))
}

// List returns every plan on disk, newest first. Unreadable files are
// skipped.
func (b *Book) List() ([]*Plan, error) {
	entries, err := b.s.ReadDir(Dir)
	if err != nil {
		return nil, nil // no plans yet
	}
	var out []*Plan
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidID(id) || !e.Type().IsRegular() {
			continue
		}
		p, err := b.Load(id)
		if err != nil {
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Created.Equal(b.Created) {
			return a.Created.After(b.Created)
		}
		if a.Number != b.Number {
			return a.Number > b.Number
		}
		return a.ID > b.ID
	})
	return out, nil
}

// Reserved returns the slugs reserved by pending, unexpired plans other than
// except, each with the id of the plan that holds it.
func (b *Book) Reserved(except string) map[string]string {
	out := map[string]string{}
	list, _ := b.List()
	now := b.s.Now()
	for _, p := range list {
		if p.ID == except || p.Status != StatusPending || p.Expired(now) {
			continue
		}
		for _, s := range p.Reserved {
			if _, ok := out[s]; !ok {
				out[s] = p.ID
			}
		}
	}
	return out
}

// Save stores a new pending plan expiring after [TTL] (see [Book.SaveWith]).
func (b *Book) Save(ctx context.Context, p *Plan) error { return b.SaveWith(ctx, p, TTL) }

// NumberFile keeps the last plan number given ([Plan.Number]), so numbers
// are never reused, even after finished plans are removed.
const NumberFile = ".llmwiki/plan-number"

// SaveWith stores a new pending plan expiring after ttl: it sets ID,
// Number, Status, Created, Expires and Reserved, and under the project
// lock refuses (CodeConflict) when another pending (or applying) plan or
// change set holds
// one of the slugs it creates or, for a change set, one of the files its
// actions write ([Plan.Holds]). Finished plans older than a week are
// removed.
func (b *Book) SaveWith(ctx context.Context, p *Plan, ttl time.Duration) error {
	p.Reserved = nil
	for _, a := range p.Actions {
		switch {
		case a.Kind == KindCreatePage:
			p.Reserved = append(p.Reserved, a.Slug)
		case a.Kind == KindCall:
			for _, f := range a.Files {
				if f.Change == "created" && wiki.LayerOf(f.Path) == wiki.LayerPages {
					p.Reserved = append(p.Reserved, strings.TrimSuffix(strings.TrimPrefix(f.Path, "pages/"), ".md"))
				}
			}
		}
	}
	return b.s.Locked(ctx, func() error {
		// Timed under the lock, so numbers and creation times agree.
		now := b.s.Now()
		p.ID = newID(now)
		p.Status = StatusPending
		p.Created, p.Expires = now, now.Add(ttl)
		list, _ := b.List()
		for _, o := range list {
			if o.ID == p.ID || o.Status != StatusPending && o.Status != StatusApplying || o.Expired(now) {
				continue
			}
			theirs := o.Holds()
			for k, rel := range p.Holds() {
				if _, ok := theirs[k]; !ok {
					continue
				}
				if o.Op != OpChangeSet && p.Op != OpChangeSet {
					return store.Errorf(store.CodeConflict, "page %s is reserved by pending plan %s; apply or let it expire (at most %s) first", strings.TrimSuffix(strings.TrimPrefix(rel, "pages/"), ".md"), o.ID, TTL)
				}
				return store.Errorf(store.CodeConflict, "%s already has a pending change in %s; approve or decline it first (llmwiki review, or the review page)", rel, o.Name())
			}
		}
		n, err := b.nextNumber(list)
		if err != nil {
			return err
		}
		p.Number = n
		b.prune(now)
		return b.write(p)
	})
}

// nextNumber reserves the next plan number, under the project lock: one
// more than the last given (the counter file, or the highest number of a
// plan on disk when that is higher).
func (b *Book) nextNumber(list []*Plan) (int, error) {
	last := 0
	if data, ok, err := b.s.ReadState(NumberFile); err != nil {
		return 0, err
	} else if ok {
		last, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	for _, p := range list {
		last = max(last, p.Number)
	}
	n := last + 1
	if err := b.s.WriteState(NumberFile, []byte(strconv.Itoa(n)+"\n")); err != nil {
		return 0, err
	}
	return n, nil
}

// Holds returns what a pending plan keeps others from writing, by identity
// key ([wiki.PageKey] for pages): the pages it creates and, for a change
// set, every file its actions write. The values are the files' paths.
func (p *Plan) Holds() map[string]string {
	out := map[string]string{}
	for _, s := range p.Reserved {
		rel := wiki.PagePath(s)
		out[wiki.PageKey(rel)] = rel
	}
	if p.Op == OpChangeSet {
		for _, a := range p.Actions {
			for _, f := range a.Files {
				out[HoldKey(f.Path)] = f.Path
			}
		}
	}
	return out
}

// HoldKey is the key of rel in [Plan.Holds].
func HoldKey(rel string) string {
	if wiki.LayerOf(rel) == wiki.LayerPages {
		return wiki.PageKey(rel)
	}
	return rel
}

// Name is how people refer to the plan: "change set #3", "plan #3" (or
// its id when it predates numbers).
func (p *Plan) Name() string {
	kind := "plan"
	if p.Op == OpChangeSet {
		kind = "change set"
	}
	if p.Number == 0 {
		return kind + " " + p.ID
	}
	return fmt.Sprintf("%s #%d", kind, p.Number)
}

// prune removes plans that ended or expired more than a week ago.
func (b *Book) prune(now time.Time) {
	list, _ := b.List()
	for _, p := range list {
		end := p.Expires
		if p.Finished != nil {
			end = *p.Finished
		}
		if (p.Status != StatusPending || p.Expired(now)) && now.Sub(end) > keepFinished {
			if err := b.s.RemoveState(planPath(p.ID)); err != nil {
				b.s.Logger().Warn("could not remove an old plan", "plan", p.ID, "err", err)
			}
		}
	}
}

// Pending returns the plans awaiting approval, newest first.
func (b *Book) Pending() []*Plan {
	list, _ := b.List()
	now := b.s.Now()
	var out []*Plan
	for _, p := range list {
		if p.Status == StatusPending && !p.Expired(now) {
			out = append(out, p)
		}
	}
	return out
}

// StatusLine says where a plan stands, for listings.
func (p *Plan) StatusLine(now time.Time) string {
	switch {
	case p.Status == StatusPending && p.Expired(now):
		return "expired " + p.Expires.Format("2006-01-02 15:04") + " UTC"
	case p.Status == StatusPending:
		return fmt.Sprintf("pending, expires in %s", p.Expires.Sub(now).Round(time.Second))
	}
	return p.Status
}

// CheckSelection validates 1-based action numbers for a plan of n actions
// (each in 1..n, none twice), as [Apply] does.
func CheckSelection(sel []int, n int) error { return checkSelection(sel, n) }

// Update changes the plan id under the project lock: fn gets the plan as it
// is on disk and the result is written back unless fn fails.
func (b *Book) Update(ctx context.Context, id string, fn func(*Plan) error) (*Plan, error) {
	var p *Plan
	err := b.s.Locked(ctx, func() error {
		var err error
		if p, err = b.Load(id); err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
		return b.write(p)
	})
	return p, err
}
