package eval

import (
	"context"
	"encoding/json"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Written says where [Write] put the outputs.
type Written struct {
	Report     string `json:"report"`
	JSON       string `json:"json"`
	Run        string `json:"run"`
	Guidelines string `json:"guidelines"`
	// GuidelinesChange is what happened to guidelines.md ("replaced",
	// "appended", "inserted before ## My Rules", "created", "unchanged").
	GuidelinesChange string `json:"guidelines_change"`
}

// Write stores rep: eval-report.md and eval-report.json under
// .llmwiki/eval/, the run's summary under .llmwiki/eval/runs/ (for the
// trend of later runs), and the "## Eval Insights" section of guidelines.md
// through the audited writer. The Call in ctx records the guidelines write.
func Write(ctx context.Context, st *wiki.Store, rep *Report) (Written, error) {
	out := Written{Report: ReportMD, JSON: ReportJSON, Guidelines: GuidelinesFile}
	js, err := JSON(rep)
	if err != nil {
		return out, store.Errorf(store.CodeInternal, "encode the eval report")
	}
	if err := st.WriteState(ReportJSON, js); err != nil {
		return out, err
	}
	if err := st.WriteState(ReportMD, Markdown(rep)); err != nil {
		return out, err
	}
	run, _ := json.MarshalIndent(summaryOf(rep), "", "  ")
	out.Run = runFile(rep.Generated)
	if err := st.WriteState(out.Run, append(run, '\n')); err != nil {
		return out, err
	}
	out.GuidelinesChange, err = UpdateGuidelines(ctx, st, Insights(rep))
	return out, err
}

// Run evaluates and writes: [Evaluate] then [Write].
func Run(ctx context.Context, st *wiki.Store, graph *links.Graph, opts Options) (*Report, Written, error) {
	rep, err := Evaluate(ctx, st, graph, opts)
	if err != nil {
		return nil, Written{}, err
	}
	w, err := Write(ctx, st, rep)
	return rep, w, err
}
