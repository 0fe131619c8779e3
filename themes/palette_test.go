package themes

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

// TestEveryPaletteSetsEveryRole fails when a role is added to Palette but
// forgotten in one theme.
func TestEveryPaletteSetsEveryRole(t *testing.T) {
	colorType := reflect.TypeOf((*lipgloss.TerminalColor)(nil)).Elem()
	for _, name := range Names() {
		p, ok := ByName(name)
		if !ok {
			t.Fatalf("ByName(%q) not found", name)
		}
		if p.Name != name {
			t.Errorf("ByName(%q).Name = %q", name, p.Name)
		}
		v := reflect.ValueOf(p)
		roles := 0
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Type != colorType {
				continue
			}
			roles++
			if v.Field(i).IsNil() {
				t.Errorf("theme %s: role %s is not set", name, f.Name)
			}
		}
		if roles < 10 {
			t.Fatalf("found only %d colour roles; did the field type change?", roles)
		}
	}
}

func TestNoColorPaletteHasNoColour(t *testing.T) {
	p := NoColor()
	if !p.NoColor {
		t.Fatal("NoColor().NoColor = false")
	}
	v := reflect.ValueOf(p)
	for i := 0; i < v.NumField(); i++ {
		if c, ok := v.Field(i).Interface().(lipgloss.TerminalColor); ok {
			if _, isNo := c.(lipgloss.NoColor); !isNo {
				t.Errorf("role %s = %#v, want lipgloss.NoColor", v.Type().Field(i).Name, c)
			}
		}
	}
}

func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noColor bool
		want    string
		wantErr bool
	}{
		{"", false, NameAuto, false},
		{"", true, NameNoColor, false},
		{"auto", true, NameNoColor, false},
		{"dark", true, NameDark, false}, // an explicit theme beats NO_COLOR
		{"Light", false, NameLight, false},
		{"no-color", false, NameNoColor, false},
		{"hc", false, NameHighContrast, false},
		{"solarized", false, "", true},
	} {
		p, err := Select(tc.name, tc.noColor)
		if (err != nil) != tc.wantErr {
			t.Errorf("Select(%q, %v) err = %v, wantErr %v", tc.name, tc.noColor, err, tc.wantErr)
			continue
		}
		if err == nil && p.Name != tc.want {
			t.Errorf("Select(%q, %v) = %s, want %s", tc.name, tc.noColor, p.Name, tc.want)
		}
	}
}

func TestAutoAdaptsToBackground(t *testing.T) {
	a, d, l := Auto(), Dark(), Light()
	ac, ok := a.Danger.(lipgloss.AdaptiveColor)
	if !ok {
		t.Fatalf("Auto().Danger is %T, want AdaptiveColor", a.Danger)
	}
	if ac.Dark != string(d.Danger.(lipgloss.Color)) || ac.Light != string(l.Danger.(lipgloss.Color)) {
		t.Fatalf("Auto().Danger = %#v, want dark %v light %v", ac, d.Danger, l.Danger)
	}
}
