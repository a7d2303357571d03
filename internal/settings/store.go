package settings

import (
	"net/url"
	"strings"
)

// Store is the [store] section of config.toml: the team's shared
// PostgreSQL store. URL names the server and database, never a password
// (that is in the OS keyring, `b2bx store login`, or PGPASSWORD/.pgpass);
// User is the name the team's records say they are by ("" for the OS
// user).
type Store struct {
	URL  string `toml:"url"`
	User string `toml:"user"`
}

// Configured reports whether a team store is set.
func (s Store) Configured() bool { return strings.TrimSpace(s.URL) != "" }

// problem is what is wrong with the section ("" when nothing); the full
// check (TLS, the host) is the team store's when it connects.
func (s Store) problem() string {
	if !s.Configured() {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(s.URL))
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return `url: give a PostgreSQL URL such as "postgres://b2bx@db.example.com/b2bx?sslmode=verify-full"`
	}
	if _, ok := u.User.Password(); ok {
		return "url: holds a password; remove it from config.toml and run `b2bx store login` (the password goes into the OS keyring)"
	}
	return ""
}
