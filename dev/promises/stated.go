package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A stated promise is one the tests prove by passing rather than by a
// figure they measure: the README lists it with the tests that prove it,
// and [checkStated] fails when a named test no longer exists, so the list
// cannot name a test that was renamed or removed.
type stated struct {
	title string   // bold lead, ending in a full stop
	text  string   // one or two sentences
	tests []string // "package.TestName", as go test -run finds it
}

// statedPromises are rendered in this order after the measured ones.
var statedPromises = []stated{
	{"Nothing waits on a FIFO.",
		"A FIFO, socket or device in place of any wiki file (a page, a source, context.md, log.md, a snapshot, an audit log, a lock, a folder, the sources record; for capture, the project's `.mcp.json` and the session transcript) is refused at once with an `invalid` error naming its wiki path, never opened in a way that can wait: five reads of a FIFO, a write of its slug and a second server's write are all answered. `validate_structure` lists it; search, `list_pages` and `lint_findings` count it under `skipped`.",
		[]string{"cmd/llmwiki.TestFIFONeverBlocksAServer", "wiki.TestSpecialFilesNeverBlock", "wiki.TestSpecialStateFilesNeverBlock", "wiki.TestSpecialInPlaceOfAFolder", "wiki.TestSpecialLockFileRefusedAtOpen", "wiki/search.TestSpecialFilesSkippedAndCounted", "wiki/lint.TestSpecialFilesSkippedByLint", "wiki.TestSourcesRecordNotRegular", "wiki.TestSpecialAuditFileWhileRebuildingSources", "agents/install.TestFindProjectWikiSpecialFile", "cmd/llmwiki.TestCaptureTranscriptNotRegular"}},
	{"A person approves what agents write.",
		"In review mode `before`, nothing under pages/ or context.md changes without a person: a client declaring elicitation gets one form per change set and exactly the ticked actions run; decline or cancel writes nothing (every file's sha256 unchanged) and is audited as declined; without elicitation the set waits until `llmwiki review approve` or the review page approves it; nothing in tool arguments, `apply_plan`'s `selected` included, approves; an action whose page changed meanwhile is refused and the others still apply.",
		[]string{"cmd/llmwiki.TestReviewElicitationTicksTwoOfThree", "cmd/llmwiki.TestReviewElicitationDecline", "cmd/llmwiki.TestReviewBeforePendingApprovedByCLI", "cmd/llmwiki.TestReviewBeforeApplyPlanNeedsThePerson", "cmd/llmwiki.TestReviewApproveRefusesChangedPage", "cmd/llmwiki.TestBrowserModeBefore", "wiki/review.TestHeldFiles", "wiki/review.TestDecisionNeedsAPerson"}},
	{"A revert never loses a later change.",
		"In review mode `after`, reverting a write restores the byte-exact version before it in one audited write (a move with its rewritten links included); a file changed since is a conflict naming it and nothing is written; snapshot retention keeps every version an unreviewed write needs.",
		[]string{"cmd/llmwiki.TestReviewAfterRevert", "cmd/llmwiki.TestBrowserReviewFlow", "wiki/review.TestRevertUpdateByteExact", "wiki/review.TestRevertMoveRestoresAll", "wiki/review.TestRevertConflictWritesNothing", "wiki/review.TestRetentionKeepsUnreviewedVersions"}},
	{"The review page runs no agent script.",
		"Agent-written markdown, titles, takeaways and audit fields render inert in headless Chromium (no `<script>`, `javascript:` URL or `on*` attribute survives, no dialog opens); a cross-origin POST is refused and changes nothing.",
		[]string{"cmd/llmwiki.TestBrowserHostilePageInert", "server/ui.TestPageRendersInert", "server/ui.TestCrossOriginPostRefused", "server/ui.TestHistoryCrossOriginRestoreRefused"}},
	{"Shutdown is bounded.",
		"When stdin ends or SIGINT/SIGTERM arrives the server answers what it has read for up to `--shutdown-timeout`, then exits at most 2 s later whatever its handlers do, with a stuck write absent and its locks free; a second signal exits at once.",
		[]string{"cmd/llmwiki.TestShutdownBoundWithStuckHandler"}},
	{"A cancelled request is cancelled.",
		"Over stdio, streamable HTTP and SSE, a request whose `notifications/cancelled` arrives before its handler starts (in the same write) never runs; a call cancelled while it runs (a lint of 5,000 pages) stops; neither gets a response, both are audited as `cancelled`, and a cancelled write is whole or absent.",
		[]string{"cmd/llmwiki.TestCancelBeforeStartStdio", "server/httpserver.TestCancelBeforeStartHTTP", "cmd/llmwiki.TestCancelMidLint", "server/httpserver.TestCancelMidLint", "server/httpserver.TestHTTPCancelledNotificationStopsHandler", "tools.TestCancelledRequests"}},
	{"A read-only wiki still searches.",
		"On a root remounted read-only, `search_wiki` and `llmwiki search` find its pages through the wiki's index opened read-only or, when there is none, one built in the user's cache folder (`load_project` says which); every write tool is refused with \"the wiki is read-only; nothing was changed\" and no byte of the wiki changes.",
		[]string{"cmd/llmwiki.TestReadOnlyWiki", "wiki/search.TestReadOnlyWikiSearches", "wiki/search.TestReadOnlyViewFollowsOutsideEdits", "wiki.TestReadOnlyOpenWritesNothing"}},
	{"No text is silently unsearchable.",
		"Search, `propose_plan`, `llmwiki ingest` and lint's quote check use the text `read_page` shows (a Latin-1 or UTF-16 source is found by its accented words); text whose encoding cannot be known is marked uncertain on read, in search hits and by `validate_structure`, never shown as certain; every file search leaves out (binary, a name llmwiki will not serve such as tldr's 39 `..md`, unreadable, not a regular file) is counted by reason in the index state and named by `validate_structure`.",
		[]string{"cmd/llmwiki.TestUnservedFilesAreReportedEndToEnd", "wiki/search.TestSearchIndexesDecodedText", "wiki/mdoc.TestDecodeUncertainEncoding", "wiki.TestUncertainEncodingAndUnservedFiles", "wiki/search.TestTldrDotPagesAreCounted", "wiki/search.TestUnservableNameIndexedBeforeIsDropped", "wiki/plan.TestIngestLegacyEncodedSource", "wiki/lint.TestVerify"}},
	{"A read-only tool writes nothing.",
		"Every tool annotated read-only, called with every argument on a populated wiki, leaves the tree byte-identical but for its audit line; submitting and dismissing lint findings are the audited write tools `submit_lint_findings` and `dismiss_lint_findings`, absent from `--read-only` and from the librarian's allowlist.",
		[]string{"tools.TestReadOnlyToolsWriteNothing", "wiki/lint.TestRunWritesNothingDismissNeedsNoRun", "agents.TestAgentRoles"}},
	{"Sources are immutable, and the wiki says when someone broke that.",
		"A source whose bytes differ from those first seen, or that vanished, is an error in `validate_structure`, a lint finding and a line in `load_project` (hand-added sources and `research_save` appends are not); the record is rebuilt from the audit log when lost; `sources/x` resolves in sources/ only, never to the page `pages/sources/x.md`.",
		[]string{"wiki.TestSourceChangedOutsideIsAnError", "tools.TestSourceEditedByHandThroughTools", "wiki/lint.TestLintSourceChangedOutside", "wiki.TestSourcesRecordRebuilt", "tools.TestSourcesNameNeverReachesAPage"}},
	{"A captured session stores no secret.",
		"`llmwiki capture` replaces every value gitleaks' rules (its published list, pinned) or llmwiki's five extra rules match with `[REDACTED:<rule>]` before anything is written or cut; the source and the audit line count the values by kind, never hold one; the session goes into the wiki its project's `.mcp.json` names.",
		[]string{"cmd/llmwiki.TestCaptureRedactsSecrets", "wiki/transcript.TestParseRedactsBeforeCutting", "internal/redact.TestRulesCatchTranscriptSecrets", "internal/redact.TestRulesAreGitleaks", "cmd/llmwiki.TestCaptureIntoProjectWiki"}},
	{"Smaller promises kept.",
		"`atomic_write_context` logs its own `build` entry in the same write; values YAML 1.1 reads as booleans, null or numbers (`yes`, `off`, `~`) are written quoted; a CRLF file keeps CRLF on every line; a slug over 80 characters is refused with a shorter one to use, never cut; eval counts answers from nothing apart from wiki hits, and a transcript's reads as wasted only when the answer cites none of them.",
		[]string{"wiki.TestWriteContextLogsBuild", "wiki/mdoc.TestFrontmatterQuotesYAML11Specials", "tools.TestCRLFPageKeepsCRLF", "tools.TestLongSlugRefusedNeverCut", "wiki/eval.TestHitsFromNothingAndTranscriptWaste"}},
	{"Every client can pass every argument.",
		"Every tool's input and output schema gives each field one JSON type (optional means not required), every tool result matches its output schema, and the MCP Inspector CLI passes `tags` and `sources` arrays to `write_page`.",
		[]string{"tools.TestSchemasHaveSingleTypes", "tools.TestEveryToolOutputMatchesItsSchema", "tools.TestNullFree", "cmd/llmwiki.TestInspectorCLIPassesArrays"}},
	{"Install cannot hurt a config.",
		"Installing into a 1 MB, 30,000-line `~/.claude.json` allocates under 300 MB and prints a unified diff; Continue's user server goes to `~/.continue/mcpServers/llmwiki.yaml`, never shadowing `config.json`; Cline's entry goes into every Cline settings file that exists (or the one `--host` names); project files name `llmwiki` and the wiki without the installer's home path; `install claude-code` refuses beside the installed llmwiki plugin unless `--force`.",
		[]string{"agents/install.TestInstallLargeClaudeJSON", "agents/install.TestContinueUserNeverShadowsConfigJSON", "agents/install.TestClineHosts", "agents/install.TestProjectFilesShareable", "agents/install.TestClaudePluginInstalled", "cmd/llmwiki.TestInstallProjectShareable"}},
	{"A progress bar fills once.",
		"Per progress token on stdio, streamable HTTP and SSE, progress only rises and the total comes once, with the last notification; over HTTP a call's notifications arrive on its own response stream, before the response.",
		[]string{"tools.TestProgressRebuildIndexAndLint", "cmd/llmwiki.TestProgressStdioBarFillsOnce", "cmd/llmwiki.TestProgressHTTPBarFillsOnce", "server/httpserver.TestPostStreamOrdersNotificationsBeforeResponse"}},
	{"Unknown names are errors.",
		"`completion/complete` for an unknown prompt or resource template, `resources/subscribe` for a URI the server does not serve, and `prompts/get` with a required argument missing or blank or an argument the prompt does not take are JSON-RPC errors -32602 on every transport; a page named percent-encoded, as its resource URI spells it, resolves like its decoded name.",
		[]string{"cmd/llmwiki.TestProtocolLeniencyStdio", "server/httpserver.TestProtocolLeniencyHTTP", "wiki.TestResolvePagePercentEncoded"}},
	{"Only init and serve create a wiki.",
		"Every other command, the hooks included, refuses a folder that holds no wiki and leaves it unchanged; `llmwiki status` writes nothing, not even a lock file; `serve --http` on an address in use fails before it creates anything; an unreachable model is `unavailable`, named by its URL.",
		[]string{"cmd/llmwiki.TestCommandsRefuseAFolderWithoutAWiki", "cmd/llmwiki.TestStatusShowsTheWikiAndWritesNothing", "cmd/llmwiki.TestServeHTTPFailsFastOnAnAddressInUse", "wiki/model.TestEndpointDown"}},
	{"Links mean what they say.",
		"With `index: auto`, a page linked only from the generated index.md is an `orphan_page`; link syntax in a summary is text in index.md; `write_page` and `edit_page` list each new wikilink that leads nowhere with the page it probably meant; a search snippet marks a match with one pair of bold markers; a pages search that only sources answer says so.",
		[]string{"wiki/lint.TestOrphanGeneratedIndex", "wiki/links.TestRenderIndexEscapesSummaries", "wiki/lint.TestLintGeneratedIndexSummaries", "tools.TestWriteEditUnresolvedLinks", "wiki/search.TestSnippetBoldIsOnePair", "wiki/search.TestSourcesNote", "wiki/search.TestStatusCountsOnlyPages"}},
	{"One name per thing on the wire.",
		"Every tool's arguments and results follow one vocabulary (docs/design.md, \"Wire vocabulary\"): a file is `path`, an existing page `page`, a new name `slug`, text `content`, a list pages with `limit` and `cursor`/`next_cursor`, every result carries `warnings`; a call with an old name (`body`, `offset`, `from`) is refused with an `invalid` error naming the new one, and nothing is written.",
		[]string{"tools.TestWireVocabulary", "tools.TestRenamedArgumentsRefused", "tools.TestRenamedArgsTable"}},
	{"A heading inside code is code.",
		"One scanner of fences and headings (CommonMark's rules) serves every feature: `research_save`, page titles, sections, context.md's spill, log details, transcripts and search never read a `#` line inside a fenced code block as a heading, and a log detail cannot open a fence.",
		[]string{"wiki/mdoc.TestFences", "wiki/mdoc.TestDemoteHeadings", "wiki.TestResearchSaveKeepsCode", "wiki.TestFirstHeading", "wiki.TestHeadingsScan", "wiki.TestSpillCutScan", "wiki.TestRenderLogEntryEscapesFences", "wiki/search.TestScanMarkdownHeadings", "wiki/search.TestSnippetFenceStateFar", "wiki/transcript.TestDemoteKeepsCode"}},
	{"A setting is read one way.",
		"schema.md's settings are parsed once, by one rule: a value its key cannot use (a decimal for a whole number, a word for a number, anything but true or false for a switch) is refused, the default stays in force, and `load_project` and lint name the key.",
		[]string{"wiki.TestSettingsOneRule", "wiki.TestParseSettings"}},
	{"Layers point down.",
		"No package imports one above it (cmd → internal/app → server → tools → wiki → wiki/mdoc, wiki/changefeed → wiki/store → internal/), nothing below tools depends on mcp-go, and the store enforces the rules the wiki installs as its policy.",
		[]string{"internal/app.TestLayers", "wiki/store.TestPolicyEnforced", "wiki.TestInvariantLayers"}},
}

