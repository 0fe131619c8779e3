// Package bridge runs a user's own CrewAI command under crewbench
// (`crewbench watch -- crewai run`): it injects a small Python bridge with a
// sitecustomize.py on PYTHONPATH, accepts the bridge's connection on a
// loopback socket, turns CrewAI's events into session.Events (the same kind
// of session an engine run records), and answers breakpoint requests
// through the same crew.Stepper the engine uses.
//
// The Python side (python/) is embedded and written to a directory of the
// user's cache for each version of it (a private temporary directory when
// there is none). It is standard library only and works on Python
// 3.10-3.13; see crewbench_bridge.py for the wire protocol.
package bridge

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

//go:embed python/crewbench_bridge.py python/sitecustomize.py
var pythonFiles embed.FS

var pythonNames = []string{"crewbench_bridge.py", "sitecustomize.py"}

// embeddedPython is the contents of pythonNames, in that order.
func embeddedPython() ([][]byte, error) {
	files := make([][]byte, len(pythonNames))
	for i, name := range pythonNames {
		b, err := pythonFiles.ReadFile("python/" + name)
		if err != nil {
			return nil, fmt.Errorf("bridge: embedded %s: %w", name, err)
		}
		files[i] = b
	}
	return files, nil
}

// writePython writes the bridge and its sitecustomize.py into dir.
func writePython(dir string) error {
	files, err := embeddedPython()
	if err != nil {
		return err
	}
	for i, name := range pythonNames {
		if err := os.WriteFile(filepath.Join(dir, name), files[i], 0o600); err != nil {
			return fmt.Errorf("bridge: write %s: %w", name, err)
		}
	}
	return nil
}

// cachedPython returns a directory under base holding this version of the
// bridge's Python files, writing them the first time. Python keeps their
// bytecode beside them (unless PYTHONDONTWRITEBYTECODE), so a run after
// the first does not compile the bridge again: ~10 ms of every run's
// start. The directory is named by the files' hash, so its files never
// change once written (Python checks its cache by their mtime and size);
// a file that differs (edited, or cut short) is replaced whole, by rename.
func cachedPython(base string) (string, error) {
	files, err := embeddedPython()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for i, name := range pythonNames {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(files[i]))
		h.Write(files[i])
	}
	dir := filepath.Join(base, "crewbench", "bridge-"+hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("bridge: cache directory: %w", err)
	}
	// Code other users could change would run in the user's crew.
	info, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("bridge: cache directory: %w", err)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("bridge: cache directory %s is writable by others", dir)
	}
	for i, name := range pythonNames {
		path := filepath.Join(dir, name)
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, files[i]) {
			continue
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("bridge: read %s: %w", path, err)
		}
		tmp, err := os.CreateTemp(dir, name+".*")
		if err != nil {
			return "", fmt.Errorf("bridge: write %s: %w", path, err)
		}
		_, werr := tmp.Write(files[i])
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			_ = os.Remove(tmp.Name())
			return "", fmt.Errorf("bridge: write %s: %w", path, err)
		}
		if err := os.Rename(tmp.Name(), path); err != nil { // atomic: a concurrent run sees the old file or the new
			_ = os.Remove(tmp.Name())
			return "", fmt.Errorf("bridge: write %s: %w", path, err)
		}
	}
	return dir, nil
}
