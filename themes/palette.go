// Package themes holds the workbench's colour palettes. A palette names
// colours by role (text, accent, success, danger, …); ui/styles.go turns a
// palette into lipgloss styles. Nothing here builds a style or reads the
// environment: the composition root decides which palette applies.
package themes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Palette is one theme: a colour for every role the UI draws with.
// Every field must be set (a test checks it by reflection), so adding a role
// cannot silently leave one theme without it.
type Palette struct {
	// Name is the theme's name as --theme spells it.
	Name string
	// NoColor says the palette draws without colour: selection and state
	// must then be carried by glyphs and text attributes (the UI always
	// draws glyphs anyway).
	NoColor bool

	Text   lipgloss.TerminalColor // ordinary text
	Muted  lipgloss.TerminalColor // secondary text: metadata, hints
	Subtle lipgloss.TerminalColor // tertiary: rules, disabled items

	Accent      lipgloss.TerminalColor // titles, active tab, links
	Border      lipgloss.TerminalColor // blurred pane borders
	FocusBorder lipgloss.TerminalColor // the focused pane's border
	SelectionFg lipgloss.TerminalColor // the cursor row's text
	SelectionBg lipgloss.TerminalColor // the cursor row's background
	Match       lipgloss.TerminalColor // fuzzy-search matched characters

	Success lipgloss.TerminalColor // ready, kept, ok
	Warning lipgloss.TerminalColor // warnings, retries, slow
	Danger  lipgloss.TerminalColor // failures, filtered-out, errors
	Busy    lipgloss.TerminalColor // connecting, running
	Info    lipgloss.TerminalColor // LLM calls, notes

	BannerFg lipgloss.TerminalColor // text on a banner (failure, pause)
	HeaderBg lipgloss.TerminalColor // the header bar
	HeaderFg lipgloss.TerminalColor // text on the header bar
}

// Theme names accepted by ByName (and --theme).
const (
	NameAuto         = "auto"
	NameDark         = "dark"
	NameLight        = "light"
	NameHighContrast = "high-contrast"
	NameNoColor      = "no-colour"
)

// aliases map other spellings to a theme name.
var aliases = map[string]string{
	"":              NameAuto,
	"default":       NameAuto,
	"no-color":      NameNoColor,
	"nocolor":       NameNoColor,
	"none":          NameNoColor,
	"mono":          NameNoColor,
	"hc":            NameHighContrast,
	"highcontrast":  NameHighContrast,
	"high_contrast": NameHighContrast,
}

// Names lists the theme names, sorted.
func Names() []string {
	out := []string{NameAuto, NameDark, NameLight, NameHighContrast, NameNoColor}
	sort.Strings(out)
	return out
}

// ByName returns the palette called name (case-insensitive; aliases
// accepted) and whether it exists.
func ByName(name string) (Palette, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[n]; ok {
		n = a
	}
	switch n {
	case NameAuto:
		return Auto(), true
	case NameDark:
		return Dark(), true
	case NameLight:
		return Light(), true
	case NameHighContrast:
		return HighContrast(), true
	case NameNoColor:
		return NoColor(), true
	}
	return Palette{}, false
}

