package pyread

import (
	"reflect"
	"testing"
)

func TestCodeLines(t *testing.T) {
	src := "import os  # the os\n" +
		"url = 'https://x/#frag'  # a '#' in a string is code\n" +
		"doc = \"\"\"Use # of items\n" +
		"and # more\"\"\"  # done\n" +
		"# a whole-line comment\n" +
		"x = 1"
	want := []string{
		"import os  ",
		"url = 'https://x/#frag'  ",
		"doc = \"\"\"Use # of items",
		"and # more\"\"\"  ",
		"",
		"x = 1",
	}
	if got := CodeLines(src); !reflect.DeepEqual(got, want) {
		t.Errorf("CodeLines:\n got %q\nwant %q", got, want)
	}
}
