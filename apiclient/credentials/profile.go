package credentials

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
)

// Profile is one named connection: where the Partner API is, which
// connection it addresses, and which API keys (by ID) to use. It never
// holds a secret; secrets live in a SecretStore under Account(Name, keyID).
type Profile struct {
	// Name identifies the profile (-c NAME); letters, digits, '.', '_', '-'.
	Name string `toml:"-"`
	// URL is the Partner API origin; https, or http on a loopback host.
	URL string `toml:"url"`
	// ConnectionID is the partner connection the profile addresses.
	ConnectionID string `toml:"connection"`
	// Partner is an optional label (partner or tenant name) for people.
	Partner string `toml:"partner,omitempty"`
	// InboxKeyID is the API key for uploads (POST /inbox).
	InboxKeyID string `toml:"inbox_key_id"`
	// MailboxKeyID is the API key for the mailbox calls; it may equal
	// InboxKeyID when one key serves both.
	MailboxKeyID string `toml:"mailbox_key_id"`
	// StoreDir is an optional absolute spool directory for this profile.
	StoreDir string `toml:"store_dir,omitempty"`
	// SLA is how long the partner has to answer an upload (sla.contrl,
	// sla.ordrsp); nil: the defaults. See SLA.
	SLA *SLA `toml:"sla,omitempty"`
	// Directory is the EDIFACT directory of the connection's activated
	// profile revision, which its ORDERS, ORDRSP and APERAK use: "D.96A"
	// or "D.25A"; empty means D.96A (see EDIDirectory). The API does not
	// tell it, so the profile says it (CONTRACT.md, Message versions).
	Directory string `toml:"directory,omitempty"`
	// MIG is an optional partner rules file (TOML, see edi/mig): a path
	// relative to the profile file's directory, or absolute.
	MIG string `toml:"mig,omitempty"`
	// Rate is the client-side limit of requests per second to this
	// partner's connection that the platform agreed with you; 0 means the
	// contract's default of 100 (CONTRACT.md, errors and retries). A drain
	// takes three requests per delivery, so the default caps it at about
	// 33 deliveries/s. See MaxRate.
	Rate int `toml:"rate,omitempty"`
}

// DefaultRate is the contract's client-side limit in requests/s per
// partner; MaxRate is the most a profile may set (more is a typo, and a
// platform limit is honoured by its 429 answers anyway).
const (
	DefaultRate = 100
	MaxRate     = 2000
)

// RequestRate is the profile's limit in requests/s: Rate, or DefaultRate.
func (p Profile) RequestRate() int {
	if p.Rate <= 0 {
		return DefaultRate
	}
	return p.Rate
}

// Directories a profile may name; the first is the default.
var Directories = []string{"D.96A", "D.25A"}

// EDIDirectory is the profile's directory, "D.96A" when it names none.
func (p Profile) EDIDirectory() string {
	if p.Directory == "" {
		return Directories[0]
	}
	return p.Directory
}

// MIGPath is the profile's partner rules file resolved against the
// directory of the profile file at configPath; "" when it has none.
func (p Profile) MIGPath(configPath string) string {
	if p.MIG == "" || filepath.IsAbs(p.MIG) {
		return p.MIG
	}
	return filepath.Join(filepath.Dir(configPath), p.MIG)
}

// Use says what a key is for.
type Use string

// The two uses of a key.
const (
	UseInbox   Use = "inbox"
	UseMailbox Use = "mailbox"
)

// KeyRef is one distinct key of a profile and what it is used for.
type KeyRef struct {
	KeyID string
	Uses  []Use
}

// Keys lists the profile's distinct keys, inbox first: one entry when one
// key serves both.
func (p Profile) Keys() []KeyRef {
	if p.InboxKeyID == p.MailboxKeyID {
		return []KeyRef{{KeyID: p.InboxKeyID, Uses: []Use{UseInbox, UseMailbox}}}
	}
	return []KeyRef{
		{KeyID: p.InboxKeyID, Uses: []Use{UseInbox}},
		{KeyID: p.MailboxKeyID, Uses: []Use{UseMailbox}},
	}
}

// HasKey reports whether keyID is one of the profile's keys.
func (p Profile) HasKey(keyID string) bool {
	return keyID != "" && (keyID == p.InboxKeyID || keyID == p.MailboxKeyID)
}

