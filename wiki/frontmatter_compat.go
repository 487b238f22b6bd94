package wiki

import "github.com/llmwiki/llmwiki/wiki/mdoc"

// Temporary aliases while the callers move to wiki/mdoc (removed by the
// rename commit that follows).
type (
	FrontmatterFormat = mdoc.FrontmatterFormat
	Doc               = mdoc.Doc
	Field             = mdoc.Field
)

const (
	FormatNone = mdoc.FormatNone
	FormatYAML = mdoc.FormatYAML
	FormatTOML = mdoc.FormatTOML
	FormatJSON = mdoc.FormatJSON
)

var (
	Removed          = mdoc.Removed
	ParseDoc         = mdoc.ParseDoc
	RenderDoc        = mdoc.RenderDoc
	MetaString       = mdoc.MetaString
	MetaList         = mdoc.MetaList
	MergeFrontmatter = mdoc.MergeFrontmatter
)

const MaxSlugLen = mdoc.MaxSlugLen

var (
	Slugify       = mdoc.Slugify
	NewSlug       = mdoc.NewSlug
	NormalizeSlug = mdoc.NormalizeSlug
	NewSlugName   = mdoc.NewSlugName
	ValidSlug     = mdoc.ValidSlug
)
