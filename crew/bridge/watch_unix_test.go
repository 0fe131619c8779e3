//go:build unix

package bridge

// The process-group tests: on Unix a watched command leads its own
// process group, and abort or Ctrl+C must end all of it, children
// included (other platforms end the process only).

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"crewbench/crew"
	"crewbench/session"
)

func TestWatchAbortEndsTheProcessGroup(t *testing.T) {
	st := &scriptedStepper{bp: crew.Breakpoints{Tools: []string{"word_counter"}}, decisions: []crew.Decision{{Action: crew.Abort}}}
	res, evs, err := watchStub(t, st, stubEnv(t, "STUB_SPAWN_CHILD=1"), "native")
	if !errors.Is(err, crew.ErrAborted) || !res.Aborted {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if finalOutput(evs) != "" || strings.Contains(outputLines(evs), "word_counter received") {
		t.Fatal("the run went on after abort")
	}
	m := regexp.MustCompile(`child pid (\d+)`).FindStringSubmatch(outputLines(evs))
	if m == nil {
		t.Fatalf("no child pid in output:\n%s", outputLines(evs))
	}
	pid, _ := strconv.Atoi(m[1])
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the crew process survived the abort", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs; a zombie (killed, waiting for a reaper
// that containers often lack) does not count.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}

// Ctrl+C (the context ending) ends the command's whole process group.
func TestWatchCancelEndsTheProcessGroup(t *testing.T) {
	py := python3(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pids := make(chan int, 1)
	sink := session.SinkFunc(func(ev session.Event) {
		if m := regexp.MustCompile(`child pid (\d+)`).FindStringSubmatch(ev.Str(session.KeyLine)); m != nil {
			pid, _ := strconv.Atoi(m[1])
			pids <- pid
			cancel()
		}
	})
	start := time.Now()
	_, _ = Watch(ctx, Options{Sink: sink, Command: []string{py, "-c",
		"import subprocess, time; p = subprocess.Popen(['sleep', '300']); print('child pid', p.pid, flush=True); time.sleep(300)"}})
	if time.Since(start) > 20*time.Second {
		t.Fatalf("cancel took %v", time.Since(start))
	}
	pid := <-pids
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d survived the cancel", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A run so short that it exits before accept has taken its one connection
// loses nothing: Wait takes what waits in the listener's backlog before
// closing it. (The accept loop here starts late on purpose; in a real run
// that is a busy machine.)
func TestWaitTakesTheConnectionLeftInTheBacklog(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "b.sock"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no true(1): %v", err)
	}
	r := &Run{token: "tok", ln: ln, cmd: cmd, exited: make(chan struct{}), connected: make(chan struct{}),
		em: session.NewEmitter(&session.Collector{}), cancel: func() {}}
	close(r.exited)
	client, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	hello := `{"op":"hello","token":"tok","crewai_missing":true,"executable":"/venv/bin/python"}` + "\n"
	if _, err := client.Write([]byte(hello)); err != nil {
		t.Fatal(err)
	}
	_ = client.Close()
	if backlogEmpty(ln) {
		t.Fatal("backlogEmpty says empty with a connection waiting")
	}
	r.connWG.Add(1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		r.accept()
	}()
	_, err = r.Wait()
	var me *CrewAIMissingError
	if !errors.As(err, &me) || me.Executable != "/venv/bin/python" {
		t.Fatalf("err = %v, want the hello's CrewAIMissingError", err)
	}
	if !backlogEmpty(ln) {
		t.Error("backlogEmpty on a closed listener should say true")
	}
}

func TestBacklogEmptyOnTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !backlogEmpty(ln) {
		t.Fatal("a fresh listener has nothing waiting")
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if backlogEmpty(ln) {
		t.Fatal("a dialled connection should wait in the backlog")
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !backlogEmpty(ln) {
		t.Fatal("accepted: nothing should wait")
	}
}
