//go:build unix

package lint

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copyTree copies a testdata project into a temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// A FIFO or a symlink to /dev/zero anywhere the loader or lint reads
// (crew.py, main.py, tasks.yaml, any *.py) is refused with a clear
// finding; nothing blocks or reads without end.
func TestSpecialFilesNeverBlock(t *testing.T) {
	const pkg = "src/latest_ai_development/"
	for _, tc := range []struct {
		file, how, want string
	}{
		{pkg + "crew.py", "fifo", "named pipe"},
		{pkg + "main.py", "fifo", "named pipe"},
		{pkg + "config/tasks.yaml", "zero", "character device"},
		{pkg + "tools/extra.py", "fifo", ""},
		{pkg + "tools/zero.py", "zero", ""},
	} {
		t.Run(tc.file+" "+tc.how, func(t *testing.T) {
			dir := copyTree(t, "../project/testdata/classic/scaffold")
			path := filepath.Join(dir, tc.file)
			_ = os.Remove(path)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.how == "fifo" {
				err = syscall.Mkfifo(path, 0o644)
			} else {
				err = os.Symlink("/dev/zero", path)
			}
			if err != nil {
				t.Skip("cannot make the special file:", err)
			}
			done := make(chan []Finding, 1)
			go func() {
				_, findings, _ := LintPath(context.Background(), dir, "", Options{})
				done <- findings
			}()
			select {
			case findings := <-done:
				if tc.want == "" {
					return
				}
				var all []string
				for _, f := range findings {
					all = append(all, f.Message)
				}
				if !strings.Contains(strings.Join(all, "\n"), tc.want) {
					t.Errorf("no finding says %q:\n%s", tc.want, strings.Join(all, "\n"))
				}
			case <-time.After(time.Minute):
				t.Fatal("lint blocked on a special file")
			}
		})
	}
}