// renderStated writes one bullet per stated promise.
func renderStated(b *bytes.Buffer) {
	for _, p := range statedPromises {
		names := make([]string, len(p.tests))
		for i, t := range p.tests {
			names[i] = "`" + t + "`"
		}
		fmt.Fprintf(b, "- **%s** %s Proved by %s.\n", p.title, p.text, strings.Join(names, ", "))
	}
}

// testFuncs lists "package.TestName" for every test function in the
// repository under root.
func testFuncs(root string) (map[string]bool, error) {
	out := map[string]bool{}
	var relErr error
	err := testFiles(root, regexp.MustCompile(`(?m)^func (Test\w+)\(`), func(pkg, name string) {
		rel, err := filepath.Rel(root, filepath.FromSlash(pkg))
		if err != nil {
			relErr = err
			return
		}
		out[filepath.ToSlash(rel)+"."+name] = true
	})
	if err == nil {
		err = relErr
	}
	return out, err
}

// checkStated reports every test a stated promise names that the code
// under root does not define.
func checkStated(root string) error {
	have, err := testFuncs(root)
	if err != nil {
		return err
	}
	var missing []string
	for _, p := range statedPromises {
		for _, t := range p.tests {
			if !have[t] {
				missing = append(missing, t)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("the promises name tests that do not exist: %s", strings.Join(missing, ", "))
	}
	return nil
}
