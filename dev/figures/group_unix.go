//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// setGroup starts cmd in a process group of its own and makes its
// cancellation kill the whole group, so the test binaries and servers that
// go test and go run start end with it.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
