package session

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// One event's payload fields are capped in the file and marked; a large
// argument repeated in many events no longer multiplies the file.
func TestRecorderCapsLargeFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	rec, err := Create(path, RecorderOptions{MaxField: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("é", 5000) // 10,000 bytes, cut on a rune boundary
	rec.Emit(Event{Kind: ToolUsageStarted, Span: "s1", Error: big,
		Data: map[string]any{KeyToolArgs: map[string]any{"blob": big}, "small": "kept"}})
	rec.Emit(Event{Kind: ToolUsageFinished, Span: "s1", Data: map[string]any{KeyOutput: "short"}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev := f.Events[0]
	args, _ := ev.Data[KeyToolArgs].(string)
	if len(args) > 1<<10+64 || !strings.Contains(args, "truncated, 10011 bytes in all") || !strings.HasPrefix(args, `{"blob":"éé`) {
		t.Errorf("tool args in the file: %d bytes %.80q…", len(args), args)
	}
	if len(ev.Error) > 1<<10+64 || !strings.Contains(ev.Error, "truncated, 10000 bytes in all") {
		t.Errorf("error in the file: %d bytes", len(ev.Error))
	}
	if ev.Data["small"] != "kept" || strings.Join(toStrings(ev.Data[KeyTruncated]), ",") != "error,"+KeyToolArgs {
		t.Errorf("data %v", ev.Data)
	}
	if _, marked := f.Events[1].Data[KeyTruncated]; marked {
		t.Error("a small event was marked truncated")
	}

	// A 4 MiB argument carried by 15 events (prompt history, tool and MCP
	// scopes) writes at most 15 × 1 MiB, not 60 MiB.
	path = filepath.Join(t.TempDir(), "repeat.jsonl")
	rec, err = Create(path, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	arg := strings.Repeat("x", 4<<20)
	for i := range 15 {
		rec.Emit(Event{Kind: LLMCallStarted, Span: "llm", Seq: int64(i), Data: map[string]any{"messages": []any{map[string]any{"content": arg}}}})
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() > 16<<20 {
		t.Errorf("session file %d MiB for a 4 MiB argument in 15 events", st.Size()>>20)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// Recording into the sessions directory first deletes the oldest session
// files beyond the count and byte bounds, and nothing else.
func TestSessionRetention(t *testing.T) {
	fill := func(t *testing.T) string {
		dir := t.TempDir()
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range 10 {
			p := NewSessionPath(dir, start.Add(time.Duration(i)*time.Minute))
			if err := os.WriteFile(p, []byte(strings.Repeat("x", 100)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte(strings.Repeat("y", 5000)), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	record := func(t *testing.T, dir string, keep *Retention) []string {
		rec, err := CreateInDir(dir, RecorderOptions{Retention: keep})
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return names
	}
	t.Run("count", func(t *testing.T) {
		dir := fill(t)
		names := record(t, dir, &Retention{Files: 5})
		// 4 old ones (the newest: 00:06 … 00:09), the new one, notes.jsonl.
		if len(names) != 6 || !strings.HasPrefix(names[0], "2026-01-01T00-06") || names[5] != "notes.jsonl" {
			t.Errorf("kept %v", names)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		dir := fill(t)
		names := record(t, dir, &Retention{Bytes: 350})
		if len(names) != 5 || !strings.HasPrefix(names[0], "2026-01-01T00-07") {
			t.Errorf("kept %v", names)
		}
	})
	t.Run("env", func(t *testing.T) {
		dir := fill(t)
		t.Setenv(EnvKeepSessions, "3")
		if names := record(t, dir, nil); len(names) != 4 {
			t.Errorf("kept %v", names)
		}
		t.Setenv(EnvKeepSessions, "many")
		if _, err := CreateInDir(dir, RecorderOptions{}); err == nil || !strings.Contains(err.Error(), EnvKeepSessions) {
			t.Errorf("bad %s: %v", EnvKeepSessions, err)
		}
		t.Setenv(EnvKeepSessions, "")
		t.Setenv(EnvKeepSessionBytes, "1KiB")
		if r, err := RetentionFromEnv(); err != nil || r.Bytes != 1024 || r.Files != DefaultKeepSessions {
			t.Errorf("retention %+v, %v", r, err)
		}
	})
}
