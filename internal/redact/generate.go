package redact

//go:generate go test -run TestRulesAreGitleaks -update .
