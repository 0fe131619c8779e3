//go:build unix

package filelimit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "crew.py")
	if err := os.WriteFile(small, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "main.py")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	zero := filepath.Join(dir, "tasks.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}

	if b, err := Read(small, 100); err != nil || string(b) != "x = 1\n" {
		t.Errorf("small file: %q, %v", b, err)
	}
	if _, err := Read(big, 1024); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2.0 KiB is over the 1.0 KiB limit") {
		t.Errorf("big file: %v", err)
	}
	t.Setenv(OverrideEnv, "4096")
	if _, err := Read(big, 1024); err != nil {
		t.Errorf("override: %v", err)
	}
	t.Setenv(OverrideEnv, "")

	for _, p := range []string{fifo, zero, dir} {
		done := make(chan error, 1)
		go func() { _, err := Read(p, 1<<20); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: %v, want ErrNotRegular", filepath.Base(p), err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: Read blocked", filepath.Base(p))
		}
	}
}
