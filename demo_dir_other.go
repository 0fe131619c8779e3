//go:build !unix

package main

// processAlive cannot be checked cheaply here, so nothing counts as stale.
func processAlive(int) bool { return true }
