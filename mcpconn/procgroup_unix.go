//go:build unix

package mcpconn

import (
	"os/exec"
	"syscall"
	"time"
)

// startOwnGroup starts the child in a new session, as the MCP SDK's
// start_new_session=True does on POSIX (crewai-semantics.md §6); the child
// also leads a new process group (pgid = pid), which the functions below
// signal, so grandchildren (npx → node, uv → python) go with it.
func startOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// terminateGroup sends SIGTERM to the child's whole process group.
func terminateGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the child's whole process group.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// reapGroup terminates whatever is left of the child's process group after
// the leader is gone (a wrapper that exited while its child kept running):
// SIGTERM, a short wait, then SIGKILL.
func reapGroup(cmd *exec.Cmd, grace time.Duration) {
	pgid := cmd.Process.Pid
	if syscall.Kill(-pgid, 0) != nil {
		return // group is empty
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
