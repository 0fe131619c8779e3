package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestWorkbenchRejectsAnUnknownTheme(t *testing.T) {
	var out, errb bytes.Buffer
	code := execute(context.Background(), []string{"demo", "--theme", "solarized"}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), `unknown theme "solarized"`) {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
}

func TestRootAndDemoOfferTheThemeFlag(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"demo", "--help"}} {
		var out, errb bytes.Buffer
		if code := execute(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: code %d %s", args, code, errb.String())
		}
		if !strings.Contains(out.String(), "--theme") || !strings.Contains(out.String(), "high-contrast") {
			t.Errorf("%v help lacks --theme:\n%s", args, out.String())
		}
	}
}

// Bare crewbench outside a project opens the demo and says why.
func TestWorkbenchFallsBackToTheDemo(t *testing.T) {
	w, err := loadWorkspace(workbenchOptions{path: t.TempDir(), demoIfNone: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.cleanup()
	if w.ws.Name != "demo" || len(w.ws.Servers) != 4 || w.runner == nil {
		t.Fatalf("workspace %+v", w.ws)
	}
	if len(w.ws.Notes) == 0 || !strings.Contains(w.ws.Notes[0], "showing the demo") {
		t.Errorf("notes %q", w.ws.Notes)
	}
	// The demo's `crewbench fixture NAME` servers run this executable;
	// their names still come from "crewbench".
	for _, s := range w.ws.Servers {
		if s.Spec.Command != "crewbench" || s.Spec.Executable == "" || s.Spec.Env["TMPDIR"] == "" {
			t.Errorf("server %s: command %q executable %q env %v", s.Spec.Name, s.Spec.Command, s.Spec.Executable, s.Spec.Env)
		}
	}
	if _, err := loadWorkspace(workbenchOptions{path: t.TempDir()}); err == nil {
		t.Error("without the fallback, no project is an error")
	}
}

// `crewbench demo` runs the workbench and q quits it cleanly, reaping the
// servers it started.
func TestDemoQuitsCleanly(t *testing.T) {
	if !fixtureDispatch {
		t.Skip("needs the fixture dispatch in TestMain")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"demo", "--theme", "no-colour"}, strings.NewReader("q"), &out, &errb)
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("code %d stderr %s", code, errb.String())
		}
	case <-ctx.Done():
		t.Fatal("the workbench did not quit on q")
	}
}
