package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// All screen arithmetic lives here, so a lipgloss v2 migration (where Width
// counts the border too) changes this file only.

// Minimum usable terminal size; smaller terminals get a one-line notice.
const (
	minWidth  = 60
	minHeight = 16
)

// inner is the content area of frame inside an outer w×h box.
func inner(frame lipgloss.Style, w, h int) (int, int) {
	return max(0, w-frame.GetHorizontalFrameSize()), max(0, h-frame.GetVerticalFrameSize())
}

// box renders content as exactly w×h cells. lipgloss v1: Width/Height count
// padding but not border or margin. content is clipped to the inner area
// first, because Height is a minimum, not a maximum.
func box(frame lipgloss.Style, w, h int, content string) string {
	iw, ih := inner(frame, w, h)
	content = clipLines(content, iw, ih)
	return frame.
		Width(max(0, w-frame.GetHorizontalBorderSize()-frame.GetHorizontalMargins())).
		Height(max(0, h-frame.GetVerticalBorderSize()-frame.GetVerticalMargins())).
		MaxHeight(h).
		Render(content)
}

// clipLines keeps at most h lines, each truncated to w cells with an
// ellipsis. Styled text is truncated with ansi.Truncate, never by bytes.
func clipLines(s string, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// fit truncates one line to w cells with an ellipsis.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// fitMiddle truncates one line to w cells by cutting its middle, so both
// ends stay readable: tool names carry the server at the start and the tool
// at the end ("crewbench_fix…get_forecast"). Styled text is cut with ansi.
func fitMiddle(s string, w int) string {
	n := ansi.StringWidth(s)
	if n <= w {
		return s
	}
	if w < 8 {
		return fit(s, w)
	}
	left := (w - 1) / 2
	right := w - 1 - left
	return ansi.Truncate(s, left, "") + "…" + ansi.TruncateLeft(s, n-right, "")
}

// pad truncates or right-pads one line to exactly w cells.
func pad(s string, w int) string {
	s = fit(s, w)
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// padLeft left-pads (or truncates) one line to exactly w cells.
func padLeft(s string, w int) string {
	s = fit(s, w)
	if n := ansi.StringWidth(s); n < w {
		s = strings.Repeat(" ", w-n) + s
	}
	return s
}

// fillLines pads a block to exactly h lines of w cells.
func fillLines(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = pad(l, w)
	}
	return strings.Join(lines, "\n")
}

// splitH divides w columns into a left part of about frac and the rest,
// giving the left at least minLeft and the right at least minRight when
// possible.
func splitH(w int, frac float64, minLeft, minRight int) (int, int) {
	l := int(float64(w) * frac)
	l = max(l, minLeft)
	if w-l < minRight {
		l = w - minRight
	}
	l = clamp(l, 0, w)
	return l, w - l
}

// splitV is splitH for rows.
func splitV(h int, frac float64, minTop, minBottom int) (int, int) {
	return splitH(h, frac, minTop, minBottom)
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}

// window returns the first visible row so that cursor stays on screen
// with height rows, keeping offset where possible.
func window(cursor, offset, height, n int) int {
	if height <= 0 || n <= 0 {
		return 0
	}
	switch {
	case cursor < offset:
		offset = cursor
	case cursor >= offset+height:
		offset = cursor - height + 1
	}
	return clamp(offset, 0, max(0, n-height))
}
