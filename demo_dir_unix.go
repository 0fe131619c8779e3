//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid exists (EPERM: it exists, owned by
// someone else).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
