package tools

import "testing"

// BenchmarkCatalogueSchemas builds the whole catalogue with the schemas of
// schemas_gen.go and with schemas reflected from the Go types, the cost
// every server start pays (docs/performance.md, "Tool schemas at start"):
//
//	go test ./tools -run '^$' -bench CatalogueSchemas -benchtime 1x -count 5
func BenchmarkCatalogueSchemas(b *testing.B) {
	for _, c := range []struct {
		name string
		deps Deps
	}{
		{"generated", Deps{}},
		{"reflected", Deps{reflectSchemas: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if len(Catalogue(c.deps)) == 0 {
					b.Fatal("empty catalogue")
				}
			}
		})
	}
}
