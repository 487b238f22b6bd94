// Package lint checks the health of a wiki and verifies findings that agents
// or models submit, so that an auditor cannot make up its evidence.
//
// Deterministic checks ([Run]) read the files and the link graph
// (wiki/links) and report, each with kind, severity, file, line, message
// and a suggested action: dangling_link, missing_embed, missing_heading,
// ambiguous_link, orphan_page, page_without_sources, missing_source,
// missing_frontmatter, stale_page, duplicate_title, duplicate_alias,
// merge_candidate (near-duplicate pages found by word shingling and
// MinHash with LSH banding, never by comparing all pairs; every candidate
// pair is then checked exactly), index_drift, context_over_cap,
// bad_frontmatter, source_modified and source_deleted (a source changed or
// removed outside llmwiki since it was first seen), sync_conflict (a file
// both sides of a git sync changed beyond a clean merge, one finding per
// open [wiki.SyncConflict]; dismissing it keeps the file as it is). Settings
// come from schema.md's frontmatter ([Settings]).
//
// Findings that need judgement come from an agent or a model
// ([Submit]): contradiction, stale_claim, unsupported_claim and gap. Each
// names evidence, a file and a verbatim quote of 8 to 300 characters, and
// the server re-reads the file and looks for the quote under the
// normalisation of package internal/quote ([Verifier]). A paraphrase fails. A
// finding is verified only when every piece of its evidence is, and a
// contradiction needs verified quotes from two different places; anything
// else is stored with verified=false and is never presented as fact.
//
// Submitted findings and dismissals live under .llmwiki/lint/ ([StateDir]):
// agent.json and dismissed.json; [Run] reads them and writes nothing. Every
// finding has a stable id and a fingerprint of its evidence; a dismissed
// finding ([Dismiss]) is not reported again until its fingerprint changes.
//
// The idea of quoted, re-checked evidence comes from MindBase's lint
// verifier: "a verbatim quote from each page, 8–300 characters,
// copied exactly ... If the model invented the sentence ... the finding
// comes back verified: false instead of landing in your inbox as fact."
package lint
