package main

// The README's tool and toolset tables are generated from the tool
// registry (TestReadmeToolTable).
//go:generate go test -run TestReadmeToolTable -update .
