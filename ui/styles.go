package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"

	"crewbench/themes"
)

// Styles are every style the workbench draws with, built once from a
// palette. This is the only file that turns palette roles into styles.
type Styles struct {
	Palette themes.Palette

	Header struct {
		Bar, Title, Meta, Sep         lipgloss.Style
		Tab, TabActive, TabKey        lipgloss.Style
		Ready, Connecting, Failed, Na lipgloss.Style
	}
	Pane struct {
		Focused, Blurred  lipgloss.Style
		Title, TitleMuted lipgloss.Style
	}
	Row struct {
		Normal, Selected, Muted, Subtle lipgloss.Style
		Cursor                          lipgloss.Style // the "›" glyph
		Match, MatchSelected            lipgloss.Style
		Header                          lipgloss.Style // column headings
	}
	State struct {
		Ready, Connecting, Failed, Closed lipgloss.Style
	}
	Verdict struct {
		Kept, Filtered, Skipped lipgloss.Style
	}
	Text struct {
		Normal, Muted, Subtle, Bold, Accent lipgloss.Style
		Success, Warning, Danger, Info, Key lipgloss.Style
		Heading                             lipgloss.Style
	}
	Banner struct {
		Failure, Warning, Pause, OK lipgloss.Style
	}
	Trace struct {
		Crew, Task, Agent, Step, LLM, Tool, MCP, Attempt, Conn lipgloss.Style
		Running, OK, Failed, Cancelled                         lipgloss.Style
		Badge                                                  lipgloss.Style
		Duration                                               lipgloss.Style
	}
	Form struct {
		Label, LabelFocused, Required, Hint, Error lipgloss.Style
		Button, ButtonFocused                      lipgloss.Style
	}
	Status struct {
		Info, Warn, Error lipgloss.Style
	}
	Help help.Styles
}

// NewStyles builds the styles for palette p.
func NewStyles(p themes.Palette) *Styles {
	s := &Styles{Palette: p}
	fg := func(c lipgloss.TerminalColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }

	s.Text.Normal = fg(p.Text)
	s.Text.Muted = fg(p.Muted)
	s.Text.Subtle = fg(p.Subtle)
	s.Text.Bold = fg(p.Text).Bold(true)
	s.Text.Accent = fg(p.Accent)
	s.Text.Success = fg(p.Success)
	s.Text.Warning = fg(p.Warning)
	s.Text.Danger = fg(p.Danger)
	s.Text.Info = fg(p.Info)
	s.Text.Key = fg(p.Accent).Bold(true)
	s.Text.Heading = fg(p.Accent).Bold(true)

	s.Header.Bar = lipgloss.NewStyle().Foreground(p.HeaderFg).Background(p.HeaderBg)
	s.Header.Title = s.Header.Bar.Bold(true)
	s.Header.Meta = s.Header.Bar
	s.Header.Sep = s.Header.Bar
	s.Header.Ready = s.Header.Bar.Foreground(p.Success)
	s.Header.Connecting = s.Header.Bar.Foreground(p.Busy)
	s.Header.Failed = s.Header.Bar.Foreground(p.Danger).Bold(true)
	s.Header.Na = s.Header.Bar
	s.Header.Tab = fg(p.Muted)
	s.Header.TabActive = fg(p.Accent).Bold(true).Underline(true)
	s.Header.TabKey = fg(p.Subtle)

	s.Pane.Blurred = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(p.Border).Padding(0, 1)
	s.Pane.Focused = s.Pane.Blurred.BorderForeground(p.FocusBorder)
	s.Pane.Title = fg(p.Accent).Bold(true)
	s.Pane.TitleMuted = fg(p.Muted)

	s.Row.Normal = fg(p.Text)
	s.Row.Selected = lipgloss.NewStyle().Foreground(p.SelectionFg).Background(p.SelectionBg).Bold(true)
	s.Row.Muted = fg(p.Muted)
	s.Row.Subtle = fg(p.Subtle)
	s.Row.Cursor = fg(p.Accent).Bold(true)
	s.Row.Match = fg(p.Match).Bold(true).Underline(true)
	s.Row.MatchSelected = s.Row.Selected.Foreground(p.Match).Underline(true)
	s.Row.Header = fg(p.Muted).Bold(true)

	s.State.Ready = fg(p.Success)
	s.State.Connecting = fg(p.Busy)
	s.State.Failed = fg(p.Danger).Bold(true)
	s.State.Closed = fg(p.Subtle)

	s.Verdict.Kept = fg(p.Success)
	s.Verdict.Filtered = fg(p.Danger)
	s.Verdict.Skipped = fg(p.Warning)

	banner := lipgloss.NewStyle().Bold(true).Foreground(p.BannerFg).Padding(0, 1)
	s.Banner.Failure = banner.Background(p.Danger)
	s.Banner.Warning = banner.Background(p.Warning)
	s.Banner.Pause = banner.Background(p.Busy)
	s.Banner.OK = banner.Background(p.Success)
	if p.NoColor {
		// Without colour a banner must still stand out.
		for _, b := range []*lipgloss.Style{&s.Banner.Failure, &s.Banner.Warning, &s.Banner.Pause, &s.Banner.OK} {
			*b = b.Reverse(true)
		}
		s.Row.Selected = s.Row.Selected.Reverse(true)
	}

	s.Trace.Crew = fg(p.Accent).Bold(true)
	s.Trace.Task = fg(p.Accent)
	s.Trace.Agent = fg(p.Text).Bold(true)
	s.Trace.Step = fg(p.Muted)
	s.Trace.LLM = fg(p.Info)
	s.Trace.Tool = fg(p.Text)
	s.Trace.MCP = fg(p.Busy)
	s.Trace.Attempt = fg(p.Muted)
	s.Trace.Conn = fg(p.Muted)
	s.Trace.Running = fg(p.Busy)
	s.Trace.OK = fg(p.Success)
	s.Trace.Failed = fg(p.Danger).Bold(true)
	s.Trace.Cancelled = fg(p.Warning)
	s.Trace.Badge = fg(p.Warning)
	s.Trace.Duration = fg(p.Muted)

	s.Form.Label = fg(p.Muted)
	s.Form.LabelFocused = fg(p.Accent).Bold(true)
	s.Form.Required = fg(p.Danger).Bold(true)
	s.Form.Hint = fg(p.Subtle)
	s.Form.Error = fg(p.Danger)
	s.Form.Button = fg(p.Muted).Border(lipgloss.NormalBorder(), false, false, false, false)
	s.Form.ButtonFocused = fg(p.Accent).Bold(true).Reverse(true)

	s.Status.Info = fg(p.Muted)
	s.Status.Warn = fg(p.Warning)
	s.Status.Error = fg(p.Danger).Bold(true)

	s.Help = help.Styles{
		Ellipsis:       fg(p.Subtle),
		ShortKey:       fg(p.Accent),
		ShortDesc:      fg(p.Muted),
		ShortSeparator: fg(p.Subtle),
		FullKey:        fg(p.Accent),
		FullDesc:       fg(p.Muted),
		FullSeparator:  fg(p.Subtle),
	}
	return s
}
