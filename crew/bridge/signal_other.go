//go:build !unix

package bridge

import "os/exec"

func signalName(*exec.ExitError) string { return "" }
