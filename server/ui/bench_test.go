package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// reviewWiki10k makes a wiki in mode after whose review queue holds n
// audited writes. The newest are real: real writes (pages created, then
// updated, so snapshots hold the versions the diffs are made from) in their
// own store Calls, marked for review as the write tools mark them. The
// older ones repeat the audit records of those writes under fresh ids,
// spread over a week of audit files, so a large queue is built in seconds
// rather than one fsynced write at a time. It returns the store and the id
// of the newest write.
func reviewWiki10k(b *testing.B, n int) (*wiki.Store, string) {
	b.Helper()
	st, _ := teststore.New(b, map[string]string{"schema.md": "---\nreview: after\n---\n# Schema\n"}, wiki.WithLogger(teststore.Quiet()))
	const pages, updates = 10, 40
	write := func(in wiki.PageInput) (store.AuditRecord, string) {
		c := store.NewCall("write_page", "bench-session", map[string]any{"title": in.Title})
		c.Client = "bench-agent 1.0"
		c.SetExtra(review.MarkKey, wiki.ReviewAfter)
		out, err := st.WritePage(store.WithCall(context.Background(), c), in)
		if aerr := st.Audit(c, err); err != nil || aerr != nil {
			b.Fatalf("write %s: %v %v", in.Title, err, aerr)
		}
		return c.Record(), out.SHA256
	}
	var real []store.AuditRecord
	sha := make([]string, pages)
	body := func(i, v int) string {
		var sb strings.Builder
		fmt.Fprintf(&sb, "Page %d is about topic %d, version %d.\n\n", i, i*7, v)
		for l := 0; l < 30; l++ {
			fmt.Fprintf(&sb, "Line %d of page %d says something in version %d.\n", l, i, v-l%2)
		}
		return sb.String()
	}
	for i := range pages {
		r, s := write(wiki.PageInput{Title: fmt.Sprintf("Topic %d", i), Summary: "A topic.", Content: body(i, 0)})
		real, sha[i] = append(real, r), s
	}
	for u := range updates {
		i := u % pages
		r, s := write(wiki.PageInput{Title: fmt.Sprintf("Topic %d", i), Content: body(i, u+1), BaseSHA256: sha[i]})
		real, sha[i] = append(real, r), s
	}
	// The copies are older than the real writes, a minute apart, in the
	// audit files of the days before (the log is append-only: a later line
	// of a file is a later call).
	start := real[0].Time.Truncate(24 * time.Hour).Add(-time.Duration(n) * time.Minute)
	for k := range n - len(real) {
		r := real[k%len(real)]
		c := store.NewCall(r.Tool, r.Session, r.Args)
		c.Client = r.Client
		c.Time = start.Add(time.Duration(k) * time.Minute)
		c.Writes = r.Writes
		c.Snapshots = r.Snapshots
		c.SetExtra(review.MarkKey, wiki.ReviewAfter)
		if err := st.Audit(c, nil); err != nil {
			b.Fatal(err)
		}
	}
	return st, real[len(real)-1].ID
}

// getReview renders GET /review and checks it lists the whole queue and
// its newest write.
func getReview(b *testing.B, h http.Handler, n int, newest string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/review", nil))
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, fmt.Sprintf("Unreviewed writes (%d)", n)) || !strings.Contains(body, `id="revert-`+newest+`"`) {
		b.Fatalf("GET /review: %d, want 200 listing %d writes, the newest %s first:\n%.2000s", rec.Code, n, newest, body)
	}
}

// BenchmarkReviewPage10k renders the review page of a wiki with 10,000
// audited writes awaiting review (goal: under 200 ms). warm is a running
// server (the queue's index of the audit log is kept between requests);
// cold is the first request of a fresh server, which reads every audit
// line.
//
//	go test ./server/ui -run '^$' -bench ReviewPage10k -benchtime 20x
func BenchmarkReviewPage10k(b *testing.B) {
	const n = 10_000
	st, newest := reviewWiki10k(b, n)
	newApp := func() http.Handler {
		h, err := New(Config{Store: st, Review: review.New(st, nil, nil), Log: teststore.Quiet()})
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	b.Run("warm", func(b *testing.B) {
		h := newApp()
		getReview(b, h, n, newest)
		for b.Loop() {
			getReview(b, h, n, newest)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			getReview(b, newApp(), n, newest)
		}
	})
}
