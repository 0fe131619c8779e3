//go:build windows

package mcpconn

import (
	"os"
	"os/exec"
)

// Windows has no process groups to signal: the probes look at the process
// itself (FindProcess opens a handle, which fails once it has exited).

func aliveOrGroup(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

func groupAlive(pgid int) bool { return aliveOrGroup(pgid) }

func killNow(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func ownGroup(*exec.Cmd) {}

func signalGroup(pgid int, _ bool) { killNow(pgid) }
