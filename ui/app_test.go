package ui

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
)

// CI machines have 2 cores and run with -race: allow far more than the 1 s default.
const flowWait = 60 * time.Second

// screenHas waits until the rendered output contains every text.
func screenHas(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	// b is everything written since the wait began (teatest keeps it), so
	// it is searched as it is: appending it at each poll grew the text
	// quadratically and could join the end of one copy to the start of
	// the next.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		plain := ansi.Strip(string(b))
		// UI_FLOW_DEBUG=FILE keeps the latest screen text, to see why a
		// flow timed out.
		if os.Getenv("UI_FLOW_DEBUG") != "" {
			_ = os.WriteFile(os.Getenv("UI_FLOW_DEBUG"), []byte(plain), 0o644)
		}
		for _, s := range texts {
			if !strings.Contains(plain, s) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(flowWait), teatest.WithCheckInterval(20*time.Millisecond))
}

func send(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		switch k {
		case "enter":
			tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
		case "ctrl+u":
			tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
		default:
			for _, r := range k {
				tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		}
	}
}

func finalModel(t *testing.T, tm *teatest.TestModel) Model {
	t.Helper()
	return tm.FinalModel(t, teatest.WithFinalTimeout(flowWait)).(Model)
}

// Flow: find which LLM name a camelCase tool gets, by its original name.
func TestFlow_SearchAToolByItsOriginalName(t *testing.T) {
	tm := teatest.NewTestModel(t, New(goldenDeps()), teatest.WithInitialTermSize(100, 30))
	screenHas(t, tm, "servers 2/3 ready")
	send(tm, "2", "/", "getForecast")
	screenHas(t, tm, "/getForecast", "crewbench_fixture_weather_get_forecast")
	send(tm, "enter", "enter")
	screenHas(t, tm, "How the name is derived", "split camelCase")
	send(tm, "esc", "q")
	fm := finalModel(t, tm)
	if fm.view != viewTools || fm.tools.query != "getForecast" {
		t.Fatalf("view %v query %q", fm.view, fm.tools.query)
	}
	r, _ := fm.tools.selectedRow()
	if r.tool.LLMName != "crewbench_fixture_weather_get_forecast" {
		t.Errorf("selected %s", r.tool.LLMName)
	}
	teatest.RequireEqualOutput(t, []byte(fm.View()))
}

// Flow: a camelCase entry keeps nothing; the hint's fix keeps the tool again.
func TestFlow_EditAFilterAndSeeTheVerdictChange(t *testing.T) {
	tm := teatest.NewTestModel(t, New(goldenDeps()), teatest.WithInitialTermSize(100, 30))
	screenHas(t, tm, "servers 2/3 ready")
	send(tm, "3")
	screenHas(t, tm, "Filter playground", "keeps 1 of 2")
	send(tm, "e", "ctrl+u", "getForecast")
	screenHas(t, tm, "keeps 0 of 2", "did you mean")
	send(tm, "esc")
	send(tm, "F")
	screenHas(t, tm, "keeps 1 of 2", "✓ kept")
	send(tm, "q")
	fm := finalModel(t, tm)
	if got := fm.filter.fields[fieldAllowed].Value(); got != "get_forecast" {
		t.Errorf("allowed = %q", got)
	}
}

// Secrets never reach the screen, whatever view shows the server.
func TestNoSecretOnAnyScreen(t *testing.T) {
	secret := regexp.MustCompile(`sk-live-secret-value-123|sk-very-secret|abc123secret`)
	for _, sz := range goldenSizes {
		for _, sc := range screens {
			m := sc.build(t, sz.w, sz.h)
			if loc := secret.FindStringIndex(m.View()); loc != nil {
				t.Errorf("%s at %s shows a secret: %q", sc.name, sz.name, m.View()[loc[0]:loc[1]])
			}
		}
	}
}