// FieldError is a validation failure of one profile field. Its text names
// the profile, the field and what to do.
type FieldError struct {
	Profile string // profile name; may be empty when the name itself is bad
	Field   string // the TOML key, e.g. "url"
	Problem string // what is wrong and how to fix it
}

func (e *FieldError) Error() string {
	if e.Profile == "" {
		return fmt.Sprintf("profile %s: %s", e.Field, e.Problem)
	}
	return fmt.Sprintf("profile %q: %s: %s", e.Profile, e.Field, e.Problem)
}

const (
	maxNameLen  = 64
	maxIDLen    = 256
	maxLabelLen = 200
)

// ValidateName checks a profile name: 1–64 of [A-Za-z0-9._-], starting with
// a letter or digit. The name becomes part of keyring accounts and file
// names, so it stays plain.
func ValidateName(name string) error {
	bad := func(problem string) error {
		return &FieldError{Field: "name", Problem: fmt.Sprintf("%q %s", name, problem)}
	}
	switch {
	case name == "":
		return &FieldError{Field: "name", Problem: "is empty: choose a short name such as acme-prod"}
	case len(name) > maxNameLen:
		return bad(fmt.Sprintf("is longer than %d characters", maxNameLen))
	case !isAlnum(rune(name[0])):
		return bad("must start with a letter or digit")
	}
	for _, r := range name {
		if !isAlnum(r) && r != '.' && r != '_' && r != '-' {
			return bad("may only contain letters, digits, '.', '_' and '-'")
		}
	}
	return nil
}

func isAlnum(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// ValidateBaseURL enforces https for the Partner API, except on loopback
// hosts (127.0.0.0/8, ::1, localhost) where the simulator and tunnels run.
// A URL must not carry credentials, a query or a fragment.
func ValidateBaseURL(raw string) error {
	if raw == "" {
		return fmt.Errorf("is empty: give the Partner API origin, e.g. https://api.example.com")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%q is not an http(s) URL: give the Partner API origin, e.g. https://api.example.com", redactURL(raw))
	}
	if u.User != nil {
		return fmt.Errorf("must not contain a user name or password: remove them; keys live in the OS keyring (b2bx conn set-secret)")
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Errorf("must not have a query or fragment: give only the origin, e.g. %s", redactURL(raw))
	}
	if u.Scheme == "http" && !IsLoopback(u.Hostname()) {
		return fmt.Errorf("%q uses plain http: use https (plain http is allowed only for 127.0.0.0/8, ::1 and localhost)", redactURL(raw))
	}
	return nil
}

// redactURL drops user info, query and fragment so a password or token
// pasted into a URL is never echoed back.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// IsLoopback reports whether host (without port) is a loopback name or
// address: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkID validates a connection or key ID: printable, no spaces, at most
// 256 bytes. Key IDs also must not contain ':' (the Bearer header is
// "<key-id>:<secret>").
func checkID(id string, isKey bool) string {
	switch {
	case id == "":
		return "is empty"
	case len(id) > maxIDLen:
		return fmt.Sprintf("is longer than %d bytes", maxIDLen)
	case id == "." || id == "..":
		return fmt.Sprintf("%q is not a valid ID", id)
	case isKey && strings.Contains(id, ":"):
		return "must not contain ':' (the API key is sent as <key-id>:<secret>)"
	}
	for _, r := range id {
		if r <= ' ' || r == 0x7f || !unicode.IsPrint(r) {
			return "must not contain spaces or control characters: copy the ID exactly"
		}
	}
	return ""
}

// ValidateConnectionID checks a connection ID as Validate does: printable,
// no spaces, at most 256 bytes, not "." or "..".
func ValidateConnectionID(id string) error {
	if msg := checkID(id, false); msg != "" {
		return errors.New("connection ID " + msg)
	}
	return nil
}

// Validate checks every field. The error is a *FieldError naming the
// profile and field.
func (p Profile) Validate() error {
	if err := ValidateName(p.Name); err != nil {
		return err
	}
	field := func(f, problem string) error { return &FieldError{Profile: p.Name, Field: f, Problem: problem} }
	if err := ValidateBaseURL(p.URL); err != nil {
		return field("url", err.Error())
	}
	if msg := checkID(p.ConnectionID, false); msg != "" {
		return field("connection", "connection ID "+msg)
	}
	if len(p.Partner) > maxLabelLen || strings.ContainsFunc(p.Partner, unicode.IsControl) {
		return field("partner", fmt.Sprintf("must be at most %d characters without control characters", maxLabelLen))
	}
	for _, v := range []struct{ name, value string }{{"connection", p.ConnectionID}, {"partner", p.Partner}} {
		if LooksLikeSecret(v.value, p.InboxKeyID, p.MailboxKeyID) {
			return field(v.name, secretValueProblem(p.Name))
		}
	}
	for _, k := range []struct{ name, id string }{{"inbox_key_id", p.InboxKeyID}, {"mailbox_key_id", p.MailboxKeyID}} {
		if msg := checkID(k.id, true); msg != "" {
			return field(k.name, "key ID "+msg+" (set both; use the same ID when one key serves inbox and mailbox)")
		}
	}
	if p.StoreDir != "" && !filepath.IsAbs(p.StoreDir) {
		return field("store_dir", fmt.Sprintf("%q must be an absolute path", p.StoreDir))
	}
	if p.Directory != "" && p.Directory != Directories[0] && p.Directory != Directories[1] {
		return field("directory", fmt.Sprintf("%q is not a directory the Partner API uses: write \"D.96A\" or \"D.25A\", the connection's activated profile revision", clipLabel(p.Directory)))
	}
	if p.Rate < 0 || p.Rate > MaxRate {
		return field("rate", fmt.Sprintf("%d is not a request rate b2bx uses: write the requests per second the platform agreed for this partner, 1 to %d (leave it out for the contract's default of %d)", p.Rate, MaxRate, DefaultRate))
	}
	if len(p.MIG) > 4096 || strings.ContainsFunc(p.MIG, unicode.IsControl) {
		return field("mig", "must be a file path without control characters (relative to the profile file's directory, or absolute)")
	}
	return p.validateSLA()
}

// secretPrefixes start well-known secret formats (API keys, tokens);
// compared case-insensitively.
var secretPrefixes = []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "ghp_", "gho_", "ghs_", "github_pat_", "xoxb-", "xoxp-", "-----begin"}

