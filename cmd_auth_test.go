package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/mcpconn/oauth/oauthtest"
)

// protectedServer is a real MCP server (one tool, "echo") behind the fake
// authorization server's token check.
func protectedServer(t *testing.T) *oauthtest.Server {
	t.Helper()
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true, ChallengeScope: "mcp:tools", RequiredScopes: []string{"mcp:tools"}})
	fake.Protect(oauthtest.EchoMCP())
	t.Cleanup(fake.Close)
	return fake
}

func TestAuthSmokeOAuthHeadlessStoresTokenOutsideRecording(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	fake := protectedServer(t)
	rec := filepath.Join(t.TempDir(), "smoke.jsonl")

	// Without a token and without --oauth: the 401 is a connection failure.
	if code, out, errs := run(t, "smoke", "--no-record", fake.MCPURL()); code != exitConnection {
		t.Fatalf("without a token: exit %d\n%s\n%s", code, out, errs)
	}
	if len(fake.Seen().AuthQueries) != 0 {
		t.Fatal("ran the OAuth flow without --oauth")
	}

	code, out, errs := run(t, "smoke", "--oauth=headless", "--record", rec, fake.MCPURL())
	if code != 0 {
		t.Fatalf("smoke --oauth=headless: exit %d\n%s\n%s", code, out, errs)
	}
	tokenFile := filepath.Join(state, "crewbench", "oauth-tokens.json")
	fi, err := os.Stat(tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v", err, fi)
	}
	stored, _ := os.ReadFile(tokenFile)
	if !strings.Contains(string(stored), "at-secret-") {
		t.Fatalf("no access token stored:\n%s", stored)
	}
	recorded, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"at-secret-", "rt-secret-", "Bearer at-"} {
		if strings.Contains(string(recorded), s) || strings.Contains(out+errs, s) {
			t.Fatalf("%q leaked into the recording or the output", s)
		}
	}

	// The stored token is reused without --oauth.
	if code, out, errs := run(t, "smoke", "--no-record", fake.MCPURL()); code != 0 || len(fake.Seen().AuthQueries) != 1 {
		t.Fatalf("reuse: exit %d, %d authorizations\n%s\n%s", code, len(fake.Seen().AuthQueries), out, errs)
	}

	code, out, _ = run(t, "auth", "status", fake.MCPURL())
	if code != 0 || !strings.Contains(out, "client dcr-client-") || !strings.Contains(out, "scope mcp:tools") ||
		!strings.Contains(out, "refreshable") || strings.Contains(out, "secret-") {
		t.Fatalf("auth status: exit %d\n%s", code, out)
	}
	if code, out, errs := run(t, "auth", "logout", fake.MCPURL()); code != 0 || !strings.Contains(out, "logged out") {
		t.Fatalf("logout: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := run(t, "auth", "status", fake.MCPURL()); code != exitConnection || !strings.Contains(out, "not logged in") {
		t.Fatalf("status after logout: exit %d\n%s", code, out)
	}
}

func TestAuthLoginHeadless(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	fake := protectedServer(t)
	code, out, errs := run(t, "auth", "login", "--headless", fake.MCPURL())
	if code != 0 || !strings.Contains(out, "logged in to "+fake.MCPURL()) || strings.Contains(out+errs, "at-secret-") {
		t.Fatalf("login: exit %d\n%s\n%s", code, out, errs)
	}
	// The challenge's scope was requested.
	if got := fake.Seen().AuthQueries[0].Get("scope"); got != "mcp:tools" {
		t.Errorf("scope %q", got)
	}
	// CrewAI's policies send only the configured headers, never the stored token.
	code, out, errs = run(t, "call", "--url", fake.MCPURL(), "--policy", "native", "--no-record", "echo")
	if code != exitConnection {
		t.Fatalf("native call with a stored token: exit %d\n%s\n%s", code, out, errs)
	}
	for _, b := range fake.Bearers()[len(fake.Bearers())-1:] {
		if b != "" {
			t.Fatalf("native policy sent %q", b)
		}
	}
	code, out, errs = run(t, "call", "--url", fake.MCPURL(), "--policy", "session", "--no-record", "echo")
	if code != 0 || !strings.Contains(out, "hello") {
		t.Fatalf("session call: exit %d\n%s\n%s", code, out, errs)
	}
}

func TestAuthUsageErrors(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if code, _, _ := run(t, "auth", "login", "ftp://x"); code != exitUsage {
		t.Errorf("login ftp: exit %d", code)
	}
	if code, _, _ := run(t, "auth", "logout", "https://nowhere.example/mcp"); code != exitUsage {
		t.Errorf("logout unknown: exit %d", code)
	}
	if code, _, errs := run(t, "smoke", "--oauth=sideways", "--no-record", "http://127.0.0.1:1/mcp"); code != exitUsage || !strings.Contains(errs, "unknown mode") {
		t.Errorf("bad --oauth: exit %d %s", code, errs)
	}
}
