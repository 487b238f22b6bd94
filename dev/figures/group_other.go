//go:build !unix

package main

import "os/exec"

// setGroup leaves cmd as it is: without process groups, cancellation kills
// the command alone.
func setGroup(cmd *exec.Cmd) {}
