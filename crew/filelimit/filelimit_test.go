package filelimit

import "testing"

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{300: "300 B", 2048: "2.0 KiB", 8 << 20: "8 MiB", 12<<20 + 1<<19: "12.5 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
