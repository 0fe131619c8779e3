//go:build !unix

package bridge

import "os/exec"

func ownProcessGroup(*exec.Cmd) {}

// signalGroup ends the command itself: without process groups its children
// may outlive it.
func signalGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
