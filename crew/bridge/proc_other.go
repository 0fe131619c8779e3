//go:build !unix

package bridge

import (
	"net"
	"os/exec"
)

func ownProcessGroup(*exec.Cmd) {}

// signalGroup ends the command itself: without process groups its children
// may outlive it.
func signalGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// backlogEmpty cannot look into the backlog here; it says true, so Wait
// closes the listener at once, as it always has on these systems.
func backlogEmpty(net.Listener) bool { return true }