// Select picks the palette for a session: the named theme, except that an
// unnamed or "auto" theme becomes no-colour when noColor is set (the
// NO_COLOR convention: an explicit --theme still wins).
func Select(name string, noColor bool) (Palette, error) {
	p, ok := ByName(name)
	if !ok {
		return Palette{}, fmt.Errorf("unknown theme %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	if noColor && p.Name == NameAuto {
		return NoColor(), nil
	}
	return p, nil
}

// adaptive pairs a light-background and a dark-background colour; lipgloss
// picks one from the detected terminal background.
func adaptive(light, dark string) lipgloss.AdaptiveColor {
	return lipgloss.AdaptiveColor{Light: light, Dark: dark}
}

// Auto adapts to the terminal background: Light's colours on a light
// terminal, Dark's on a dark one.
func Auto() Palette {
	d, l := Dark(), Light()
	pick := func(lc, dc lipgloss.TerminalColor) lipgloss.TerminalColor {
		return adaptive(string(lc.(lipgloss.Color)), string(dc.(lipgloss.Color)))
	}
	return Palette{
		Name:        NameAuto,
		Text:        pick(l.Text, d.Text),
		Muted:       pick(l.Muted, d.Muted),
		Subtle:      pick(l.Subtle, d.Subtle),
		Accent:      pick(l.Accent, d.Accent),
		Border:      pick(l.Border, d.Border),
		FocusBorder: pick(l.FocusBorder, d.FocusBorder),
		SelectionFg: pick(l.SelectionFg, d.SelectionFg),
		SelectionBg: pick(l.SelectionBg, d.SelectionBg),
		Match:       pick(l.Match, d.Match),
		Success:     pick(l.Success, d.Success),
		Warning:     pick(l.Warning, d.Warning),
		Danger:      pick(l.Danger, d.Danger),
		Busy:        pick(l.Busy, d.Busy),
		Info:        pick(l.Info, d.Info),
		BannerFg:    pick(l.BannerFg, d.BannerFg),
		HeaderBg:    pick(l.HeaderBg, d.HeaderBg),
		HeaderFg:    pick(l.HeaderFg, d.HeaderFg),
	}
}

// Dark is for dark terminals.
func Dark() Palette {
	return Palette{
		Name:        NameDark,
		Text:        lipgloss.Color("#D8DEE9"),
		Muted:       lipgloss.Color("#8B95A7"),
		Subtle:      lipgloss.Color("#4C566A"),
		Accent:      lipgloss.Color("#88C0D0"),
		Border:      lipgloss.Color("#3B4252"),
		FocusBorder: lipgloss.Color("#88C0D0"),
		SelectionFg: lipgloss.Color("#ECEFF4"),
		SelectionBg: lipgloss.Color("#434C5E"),
		Match:       lipgloss.Color("#EBCB8B"),
		Success:     lipgloss.Color("#A3BE8C"),
		Warning:     lipgloss.Color("#EBCB8B"),
		Danger:      lipgloss.Color("#BF616A"),
		Busy:        lipgloss.Color("#81A1C1"),
		Info:        lipgloss.Color("#B48EAD"),
		BannerFg:    lipgloss.Color("#2E3440"),
		HeaderBg:    lipgloss.Color("#3B4252"),
		HeaderFg:    lipgloss.Color("#ECEFF4"),
	}
}

// Light is for light terminals.
func Light() Palette {
	return Palette{
		Name:        NameLight,
		Text:        lipgloss.Color("#2E3440"),
		Muted:       lipgloss.Color("#5E6779"),
		Subtle:      lipgloss.Color("#A7AEBB"),
		Accent:      lipgloss.Color("#1F6F8B"),
		Border:      lipgloss.Color("#C9CED8"),
		FocusBorder: lipgloss.Color("#1F6F8B"),
		SelectionFg: lipgloss.Color("#1B1F27"),
		SelectionBg: lipgloss.Color("#DCE3EE"),
		Match:       lipgloss.Color("#B35C00"),
		Success:     lipgloss.Color("#2E7D32"),
		Warning:     lipgloss.Color("#9A6700"),
		Danger:      lipgloss.Color("#C62828"),
		Busy:        lipgloss.Color("#3455A4"),
		Info:        lipgloss.Color("#7B3F8C"),
		BannerFg:    lipgloss.Color("#FFFFFF"),
		HeaderBg:    lipgloss.Color("#DCE3EE"),
		HeaderFg:    lipgloss.Color("#1B1F27"),
	}
}

// HighContrast uses the terminal's own bright ANSI colours, which users
// tune for legibility, on maximum-contrast text.
func HighContrast() Palette {
	return Palette{
		Name:        NameHighContrast,
		Text:        adaptive("0", "15"),
		Muted:       adaptive("0", "15"),
		Subtle:      adaptive("8", "7"),
		Accent:      adaptive("4", "14"),
		Border:      adaptive("0", "15"),
		FocusBorder: adaptive("5", "11"),
		SelectionFg: adaptive("15", "0"),
		SelectionBg: adaptive("0", "15"),
		Match:       adaptive("5", "11"),
		Success:     adaptive("2", "10"),
		Warning:     adaptive("3", "11"),
		Danger:      adaptive("1", "9"),
		Busy:        adaptive("4", "12"),
		Info:        adaptive("5", "13"),
		BannerFg:    adaptive("15", "0"),
		HeaderBg:    adaptive("0", "15"),
		HeaderFg:    adaptive("15", "0"),
	}
}

// NoColor draws no colour at all (NO_COLOR, dumb terminals, screen
// readers). The UI still shows state with glyphs and bold/reverse.
func NoColor() Palette {
	n := lipgloss.NoColor{}
	return Palette{
		Name: NameNoColor, NoColor: true,
		Text: n, Muted: n, Subtle: n, Accent: n, Border: n, FocusBorder: n,
		SelectionFg: n, SelectionBg: n, Match: n,
		Success: n, Warning: n, Danger: n, Busy: n, Info: n,
		BannerFg: n, HeaderBg: n, HeaderFg: n,
	}
}
