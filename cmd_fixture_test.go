package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"crewbench/fixtures"
)

// lockedBuffer is a goroutine-safe stderr for commands that keep running.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestFixtureCommand(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout []string
		wantStderr string // exact
	}{
		{name: "list", args: []string{"fixture", "--list"}, wantStdout: []string{"weather ", "inventory ", "legacy ", "tools: getAlerts, getForecast"}},
		{name: "unknown", args: []string{"fixture", "everything-lite"}, wantCode: 1,
			wantStderr: "crewbench: unknown fixture \"everything-lite\"; run `crewbench fixture --list`\n"},
		{name: "missing name", args: []string{"fixture"}, wantCode: 1,
			wantStderr: "crewbench: missing fixture name; run `crewbench fixture --list`\n"},
		{name: "fixture exit code", args: []string{"fixture", "crash-on-start"}, wantCode: 3,
			wantStderr: fixtures.CrashOnStartMessage + "\n"},
		{name: "fixture flags pass through", args: []string{"fixture", "crash-on-start", "--code", "5"}, wantCode: 5,
			wantStderr: fixtures.CrashOnStartMessage + "\n"},
		{name: "bad fixture flag", args: []string{"fixture", "weather", "--nope"}, wantCode: 2},
		{
			name: "stdio", args: []string{"fixture", "weather"},
			stdin: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"t","version":"1"},"capabilities":{}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n",
			wantStdout: []string{`"serverInfo":{"name":"crewbench-fixture-weather"`, `"name":"getForecast"`},
			wantStderr: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var stdout, stderr bytes.Buffer
			code := execute(ctx, tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.wantCode, stderr.String())
			}
			for _, want := range tt.wantStdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout misses %q:\n%s", want, stdout.String())
				}
			}
			if tt.wantStderr != "" || tt.wantCode == 0 {
				if stderr.String() != tt.wantStderr {
					t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr)
				}
			}
		})
	}
}

func TestFixtureCommandListJSON(t *testing.T) {
	var stdout bytes.Buffer
	if code := execute(context.Background(), []string{"fixture", "--list", "--json"}, strings.NewReader(""), &stdout, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	var list []fixtures.ServerInfo
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(list) != len(fixtures.Servers()) {
		t.Errorf("%d fixtures listed, want %d", len(list), len(fixtures.Servers()))
	}
}

// --http reaches the fixture through cobra: it listens, prints its URL,
// answers MCP over HTTP and stops cleanly when the context is cancelled.
func TestFixtureCommandHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"fixture", "inventory", "--http", "127.0.0.1:0"}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	var url string
	deadline := time.Now().Add(10 * time.Second)
	for url == "" {
		if _, after, ok := strings.Cut(stderr.String(), "fixture inventory listening on "); ok && strings.Contains(after, "\n") {
			url = strings.TrimSpace(strings.SplitN(after, "\n", 2)[0])
		}
		if time.Now().After(deadline) {
			t.Fatalf("no URL; stderr: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("url = %q", url)
	}

	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer rcancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"t","version":"1"},"capabilities":{}}}`
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(out.String(), `"name":"crewbench-fixture-inventory"`) {
		t.Errorf("initialize over HTTP: %s %s", resp.Status, out.String())
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d after cancel; stderr: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fixture did not stop after cancel")
	}
}