// LooksLikeSecret reports whether a profile value (a connection ID or a
// partner label) looks like a pasted secret: "<key id>:<secret>" for one
// of keyIDs, a word of the form "<id>:<token>" whose token is 20 or more
// characters of letters and digits (both) from a key alphabet, or a
// well-known secret prefix such as sk_live_. It errs on the side of
// refusing: a real connection ID or label never has these shapes.
func LooksLikeSecret(value string, keyIDs ...string) bool {
	for _, id := range keyIDs {
		if id != "" && strings.HasPrefix(value, id+":") {
			return true
		}
	}
	lower := strings.ToLower(value)
	for _, pre := range secretPrefixes {
		if strings.HasPrefix(lower, pre) || strings.Contains(lower, " "+pre) {
			return true
		}
	}
	for _, w := range strings.Fields(value) {
		if id, tok, ok := strings.Cut(w, ":"); ok && id != "" && tokenLike(tok) {
			return true
		}
	}
	return false
}

// tokenLike: at least 20 characters from a key alphabet, with letters and
// digits, and not a UUID (a connection ID may end in one).
func tokenLike(s string) bool {
	if len(s) < 20 || isUUID(s) {
		return false
	}
	var letter, digit bool
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letter = true
		case strings.ContainsRune("-_.~+/=", r):
		default:
			return false
		}
	}
	return letter && digit
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}

// secretValueProblem says what to do about a secret pasted into a profile
// value; it never quotes the value.
func secretValueProblem(profile string) string {
	return "looks like an API key secret (<key-id>:<secret> or a known secret format), and secrets never go in the profile file: " +
		"put the plain connection ID or label there, then store the secret in the OS keyring with 'b2bx conn set-secret " + profile +
		"' (or export B2BX_API_KEY=<key-id>:<secret>)"
}

// clipLabel shortens a bad value for an error message (40 bytes).
func clipLabel(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
