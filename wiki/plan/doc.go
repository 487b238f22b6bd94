// Package plan turns a model's proposal into writes a person approved.
//
// The model's whole output is one JSON document (a [Proposal]): takeaways
// for the person and at most [MaxActions] actions from a closed vocabulary
// (create_page, update_page, append_page_section, add_links, update_context,
// append_context_section). The JSON schema ([Schema], schema.json) names
// pages by slug only, so no action can express a path under sources/,
// schema.md or .llmwiki/; [Check] then re-checks every slug with the store's
// rules, the size limits, base_sha256 values, links (only to existing or
// planned pages) and slug reservations.
//
// A checked proposal becomes a [Plan] saved under .llmwiki/plans/<id>.json
// (server state, [wiki.Store.WriteState]) with a ten-minute expiry. A pending
// plan reserves the slugs it creates, so two pending plans cannot both create
// one page. Nothing is written before approval: [Apply] takes the action
// numbers a person selected, runs only those, re-checks each against the
// wiki as it is then, and executes them through the audited writers
// (WritePage, WriteContext). An expired plan cannot be applied.
//
// [Proposer] builds the prompts for ingest and build, runs one constrained
// completion with one retry (package model) and saves the plan. The design is
// MindBase's (apps/server/src/ops: "the model proposes JSON, it never writes
// prose to disk"), adapted to llmwiki's writers.
package plan
