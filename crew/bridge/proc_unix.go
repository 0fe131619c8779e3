//go:build unix

package bridge

import (
	"errors"
	"net"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
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

// backlogEmpty reports whether no connection is waiting in ln's backlog: a
// listening socket polls readable while one is. It says true when it cannot
// tell, so a caller waiting for false never waits on an error.
func backlogEmpty(ln net.Listener) bool {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	empty := true
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, 0)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			empty = err != nil || n == 0
			return
		}
	})
	return empty
}
