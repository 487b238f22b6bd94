package wikitest

// SearchBenchQueries are the search benchmarks' queries (wiki/search's
// BenchmarkSearch in the process, cmd/llmwiki's BenchmarkSearchStdio over
// stdio; one list, so the two compare): plain queries of one to three
// words, in English, over topics both tldr and Obsidian Help hold; the same
// list at every size.
var SearchBenchQueries = []string{
	"link", "tags", "canvas file", "extract archive", "search", "graph view",
	"sync settings", "git commit", "markdown table", "embed images",
	"keyboard shortcuts", "plugin", "list files directory", "daily notes",
	"publish site", "copy files remote", "templates", "callout", "properties",
	"compress", "workspace layout", "backlinks", "format disk", "theme css",
}
