package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// ValidateStructureInput takes no arguments.
type ValidateStructureInput struct{}

// ValidateStructureOutput lists layout problems.
type ValidateStructureOutput struct {
	wiki.Structure
	Notes
}

// ValidateStructure returns the validate_structure tool.
func ValidateStructure(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "validate_structure", Toolset: "lint", Title: "Validate structure",
		Description: "Check the wiki's layout: missing folders or files, pages whose frontmatter does not parse, files in the wrong layer, one page saved under two names, symlinks leading outside, leftover temp files, FIFOs, sockets or devices in a file's place, sources changed or deleted outside llmwiki since they were first seen, and every page or source not served in full (a hidden or unusable name, a binary file search cannot index, text whose encoding could not be determined). Each problem says how to fix it. Run it before and after a build.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, _ ValidateStructureInput) (ValidateStructureOutput, error) {
			s, err := d.Store.ValidateStructure(ctx)
			return ValidateStructureOutput{Structure: s}, err
		})
}
