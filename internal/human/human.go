// Package human formats numbers for people, the same way in the CLI and
// the app: byte sizes, counted nouns and countdowns. It has no
// dependencies beyond the standard library.
package human

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Bytes is a size in binary units with one decimal: "512 B", "1.5 KiB",
// "16.0 MiB", "2.3 GiB" (up to EiB).
func Bytes(n int64) string {
	if n < 1024 && n > -1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, u := float64(n)/1024, 0
	for (v >= 1024 || v <= -1024) && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[u]
}

var units = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// BytesShort is Bytes without a ".0": "16 MiB", "1.5 KiB", for limits
// quoted in sentences.
func BytesShort(n int64) string {
	s := Bytes(n)
	if i := strings.Index(s, ".0 "); i >= 0 {
		return s[:i] + s[i+2:]
	}
	return s
}

// Word is one when n is 1, else many: "entr"+Word(n, "y", "ies").
func Word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and its noun: "1 error", "2 errors", "12,345 segments"
// (thousands grouped with commas).
func Count(n int, one, many string) string {
	return Int(n) + " " + Word(n, one, many)
}

// Int is n with its thousands grouped by commas: "12,345".
func Int(n int) string {
	s := strconv.Itoa(n)
	if n > -1000 && n < 1000 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Countdown is the time left as m:ss, or h:mm:ss from an hour on; a
// time already past is 0:00.
func Countdown(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	if h > 0 {
		return strconv.Itoa(h) + ":" + two(m) + ":" + two(s)
	}
	return strconv.Itoa(m) + ":" + two(s)
}

func two(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// Clip cuts s to at most n bytes on a rune boundary, marking the cut
// with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// OrDash is s, or "-" for nothing.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Int64s lists numbers, at most most of them, then how many more.
func Int64s(ns []int64, most int) string {
	parts := make([]string, 0, min(len(ns), most+1))
	for i, n := range ns {
		if i == most {
			parts = append(parts, fmt.Sprintf("… %d more", len(ns)-most))
			break
		}
		parts = append(parts, strconv.FormatInt(n, 10))
	}
	return strings.Join(parts, ", ")
}
