package lint

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// StateDir is where findings are kept: derived state, not the wiki.
const StateDir = ".llmwiki/lint"

// The state files under [StateDir].
const (
	agentFile     = StateDir + "/agent.json"     // submitted findings
	dismissedFile = StateDir + "/dismissed.json" // dismissals
)

type agentState struct {
	Findings []Finding `json:"findings"`
}

// Dismissal records that a person dismissed a finding.
type Dismissal struct {
	// Fingerprint is the finding's fingerprint when it was dismissed; the
	// dismissal holds while the finding's fingerprint is the same.
	Fingerprint string `json:"fingerprint"`
	Reason      string `json:"reason,omitempty"`
	At          string `json:"at"`
	By          string `json:"by,omitempty"`
	// Kind and File say what was dismissed, for people reading the file.
	Kind string `json:"kind"`
	File string `json:"file"`
}

type dismissedState struct {
	Dismissed map[string]Dismissal `json:"dismissed"`
}

func readJSON(st *wiki.Store, rel string, v any) error {
	data, ok, err := st.ReadState(rel)
	if err != nil || !ok {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		st.Logger().Warn("lint state does not parse; starting afresh", "file", rel, "err", err)
	}
	return nil
}

func loadDismissed(st *wiki.Store) (map[string]Dismissal, error) {
	var ds dismissedState
	if err := readJSON(st, dismissedFile, &ds); err != nil {
		return nil, err
	}
	if ds.Dismissed == nil {
		ds.Dismissed = map[string]Dismissal{}
	}
	return ds.Dismissed, nil
}

func loadAgent(st *wiki.Store) ([]Finding, error) {
	var as agentState
	err := readJSON(st, agentFile, &as)
	return as.Findings, err
}

// Submit checks proposals with a fresh [Verifier] and stores them in
// .llmwiki/lint/agent.json (a finding with the same id replaces the old
// one). source says who proposed them ("agent" for a tool call, "model"
// for lint --deep); by names the session or client. A malformed proposal
// fails the whole submission and nothing is stored; more than
// [MaxProposals] proposals is a CodeTooLarge error. Unverified findings are
// stored too, with Verified false: they are claims, never facts.
func Submit(ctx context.Context, st *wiki.Store, source, by string, ps []Proposal) ([]Finding, error) {
	if len(ps) > MaxProposals {
		return nil, store.Errorf(store.CodeTooLarge, "at most %d findings per submission (got %d)", MaxProposals, len(ps))
	}
	v := NewVerifier(st)
	now := st.Now().Format("2006-01-02T15:04:05Z07:00")
	out := make([]Finding, 0, len(ps))
	for i, p := range ps {
		f, err := v.Check(p)
		if err != nil {
			if len(ps) > 1 {
				return nil, &store.Error{Code: store.CodeOf(err), Msg: "finding " + strconv.Itoa(i+1) + ": " + store.PublicMessage(err) + "; nothing was stored", Err: err}
			}
			return nil, err
		}
		f.Source, f.SubmittedBy, f.Submitted = source, by, now
		out = append(out, f)
	}
	if len(out) == 0 {
		return out, nil
	}
	err := st.UpdateState(ctx, agentFile, func(old []byte, _ bool) ([]byte, error) {
		var as agentState
		if len(old) > 0 {
			_ = json.Unmarshal(old, &as)
		}
		byID := map[string]int{}
		for i, f := range as.Findings {
			byID[f.ID] = i
		}
		for _, f := range out {
			if i, ok := byID[f.ID]; ok {
				as.Findings[i] = f
			} else {
				byID[f.ID] = len(as.Findings)
				as.Findings = append(as.Findings, f)
			}
		}
		if n := len(as.Findings); n > MaxStoredAgentFindings {
			sort.SliceStable(as.Findings, func(i, j int) bool { return as.Findings[i].Submitted < as.Findings[j].Submitted })
			as.Findings = as.Findings[n-MaxStoredAgentFindings:]
		}
		return json.MarshalIndent(as, "", " ")
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Dismiss records that a person dismissed the findings with the given ids
// (any finding [Run] reports now, submitted ones included). A dismissed finding is not
// reported again until its fingerprint (its evidence) changes. An id that
// matches no known finding is a CodeNotFound error and nothing is recorded.
// A dismissed sync_conflict also closes its conflict
// ([wiki.Store.KeepSyncConflict]). It returns the findings dismissed.
func Dismiss(ctx context.Context, st *wiki.Store, g *links.Graph, ids []string, reason, by string) ([]Finding, error) {
	if len(ids) == 0 {
		return nil, store.Errorf(store.CodeInvalid, "name the ids of the findings to dismiss")
	}
	known, err := knownFindings(ctx, st, g)
	if err != nil {
		return nil, err
	}
	var fs []Finding
	var missing []string
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if f, ok := known[id]; ok {
			fs = append(fs, f)
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, store.Errorf(store.CodeNotFound, "no finding has the id %s; run lint_findings (or llmwiki lint) again and use the ids it reports", strings.Join(missing, ", "))
	}
	now := st.Now().Format("2006-01-02T15:04:05Z07:00")
	err = st.UpdateState(ctx, dismissedFile, func(old []byte, _ bool) ([]byte, error) {
		var ds dismissedState
		if len(old) > 0 {
			_ = json.Unmarshal(old, &ds)
		}
		if ds.Dismissed == nil {
			ds.Dismissed = map[string]Dismissal{}
		}
		for _, f := range fs {
			ds.Dismissed[f.ID] = Dismissal{Fingerprint: f.Fingerprint, Reason: strings.TrimSpace(reason), At: now, By: by, Kind: f.Kind, File: f.Path}
		}
		return json.MarshalIndent(ds, "", " ")
	})
	if err != nil {
		return nil, err
	}
	if err := keepDismissedConflicts(ctx, st, fs, reason, by); err != nil {
		return nil, err
	}
	for i := range fs {
		fs[i].Dismissed = true
	}
	return fs, nil
}

// Undismiss forgets the dismissals of the given ids, so the findings are
// reported again. Ids that were not dismissed are ignored. It returns how
// many dismissals it removed.
func Undismiss(ctx context.Context, st *wiki.Store, ids []string) (int, error) {
	n := 0
	err := st.UpdateState(ctx, dismissedFile, func(old []byte, ok bool) ([]byte, error) {
		if !ok {
			return nil, nil
		}
		var ds dismissedState
		_ = json.Unmarshal(old, &ds)
		for _, id := range ids {
			if _, ok := ds.Dismissed[strings.TrimSpace(id)]; ok {
				delete(ds.Dismissed, strings.TrimSpace(id))
				n++
			}
		}
		if n == 0 {
			return nil, nil
		}
		return json.MarshalIndent(ds, "", " ")
	})
	return n, err
}

// knownFindings maps the ids of every finding a run reports now, every
// category included (those schema.md turns off too) and dismissed ones too,
// to the findings: a person dismisses what lint shows them, with the
// fingerprint it has now.
func knownFindings(ctx context.Context, st *wiki.Store, g *links.Graph) (map[string]Finding, error) {
	rep, err := Run(ctx, st, g, Options{Categories: Categories(), IncludeDismissed: true})
	if err != nil {
		return nil, err
	}
	m := make(map[string]Finding, len(rep.Findings))
	for _, f := range rep.Findings {
		m[f.ID] = f
	}
	return m, nil
}
