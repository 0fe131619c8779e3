//go:build unix

package mcpconn

import (
	"os/exec"
	"syscall"
)

// Process probes and signals for tests, per platform: on Unix a stdio
// server leads its own process group, which Close must reap whole.

// aliveOrGroup reports whether pid, or any process in its group, exists.
func aliveOrGroup(pid int) bool { return syscall.Kill(pid, 0) == nil || groupAlive(pid) }

// groupAlive reports whether any process in group pgid exists.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// killNow kills pid at once (a server dying under the client).
func killNow(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// ownGroup makes cmd lead a new process group.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup asks group pgid to stop, or kills it.
func signalGroup(pgid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pgid, sig)
}
