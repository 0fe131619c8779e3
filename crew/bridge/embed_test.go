package bridge

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"crewbench/session"
)

// The bridge's files are written to the cache once per version, and left
// alone after that (a rewrite would change their mtime, and Python would
// compile them again); a file that differs is replaced; a directory other
// users can write is refused.
func TestCachedPythonWritesOnceAndRepairs(t *testing.T) {
	base := t.TempDir()
	dir, err := cachedPython(base)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, name := range pythonNames {
			want, _ := pythonFiles.ReadFile("python/" + name)
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %s differs from the embedded file (%v)", when, name, err)
			}
		}
	}
	check("first run")
	bridgePy := filepath.Join(dir, "crewbench_bridge.py")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(bridgePy, old, old); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		prepare   func()
		rewritten bool
	}{
		{"unchanged", func() {}, false},
		{"edited", func() { _ = os.WriteFile(bridgePy, []byte("x = 1\n"), 0o600) }, true},
		{"cut short", func() { _ = os.Truncate(bridgePy, 10) }, true},
		{"removed", func() { _ = os.Remove(bridgePy) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.prepare()
			_ = os.Chtimes(bridgePy, old, old)
			again, err := cachedPython(base)
			if err != nil || again != dir {
				t.Fatalf("second call: %q, %v; want %q", again, err, dir)
			}
			check(tc.name)
			info, err := os.Stat(bridgePy)
			if err != nil {
				t.Fatal(err)
			}
			if rewritten := !info.ModTime().Equal(old); rewritten != tc.rewritten {
				t.Fatalf("rewritten = %v, want %v", rewritten, tc.rewritten)
			}
		})
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := cachedPython(base); err == nil {
		t.Fatal("a cache directory writable by others was used")
	}
}

// A watched run loads the bridge from the cache, so Python's bytecode of
// it is there for the next run.
func TestWatchLoadsTheBridgeFromTheCache(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "crewai")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "__init__.py"), []byte("__version__ = '1.15.17'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Watch(t.Context(), Options{
		Command: []string{python3(t), "-c", "import crewai"},
		Env:     append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE="), Sink: &session.Collector{},
	})
	if err != nil || len(res.Bridges) != 1 {
		t.Fatalf("watch: %v (%d bridges)", err, len(res.Bridges))
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	pyc, _ := filepath.Glob(filepath.Join(base, "crewbench", "bridge-*", "__pycache__", "crewbench_bridge.*.pyc"))
	if len(pyc) == 0 {
		t.Fatalf("no bytecode of the bridge under %s", base)
	}
}
