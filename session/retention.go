package session

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Retention bounds the sessions directory: before a recording starts there,
// the oldest session files go until at most Files remain (counting the new
// one) and they hold at most Bytes. Only files named as NewSessionPath
// names them are touched.
type Retention struct {
	Files int   // 0: no bound on the count
	Bytes int64 // 0: no bound on the size
}

// Default retention, and the environment variables that change it.
const (
	DefaultKeepSessions     = 1000
	DefaultKeepSessionBytes = 1 << 30
	EnvKeepSessions         = "CREWBENCH_SESSIONS_KEEP"
	EnvKeepSessionBytes     = "CREWBENCH_SESSIONS_MAX_BYTES"
)

// RetentionFromEnv is the default retention with the environment's
// overrides: CREWBENCH_SESSIONS_KEEP (a count) and
// CREWBENCH_SESSIONS_MAX_BYTES (bytes, or with a KiB/MiB/GiB suffix); 0 in
// either lifts that bound.
func RetentionFromEnv() (Retention, error) {
	r := Retention{Files: DefaultKeepSessions, Bytes: DefaultKeepSessionBytes}
	if v := strings.TrimSpace(os.Getenv(EnvKeepSessions)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return r, fmt.Errorf("%s=%q: want a whole number of session files (0: keep all)", EnvKeepSessions, v)
		}
		r.Files = n
	}
	if v := strings.TrimSpace(os.Getenv(EnvKeepSessionBytes)); v != "" {
		n, err := parseByteSize(v)
		if err != nil {
			return r, fmt.Errorf("%s=%q: %w", EnvKeepSessionBytes, v, err)
		}
		r.Bytes = n
	}
	return r, nil
}

// parseByteSize reads 1048576, 512KiB, 100MiB or 1GiB.
func parseByteSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a size in bytes such as 1073741824 or 1GiB (0: no limit)")
	}
	return n * mult, nil
}

var sessionFileName = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-[0-9a-f]{6}\.jsonl$`)

// Prune deletes the oldest session files in dir so that, with one more
// file to come, at most r.Files remain and they hold at most r.Bytes. It
// returns the files it removed.
func (r Retention) Prune(dir string) ([]string, error) {
	if r.Files <= 0 && r.Bytes <= 0 {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("session retention: %w", err)
	}
	type file struct {
		name string
		size int64
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() || !sessionFileName.MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		files = append(files, file{e.Name(), info.Size()})
	}
	// Names sort by start time: newest first.
	sort.Slice(files, func(i, j int) bool { return files[i].name > files[j].name })
	var removed []string
	var total int64
	kept, full := 0, false
	for _, f := range files {
		// Once a bound is reached, everything older goes.
		full = full || (r.Files > 0 && kept+1 >= r.Files) || (r.Bytes > 0 && total+f.size > r.Bytes)
		if !full {
			kept++
			total += f.size
			continue
		}
		p := filepath.Join(dir, f.name)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return removed, fmt.Errorf("session retention: %w", err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}
