//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

func signalName(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
