package prompt

import (
	"fmt"
	"strings"
	"time"
)

// validDateCodes is VALID_DATE_FORMAT_CODES (utilities/prompts.py:13-24):
// a date_format must contain one of them, else CrewAI injects no date.
var validDateCodes = []string{"%Y", "%m", "%d", "%H", "%M", "%S", "%B", "%b", "%A", "%a"}

// DateBlock is Prompts._build_date_block (utilities/prompts.py:143-163):
// "\n\nCurrent Date: " and now formatted with date_format. A format without
// any of CrewAI's valid codes is an error with CrewAI's warning text, and
// no block (CrewAI logs "Failed to inject date: …" and goes on).
func DateBlock(dateFormat string, now time.Time) (string, error) {
	valid := false
	for _, code := range validDateCodes {
		if strings.Contains(dateFormat, code) {
			valid = true
			break
		}
	}
	if !valid {
		return "", TextError("Failed to inject date: Invalid date format: " + dateFormat)
	}
	return CurrentDate + Strftime(now, dateFormat), nil
}

var (
	weekdays = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

func pad2(n int) string         { return fmt.Sprintf("%02d", n) }
func spacePadded2(n int) string { return fmt.Sprintf("%2d", n) }
func twelveHour(h int) int      { return (h+11)%12 + 1 }

// weekOfYear is %U (weeks start on Sunday) or %W (on Monday): days before
// the year's first such weekday are in week 0.
func weekOfYear(t time.Time, firstDay time.Weekday) int {
	return (t.YearDay() + 6 - (int(t.Weekday())-int(firstDay)+7)%7) / 7
}

func shortWeekday(t time.Time) string { return weekdays[t.Weekday()][:3] }
func shortMonth(t time.Time) string   { return months[t.Month()-1][:3] }

func meridiem(h int) string {
	if h < 12 {
		return "AM"
	}
	return "PM"
}

// The C locale's %x, %X and %c.
func localeDate(t time.Time) string {
	return pad2(int(t.Month())) + "/" + pad2(t.Day()) + "/" + pad2(t.Year()%100)
}
func localeTime(t time.Time) string {
	return pad2(t.Hour()) + ":" + pad2(t.Minute()) + ":" + pad2(t.Second())
}
func localeDateTime(t time.Time) string {
	return shortWeekday(t) + " " + shortMonth(t) + " " + spacePadded2(t.Day()) + " " + localeTime(t) + " " + fmt.Sprint(t.Year())
}

// Strftime is Python's datetime.strftime for a naive datetime (CrewAI
// formats datetime.now(), which has no zone) under the C locale, as glibc
// implements the directives: %a %A %w %u %d %e %j %b %h %B %m %y %Y %C %G
// %g %V %U %W %H %I %k %l %p %M %S %f %c %x %X %D %F %T %R %r %n %t %s %%;
// %z and %Z are empty (a naive datetime has no offset). An unknown
// directive is copied as written, as glibc does, and so is a lone "%" at
// the end.
func Strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		d := format[i]
		switch d {
		case 'a':
			b.WriteString(shortWeekday(t))
		case 'A':
			b.WriteString(weekdays[t.Weekday()])
		case 'w':
			fmt.Fprint(&b, int(t.Weekday()))
		case 'u':
			fmt.Fprint(&b, (int(t.Weekday())+6)%7+1)
		case 'd':
			b.WriteString(pad2(t.Day()))
		case 'e':
			b.WriteString(spacePadded2(t.Day()))
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'b', 'h':
			b.WriteString(shortMonth(t))
		case 'B':
			b.WriteString(months[t.Month()-1])
		case 'm':
			b.WriteString(pad2(int(t.Month())))
		case 'y':
			b.WriteString(pad2(t.Year() % 100))
		case 'Y':
			fmt.Fprint(&b, t.Year())
		case 'C':
			b.WriteString(pad2(t.Year() / 100))
		case 'G':
			y, _ := t.ISOWeek()
			fmt.Fprint(&b, y)
		case 'g':
			y, _ := t.ISOWeek()
			b.WriteString(pad2(y % 100))
		case 'V':
			_, w := t.ISOWeek()
			b.WriteString(pad2(w))
		case 'U':
			b.WriteString(pad2(weekOfYear(t, time.Sunday)))
		case 'W':
			b.WriteString(pad2(weekOfYear(t, time.Monday)))
		case 'H':
			b.WriteString(pad2(t.Hour()))
		case 'I':
			b.WriteString(pad2(twelveHour(t.Hour())))
		case 'k':
			b.WriteString(spacePadded2(t.Hour()))
		case 'l':
			b.WriteString(spacePadded2(twelveHour(t.Hour())))
		case 'p':
			b.WriteString(meridiem(t.Hour()))
		case 'M':
			b.WriteString(pad2(t.Minute()))
		case 'S':
			b.WriteString(pad2(t.Second()))
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'z', 'Z':
			// A naive datetime: Python writes nothing.
		case 'c':
			b.WriteString(localeDateTime(t))
		case 'x', 'D':
			b.WriteString(localeDate(t))
		case 'X', 'T':
			b.WriteString(localeTime(t))
		case 'F':
			fmt.Fprintf(&b, "%d-%s-%s", t.Year(), pad2(int(t.Month())), pad2(t.Day()))
		case 'R':
			b.WriteString(pad2(t.Hour()) + ":" + pad2(t.Minute()))
		case 'r':
			b.WriteString(pad2(twelveHour(t.Hour())) + ":" + pad2(t.Minute()) + ":" + pad2(t.Second()) + " " + meridiem(t.Hour()))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 's':
			// glibc's %s reads the struct tm as local time.
			fmt.Fprint(&b, time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.Local).Unix())
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(d)
		}
	}
	return b.String()
}
