// Package bridge runs a user's own CrewAI command under crewbench
// (`crewbench watch -- crewai run`): it injects a small Python bridge with a
// sitecustomize.py on PYTHONPATH, accepts the bridge's connection on a
// loopback socket, turns CrewAI's events into session.Events (the same kind
// of session an engine run records), and answers breakpoint requests
// through the same crew.Stepper the engine uses.
//
// The Python side (python/) is embedded and written to a private temporary
// directory for each run. It is standard library only and works on Python
// 3.10-3.13; see crewbench_bridge.py for the wire protocol.
package bridge

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

//go:embed python/crewbench_bridge.py python/sitecustomize.py
var pythonFiles embed.FS

// writePython writes the bridge and its sitecustomize.py into dir.
func writePython(dir string) error {
	for _, name := range []string{"crewbench_bridge.py", "sitecustomize.py"} {
		b, err := pythonFiles.ReadFile("python/" + name)
		if err != nil {
			return fmt.Errorf("bridge: embedded %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return fmt.Errorf("bridge: write %s: %w", name, err)
		}
	}
	return nil
}
