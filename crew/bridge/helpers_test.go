package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"crewbench/crew"
	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

func TestMain(m *testing.M) {
	fixturetest.RunIfFixture()
	// Watch keeps the bridge's files in the user's cache: the tests' go in
	// one of their own (os.UserCacheDir reads XDG_CACHE_HOME on Linux).
	cache, err := os.MkdirTemp("", "crewbench-bridge-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge tests:", err)
		os.Exit(1)
	}
	_ = os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	_ = os.RemoveAll(cache)
	os.Exit(code)
}

// python3 returns the machine's python3 (CREWBENCH_TEST_PYTHON picks
// another interpreter, to run the suite on each of 3.10-3.13). In CI
// (CREWBENCH_CI=1) a missing python3 fails the test: the bridge must be
// tested there.
func python3(t testing.TB) string {
	t.Helper()
	name := "python3"
	if p := os.Getenv("CREWBENCH_TEST_PYTHON"); p != "" {
		name = p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CREWBENCH_CI") == "1" {
			t.Fatalf("python3 is required in CI: %v", err)
		}
		t.Skipf("python3 not on PATH: %v", err)
	}
	return p
}

// stubEnv is the environment that runs testdata/project against the stub
// crewai package, with the weather fixture as its MCP server.
func stubEnv(t testing.TB, extra ...string) []string {
	t.Helper()
	stub, _ := filepath.Abs("testdata/stub")
	cmd, args := fixturetest.Command("weather")
	argv, _ := json.Marshal(append([]string{cmd}, args...))
	env := append(os.Environ(), "PYTHONPATH="+stub, "STUB_MCP_COMMAND="+string(argv), "PYTHONDONTWRITEBYTECODE=1")
	return append(env, extra...)
}

// watchStub runs `python3 -m stubcrew.main ARGS…` under the bridge.
func watchStub(t *testing.T, stepper crew.Stepper, env []string, args ...string) (*Result, []session.Event, error) {
	t.Helper()
	py := python3(t)
	col := &session.Collector{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Watch(ctx, Options{
		Command: append([]string{py, "-m", "stubcrew.main"}, args...),
		Dir:     "testdata/project", Env: env, Sink: col, RunID: "run-1", Stepper: stepper,
	})
	return res, col.Events(), err
}

// crewaiKinds lists the CrewAI events in arrival order.
func crewaiKinds(evs []session.Event) []string {
	var out []string
	for _, ev := range evs {
		if _, ok := ev.Data[KeyCrewAIClass]; ok {
			out = append(out, string(ev.Kind))
		}
	}
	return out
}

// scriptedStepper answers pauses with fixed decisions and records them.
type scriptedStepper struct {
	bp        crew.Breakpoints
	decisions []crew.Decision
	pauses    []*crew.Pause
}

func (s *scriptedStepper) Breakpoints() crew.Breakpoints { return s.bp }

func (s *scriptedStepper) Before(_ context.Context, p *crew.Pause) (crew.Decision, error) {
	s.pauses = append(s.pauses, p)
	if len(s.decisions) == 0 {
		return crew.Decision{Action: crew.Continue}, nil
	}
	d := s.decisions[0]
	s.decisions = s.decisions[1:]
	return d, nil
}
