// Package logview is the app's session log: an slog.Handler that keeps the
// last records in memory with only the allow-listed fields, and the screen
// (`L`) that shows them, so an engineer can hand a correlation ID to
// platform support without a log file.
package logview

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// DefaultCapacity is how many records a Handler keeps when New gets 0.
const DefaultCapacity = 1000

// maxValue caps one field's value on screen.
const maxValue = 128

// Allowed are the attribute keys a record keeps: the identifiers and
// outcomes the contract allows in logs (operation, status, stable code,
// correlation, connection and delivery attempt IDs, timings, the worker's
// step). Every other attribute (a key ID, a secret, a token, a server
// message, a path) is dropped, whatever its value.
//
// The order is the order Entry.Format shows them in.
var Allowed = []string{
	"op", "step", "status", "code", "outcome", "failed", "error", "unclear", "acknowledged",
	"correlationId", "attempt", "wait", "nextAt", "duration",
	"deliveryAttemptId", "connectionId",
}

// Field is one kept attribute, its value already sanitised.
type Field struct {
	Key, Value string
}

// Entry is one kept log record.
type Entry struct {
	Time    time.Time
	Level   slog.Level
	Message string
	Fields  []Field
}

// ring is the shared buffer of a Handler and its WithAttrs children.
type ring struct {
	mu      sync.Mutex
	entries []Entry // circular once full
	next    int     // index of the oldest entry once full
	full    bool
	seq     uint64 // records ever added
}

// Handler is an slog.Handler that keeps the last records in memory. It is
// safe for concurrent use (the API clients log from their goroutines).
type Handler struct {
	r      *ring
	cap    int
	level  slog.Leveler
	attrs  []Field // from WithAttrs, already filtered
	prefix string  // group prefix from WithGroup ("g.")
}

// New returns a Handler keeping capacity records (DefaultCapacity when
// capacity <= 0) at level and above.
func New(capacity int, level slog.Leveler) *Handler {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	if level == nil {
		level = slog.LevelDebug
	}
	return &Handler{r: &ring{entries: make([]Entry, 0, min(capacity, 64))}, cap: capacity, level: level}
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// Handle implements slog.Handler: it keeps the allow-listed attributes.
func (h *Handler) Handle(_ context.Context, rec slog.Record) error {
	e := Entry{Time: rec.Time, Level: rec.Level, Message: termsafe.String(capRunes(rec.Message, maxValue))}
	e.Fields = slices.Clone(h.attrs)
	rec.Attrs(func(a slog.Attr) bool {
		e.Fields = appendAttr(e.Fields, h.prefix, a)
		return true
	})
	h.r.add(e, h.cap)
	return nil
}

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		c.attrs = appendAttr(c.attrs, h.prefix, a)
	}
	return &c
}

// WithGroup implements slog.Handler. Grouped keys are "group.key" and are
// kept only when that full key is allowed (none is today).
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

// Entries returns a copy of the kept records, oldest first.
func (h *Handler) Entries() []Entry {
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	if !h.r.full {
		return slices.Clone(h.r.entries)
	}
	out := make([]Entry, 0, len(h.r.entries))
	out = append(out, h.r.entries[h.r.next:]...)
	return append(out, h.r.entries[:h.r.next]...)
}

// Seq is the number of records ever handled; it changes when there is
// something new to show.
func (h *Handler) Seq() uint64 {
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	return h.r.seq
}

func (r *ring) add(e Entry, capacity int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	if !r.full {
		r.entries = append(r.entries, e)
		r.full = len(r.entries) == capacity
		return
	}
	r.entries[r.next] = e
	r.next = (r.next + 1) % capacity
}

// appendAttr adds a (resolved) attribute when its key is allowed; a group
// is flattened with its keys prefixed.
func appendAttr(fs []Field, prefix string, a slog.Attr) []Field {
	a.Value = a.Value.Resolve()
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			fs = appendAttr(fs, p, g)
		}
		return fs
	}
	k := prefix + a.Key
	if !slices.Contains(Allowed, k) {
		return fs
	}
	v := valueString(a.Value)
	if k == "error" && !isWord(v) {
		// "error" is a class ("network", "local"); an error's text may
		// carry a server message or a path, which the log never keeps.
		v = "(text dropped)"
	}
	return append(fs, Field{Key: k, Value: termsafe.String(capRunes(v, maxValue))})
}

// isWord reports whether s is one short lower-case word such as "network".
func isWord(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

func valueString(v slog.Value) string {
	switch v.Kind() {
	case slog.KindTime:
		return v.Time().Format("15:04:05.000")
	case slog.KindDuration:
		return v.Duration().Round(time.Millisecond).String()
	}
	return v.String()
}

// capRunes shortens s to at most n runes, marking the cut with "…".
func capRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Format is one entry as a single line: time, level, message, then the
// fields in the order of Allowed, so what an engineer looks for (the
// operation, its outcome, the correlation ID) comes before the long
// connection ID, whatever order the logger used.
func (e Entry) Format() string {
	var b strings.Builder
	b.WriteString(e.Time.Format("15:04:05"))
	b.WriteByte(' ')
	b.WriteString(levelWord(e.Level))
	b.WriteByte(' ')
	b.WriteString(e.Message)
	for _, k := range Allowed {
		for _, f := range e.Fields {
			if f.Key != k {
				continue
			}
			b.WriteByte(' ')
			b.WriteString(f.Key)
			b.WriteByte('=')
			b.WriteString(f.Value)
		}
	}
	return b.String()
}

func levelWord(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "ERR"
	case l >= slog.LevelWarn:
		return "WRN"
	case l >= slog.LevelInfo:
		return "INF"
	}
	return "DBG"
}
