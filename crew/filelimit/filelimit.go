// Package filelimit reads the files of a user's project with two
// guarantees the plain os.ReadFile lacks: only regular files are opened (a
// FIFO named crew.py would block the open forever, a symlink to /dev/zero
// would never end), and no read takes more than a documented number of
// bytes, so a huge or hostile file costs a clear error instead of the
// machine's memory.
package filelimit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Limits by kind of file. CREWBENCH_MAX_FILE_BYTES overrides all of them.
const (
	// Config is for crew, agent, task, overlay and mcpServers files, .env
	// and pyproject.toml.
	Config int64 = 8 << 20
	// Source is for Python files (crew.py, main.py, tools).
	Source int64 = 8 << 20
	// Script is for scripted-LLM scripts and recorded inputs.
	Script int64 = 32 << 20
)

// OverrideEnv names the variable that replaces every limit (bytes).
const OverrideEnv = "CREWBENCH_MAX_FILE_BYTES"

// ErrNotRegular is returned for anything but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// Limit is limit, or the override from the environment when it is set to
// a positive number of bytes.
func Limit(limit int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(OverrideEnv), 10, 64); err == nil && v > 0 {
		return v
	}
	return limit
}

// Read returns the content of the regular file at path (symlinks followed)
// if it holds at most Limit(limit) bytes.
func Read(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := Check(st, Limit(limit)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	max := Limit(limit)
	// The file may have grown since the stat: read one byte past the limit
	// to tell. The buffer is sized from the stat (plus one byte to see EOF)
	// so a file costs its size once, not the doubling io.ReadAll does.
	b := make([]byte, 0, min(st.Size(), max)+1)
	r := io.LimitReader(f, max+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w: more than %s (set %s to raise the limit)", path, ErrTooLarge, Size(max), OverrideEnv)
	}
	return b, nil
}

// Check says why a file with this info cannot be read under limit, or nil.
func Check(st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w (%s); crewbench reads only regular files", ErrNotRegular, kindOf(st.Mode()))
	}
	if st.Size() > limit {
		return fmt.Errorf("%w: %s is over the %s limit (set %s to raise it)", ErrTooLarge, Size(st.Size()), Size(limit), OverrideEnv)
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// Size renders a byte count as people read it ("8 MiB", "12.5 MiB", "300 B").
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}
