// Package secret holds values that must never be printed: API key secrets
// and claim tokens. Every formatting path (fmt verbs, %#v, JSON, text
// marshalling, slog) yields a fixed placeholder; the raw value is reachable
// only through Reveal, which the HTTP layer calls when it builds a header.
package secret

import (
	"fmt"
	"log/slog"
	"strings"
)

// Redacted is what every formatting path prints instead of a secret.
const Redacted = "[REDACTED]"

// Value is a secret string. The zero value is empty. Value is comparable only
// through Equal so that == cannot be used to probe it in logs or tests by
// accident.
type Value struct {
	v *string // pointer so copies share and reflection-based dumpers see no string
}

// New wraps s. An empty s gives the zero Value.
func New(s string) Value {
	if s == "" {
		return Value{}
	}
	return Value{v: &s}
}

// Reveal returns the raw secret. Call it only where the value leaves the
// process on purpose (an HTTP header, the keyring).
func (s Value) Reveal() string {
	if s.v == nil {
		return ""
	}
	return *s.v
}

// IsZero reports whether the secret is empty.
func (s Value) IsZero() bool { return s.v == nil || *s.v == "" }

// Len is the length in bytes; safe to show (sizes, not content).
func (s Value) Len() int { return len(s.Reveal()) }

// Equal compares two secrets.
func (s Value) Equal(o Value) bool { return s.Reveal() == o.Reveal() }

// String redacts.
func (s Value) String() string { return Redacted }

// GoString redacts (%#v).
func (s Value) GoString() string { return "secret.Value(" + Redacted + ")" }

// Format redacts for every verb, including %v, %+v, %#v, %s, %q, %x.
func (s Value) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(s.GoString()))
		return
	}
	_, _ = f.Write([]byte(Redacted))
}

// MarshalJSON redacts.
func (s Value) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText redacts (encoding/xml, TOML, map keys).
func (s Value) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// LogValue redacts in log/slog.
func (s Value) LogValue() slog.Value { return slog.StringValue(Redacted) }

// Credential is an API key: a public key ID and its secret. It is sent as
// "Authorization: Bearer <id>:<secret>".
type Credential struct {
	// KeyID is the public identifier of the API key; it may be shown and logged.
	KeyID string
	// Secret is the key's secret part.
	Secret Value
}

// ParseCredential splits "<id>:<secret>" (the form of B2BX_API_KEY). The
// error never contains the input.
func ParseCredential(s string) (Credential, error) {
	s = strings.TrimSpace(s)
	id, sec, ok := strings.Cut(s, ":")
	if !ok || id == "" || sec == "" {
		return Credential{}, fmt.Errorf("credential must have the form <key-id>:<secret> (got %d characters without that shape)", len(s))
	}
	if strings.ContainsAny(id, " \t\r\n") || strings.ContainsAny(sec, " \t\r\n") {
		return Credential{}, fmt.Errorf("credential must not contain whitespace")
	}
	return Credential{KeyID: id, Secret: New(sec)}, nil
}

// BearerHeader is the value of the Authorization header. Only the HTTP layer
// calls it.
func (c Credential) BearerHeader() string {
	return "Bearer " + c.KeyID + ":" + c.Secret.Reveal()
}

// IsZero reports whether the credential is unset.
func (c Credential) IsZero() bool { return c.KeyID == "" && c.Secret.IsZero() }

// String shows the key ID only.
func (c Credential) String() string { return "key " + c.KeyID + " (secret " + Redacted + ")" }

// GoString shows the key ID only.
func (c Credential) GoString() string {
	return fmt.Sprintf("secret.Credential{KeyID:%q, Secret:%s}", c.KeyID, Redacted)
}

// Format shows the key ID only, for every verb.
func (c Credential) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(c.GoString()))
		return
	}
	_, _ = f.Write([]byte(c.String()))
}

// MarshalJSON shows the key ID only.
func (c Credential) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"keyId":%q,"secret":%q}`, c.KeyID, Redacted), nil
}

// LogValue shows the key ID only.
func (c Credential) LogValue() slog.Value {
	return slog.GroupValue(slog.String("keyId", c.KeyID), slog.String("secret", Redacted))
}
