package credentials

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const canary = "CANARY-s3cr3t-9f8e7d"

func validProfile() Profile {
	return Profile{Name: "acme-prod", URL: "https://api.example.com", ConnectionID: "conn-1",
		Partner: "ACME GmbH", InboxKeyID: "key-up", MailboxKeyID: "key-mb"}
}

func TestValidateName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"acme", true}, {"acme-prod.eu_2", true}, {"A1", true}, {"1acme", true},
		{"", false}, {"-acme", false}, {".acme", false}, {"acme/prod", false}, {"acme prod", false},
		{"äcme", false}, {strings.Repeat("a", 64), true}, {strings.Repeat("a", 65), false}, {"a\x1b", false},
	} {
		err := ValidateName(tc.name)
		if tc.ok {
			require.NoError(t, err, tc.name)
			continue
		}
		require.Error(t, err, tc.name)
		var fe *FieldError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, "name", fe.Field)
	}
}

func TestValidateBaseURLHTTPSRule(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want string // "" = valid, else a fragment of the error
	}{
		{"https://api.example.com", ""},
		{"https://api.example.com:8443/gateway", ""},
		{"http://127.0.0.1:8080", ""},
		{"http://127.1.2.3", ""},
		{"http://[::1]:9000", ""},
		{"http://localhost:9000", ""},
		{"http://LocalHost", ""},
		{"http://api.example.com", "use https"},
		{"http://127.0.0.1.evil.example", "use https"},
		{"http://localhost.evil.example", "use https"},
		{"http://[::2]", "use https"},
		{"http://10.0.0.1", "use https"},
		{"ftp://api.example.com", "not an http(s) URL"},
		{"api.example.com", "not an http(s) URL"},
		{"", "is empty"},
		{"https://", "not an http(s) URL"},
		{"https://user:" + canary + "@api.example.com", "user name or password"},
		{"https://user:" + canary + "@exa mple.com", "(unparsable URL)"},
		{"https://api.example.com:" + canary, "(unparsable URL)"},
		{"https://api.example.com/?token=" + canary, "query or fragment"},
		{"https://api.example.com/#" + canary, "query or fragment"},
	} {
		err := ValidateBaseURL(tc.url)
		if tc.want == "" {
			require.NoError(t, err, tc.url)
			continue
		}
		require.ErrorContains(t, err, tc.want, tc.url)
		require.NotContains(t, err.Error(), canary, "a secret pasted into a URL is never echoed")
	}
}

func TestProfileValidateNamesProfileAndField(t *testing.T) {
	for _, tc := range []struct {
		field  string
		mutate func(*Profile)
		want   string
	}{
		{"url", func(p *Profile) { p.URL = "http://api.example.com" }, "use https"},
		{"connection", func(p *Profile) { p.ConnectionID = "" }, "is empty"},
		{"connection", func(p *Profile) { p.ConnectionID = "conn 1" }, "spaces"},
		{"inbox_key_id", func(p *Profile) { p.InboxKeyID = "" }, "is empty"},
		{"mailbox_key_id", func(p *Profile) { p.MailboxKeyID = "key:" + canary }, "must not contain ':'"},
		{"mailbox_key_id", func(p *Profile) { p.MailboxKeyID = strings.Repeat("k", 257) }, "longer than 256"},
		{"partner", func(p *Profile) { p.Partner = "ACME\x1b[2J" }, "control characters"},
		{"store_dir", func(p *Profile) { p.StoreDir = "relative/dir" }, "absolute path"},
	} {
		p := validProfile()
		tc.mutate(&p)
		err := p.Validate()
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", tc.field, err)
		require.Equal(t, "acme-prod", fe.Profile)
		require.Equal(t, tc.field, fe.Field)
		require.Contains(t, err.Error(), `profile "acme-prod": `+tc.field+": ")
		require.Contains(t, err.Error(), tc.want)
		require.NotContains(t, err.Error(), canary)
	}
	require.NoError(t, validProfile().Validate())
}

func TestProfileKeys(t *testing.T) {
	p := validProfile()
	require.Equal(t, []KeyRef{{"key-up", []Use{UseInbox}}, {"key-mb", []Use{UseMailbox}}}, p.Keys())
	p.MailboxKeyID = p.InboxKeyID
	require.Equal(t, []KeyRef{{"key-up", []Use{UseInbox, UseMailbox}}}, p.Keys(), "one key serving both is one keyring entry")
	require.True(t, p.HasKey("key-up"))
	require.False(t, p.HasKey("key-mb"))
	require.False(t, p.HasKey(""))
	require.Equal(t, "acme-prod/key-up", Account(p.Name, "key-up"))
}

// TestProfileDirectoryAndMIG: the directory defaults to D.96A and takes
// only the two the contract names; the MIG resolves next to the file.
func TestProfileDirectoryAndMIG(t *testing.T) {
	p := validProfile()
	require.Equal(t, "D.96A", p.EDIDirectory())
	for _, d := range []string{"D.96A", "D.25A"} {
		p.Directory = d
		require.NoError(t, p.Validate())
		require.Equal(t, d, p.EDIDirectory())
	}
	p.Directory = "D.01B"
	err := p.Validate()
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "directory", fe.Field)
	require.Contains(t, err.Error(), `"D.01B" is not a directory the Partner API uses: write "D.96A" or "D.25A"`)

	p.Directory = ""
	require.Equal(t, "", p.MIGPath("/etc/b2bx/profiles.toml"))
	p.MIG = "acme.toml"
	require.Equal(t, "/etc/b2bx/acme.toml", p.MIGPath("/etc/b2bx/profiles.toml"))
	p.MIG = "/srv/mig/acme.toml"
	require.Equal(t, "/srv/mig/acme.toml", p.MIGPath("/etc/b2bx/profiles.toml"))
	p.MIG = "acme\x1b.toml"
	require.ErrorAs(t, p.Validate(), &fe)
	require.Equal(t, "mig", fe.Field)
}

// TestDirectoryAndMIGRoundTrip: both fields survive Encode and Load.
func TestDirectoryAndMIGRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "profiles.toml")
	f, err := Load(path)
	require.NoError(t, err)
	p := validProfile()
	p.Directory, p.MIG = "D.25A", "acme.toml"
	require.NoError(t, f.Put(p))
	require.NoError(t, f.Save())
	g, err := Load(path)
	require.NoError(t, err)
	got, ok := g.Get(p.Name)
	require.True(t, ok)
	require.Equal(t, "D.25A", got.Directory)
	require.Equal(t, "acme.toml", got.MIG)
}
