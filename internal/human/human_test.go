package human

import (
	"testing"
	"time"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 16 << 20: "16.0 MiB",
		15<<20 + 1<<19: "15.5 MiB", 1 << 30: "1.0 GiB", 3 << 40: "3.0 TiB", -2048: "-2.0 KiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{16 << 20: "16 MiB", 1536: "1.5 KiB", 100: "100 B", 1 << 30: "1 GiB"} {
		if got := BytesShort(n); got != want {
			t.Errorf("BytesShort(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 errors"}, {1, "1 error"}, {2, "2 errors"}, {1000, "1,000 errors"}, {1234567, "1,234,567 errors"}} {
		if got := Count(c.n, "error", "errors"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if Word(1, "y", "ies") != "y" || Word(3, "y", "ies") != "ies" {
		t.Error("Word")
	}
	if Int(-1234) != "-1,234" || Int(999) != "999" {
		t.Errorf("Int: %q %q", Int(-1234), Int(999))
	}
}

func TestCountdown(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0:00", -time.Minute: "0:00", 4*time.Minute + 59*time.Second: "4:59", 1499 * time.Millisecond: "0:01",
		time.Hour: "1:00:00", 25*time.Hour + 61*time.Second: "25:01:01", 59*time.Minute + 59*time.Second: "59:59",
	} {
		if got := Countdown(d); got != want {
			t.Errorf("Countdown(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestClipOrDashInt64s(t *testing.T) {
	for _, c := range [][2]string{
		{Clip("abc", 3), "abc"}, {Clip("abcd", 2), "ab…"}, {Clip("é", 1), "…"}, // never half a rune
		{OrDash(""), "-"}, {OrDash("x"), "x"},
		{Int64s([]int64{1, 2}, 20), "1, 2"}, {Int64s([]int64{1, 2, 3}, 2), "1, 2, … 1 more"}, {Int64s(nil, 20), ""},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
