//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the command in a process group of its own, so
// ending the run ends everything it started (`crewai run` → `uv run` →
// python → MCP servers).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the command's whole process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
