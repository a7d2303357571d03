// Package who names the person and machine behind a shared record: every
// step the team store holds says "by alice on host-3".
package who

import (
	"os"
	"os/user"
	"strings"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Who is the engineer and the host a record came from.
type Who struct {
	User string `json:"user"`
	Host string `json:"host"`
}

// maxLen bounds each part: a hostile config or host name cannot flood a
// table or a screen.
const maxLen = 64

// Default is the configured user (the [store] user of config.toml; ""
// for none) or the OS user, on this host.
func Default(configured string) Who {
	w := Who{User: strings.TrimSpace(configured)}
	if w.User == "" {
		if u, err := user.Current(); err == nil {
			w.User = u.Username
		}
	}
	if w.User == "" {
		w.User = os.Getenv("USER")
	}
	if h, err := os.Hostname(); err == nil {
		w.Host = h
	}
	return w.Clean()
}

// Clean bounds both parts and drops what a terminal would act on.
func (w Who) Clean() Who {
	return Who{User: clip(w.User), Host: clip(w.Host)}
}

func clip(s string) string {
	s = termsafe.String(strings.TrimSpace(s))
	if r := []rune(s); len(r) > maxLen {
		s = string(r[:maxLen])
	}
	return s
}

// IsZero reports a record without an author (written before team stores).
func (w Who) IsZero() bool { return w.User == "" && w.Host == "" }

// String is "alice on host-3" ("alice" without a host; "" when unknown).
func (w Who) String() string {
	switch {
	case w.IsZero():
		return ""
	case w.Host == "":
		return w.User
	case w.User == "":
		return "someone on " + w.Host
	}
	return w.User + " on " + w.Host
}
