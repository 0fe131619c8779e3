package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"crewbench/fixtures/demo"
)

// demoDirPrefix names the temporary directories the embedded demo is
// written into: crewbench-demo-<pid>-<random>. The pid lets a later start
// remove what a killed process left behind.
const demoDirPrefix = "crewbench-demo-"

// materializeDemo writes the embedded demo project into a fresh temporary
// directory and returns the project's path and the function that removes
// the directory (every exit path calls it; a signal ends commands through
// their context, so deferred cleanups run). Directories of processes that
// no longer exist are removed first.
func materializeDemo() (path string, cleanup func(), err error) {
	removeStaleDemoDirs(os.TempDir())
	dir, err := os.MkdirTemp("", demoDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", func() {}, fmt.Errorf("demo: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	if path, err = demo.Materialize(filepath.Join(dir, "project")); err != nil {
		cleanup()
		return "", func() {}, fmt.Errorf("demo: %w", err)
	}
	return path, cleanup, nil
}

// removeStaleDemoDirs removes the demo directories under tmp whose process
// is gone. Directories without a pid (older crewbench versions) are left.
func removeStaleDemoDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), demoDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}
