package prompt

import (
	"testing"
	"time"
)

// Every directive against what CPython's datetime.strftime prints on Linux
// (glibc, C locale) for a naive datetime(2026, 3, 7, 9, 5, 3, 123456):
// python3 -c "import datetime; print(datetime.datetime(2026,3,7,9,5,3,123456).strftime(F))".
func TestStrftime(t *testing.T) {
	sat := time.Date(2026, 3, 7, 9, 5, 3, 123456000, time.UTC)
	cases := []struct {
		format string
		at     time.Time
		want   string
	}{
		{"%Y-%m-%d", sat, "2026-03-07"}, // CrewAI's default date_format
		{"%A, %d %B %Y %H:%M", sat, "Saturday, 07 March 2026 09:05"},
		{"%a %b %e", sat, "Sat Mar  7"},
		{"%j %U %W %u %w", sat, "066 09 09 6 6"},
		{"%y %C %G %g %V", sat, "26 20 2026 26 10"},
		{"%I %p %k %l", sat, "09 AM  9  9"},
		{"%f", sat, "123456"},
		{"[%z][%Z]", sat, "[][]"}, // datetime.now() is naive: no offset, no zone name
		{"%c", sat, "Sat Mar  7 09:05:03 2026"},
		{"%x %X %D", sat, "03/07/26 09:05:03 03/07/26"},
		{"%F %T %R %r", sat, "2026-03-07 09:05:03 09:05 09:05:03 AM"},
		{"%h%n%t", sat, "Mar\n\t"},
		{"%Q %% %", sat, "%Q % %"}, // glibc copies an unknown directive and a lone % as written
		{"%I:%M %p", time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC), "11:59 PM"},
		{"%I %l", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "12 12"},
		// 1 January 2027 is a Friday: ISO week 53 of 2026, week 00 by %U/%W.
		{"%G-W%V-%u %U %W", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), "2026-W53-5 00 00"},
		{"%U %W", time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC), "01 00"}, // a Sunday
		{"Heute ist %A 📅", sat, "Heute ist Saturday 📅"},
	}
	for _, c := range cases {
		if got := Strftime(c.at, c.format); got != c.want {
			t.Errorf("Strftime(%q) = %q, want %q", c.format, got, c.want)
		}
	}
}

// _build_date_block (utilities/prompts.py:143-163): the block needs one of
// VALID_DATE_FORMAT_CODES in the format, else CrewAI warns and adds none.
func TestDateBlock(t *testing.T) {
	at := time.Date(2026, 3, 7, 9, 5, 3, 0, time.UTC)
	cases := []struct {
		format, want, err string
	}{
		{"%Y-%m-%d", "\n\nCurrent Date: 2026-03-07", ""},
		{"%d/%m", "\n\nCurrent Date: 07/03", ""},
		{"week %V of %Y", "\n\nCurrent Date: week 10 of 2026", ""},
		{"%V", "", "Failed to inject date: Invalid date format: %V"}, // a real directive, but not one CrewAI accepts
		{"today", "", "Failed to inject date: Invalid date format: today"},
		{"", "", "Failed to inject date: Invalid date format: "},
	}
	for _, c := range cases {
		got, err := DateBlock(c.format, at)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != c.want || gotErr != c.err {
			t.Errorf("DateBlock(%q) = %q, %q; want %q, %q", c.format, got, gotErr, c.want, c.err)
		}
	}
}
