package outbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Patterns of a password in a database error: the userinfo of a URL
// (postgres://bob:secret@host), a key=value DSN (password=secret) and
// its quoted form.
var (
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*):[^@\s]*@`)
	kvPassword  = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
)

// Redact removes passwords from s (a URL's userinfo, password=...) and
// makes it safe to print.
func Redact(s string) string {
	s = urlPassword.ReplaceAllString(s, "$1:xxxxx@")
	s = kvPassword.ReplaceAllString(s, "${1}xxxxx")
	return sanitize(s)
}

// sanitize bounds a line and drops what a terminal would act on.
func sanitize(s string) string {
	s = termsafe.String(s)
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// Short is the status bar's line: "team store: 12 waiting, unreachable
// since 09:10", "team store: all pushed", ... Times are local clock
// times of the day.
func (s Status) Short() string {
	var b strings.Builder
	b.WriteString("team store: ")
	switch {
	case s.Waiting > 0:
		fmt.Fprintf(&b, "%d waiting", s.Waiting)
	case s.Known && s.Reachable || s.Pushed > 0:
		b.WriteString("all pushed")
	default:
		b.WriteString("nothing waiting")
	}
	switch {
	case s.Known && !s.Reachable:
		fmt.Fprintf(&b, ", unreachable since %s", clock(s.UnreachableSince))
	case s.Elsewhere:
		b.WriteString(", pushed by another b2bx here")
	}
	if s.Dropped > 0 {
		fmt.Fprintf(&b, ", %d not queued (run 'b2bx store push')", s.Dropped)
	}
	return b.String()
}

// FormatStatus is the outbox part of `b2bx store status`: one line each
// for the length, the last push and the reachability with the last
// error (redacted).
func FormatStatus(s Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "outbox:     %d waiting", s.Waiting)
	if s.Dropped > 0 {
		fmt.Fprintf(&b, " (%d could not be queued: run 'b2bx store push')", s.Dropped)
	}
	if s.Elsewhere {
		b.WriteString(" (another b2bx on this machine pushes them)")
	}
	b.WriteString("\nlast push:  ")
	if s.LastPush.IsZero() {
		b.WriteString("none by this run")
	} else {
		b.WriteString(s.LastPush.Local().Format(time.DateTime))
	}
	b.WriteString("\nreachable:  ")
	switch {
	case !s.Known:
		b.WriteString("not tried yet")
	case s.Reachable:
		b.WriteString("yes")
	default:
		fmt.Fprintf(&b, "no, unreachable since %s", s.UnreachableSince.Local().Format(time.DateTime))
	}
	if s.LastError != "" && !(s.Known && s.Reachable) {
		fmt.Fprintf(&b, "\nlast error: %s", Redact(s.LastError))
	}
	return b.String() + "\n"
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "now"
	}
	return t.Local().Format("15:04")
}

// Waiting counts the entries of the outbox in dir that no pusher has
// handed to the team store yet (after the ledger's cursor), without
// taking the push lock: `b2bx store status` asks while a command may be
// pushing. No outbox yet is 0.
func Waiting(dir string) (int, error) {
	o := &Outbox{dir: dir}
	b, err := o.readFrom(ledgerCursor(o.ledgerPath()))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	return bytes.Count(b, []byte{'\n'}), nil
}
