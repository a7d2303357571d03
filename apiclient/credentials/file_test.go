package credentials

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigPath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvConfig: "/etc/b2bx/p.toml", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/etc/b2bx/p.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/b2bx/profiles.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/b2bx/profiles.toml"},
		{map[string]string{"HOME": "/h"}, "/h/.config/b2bx/profiles.toml"},
	} {
		got, err := ConfigPath(func(k string) string { return tc.env[k] })
		require.NoError(t, err)
		require.Equal(t, filepath.FromSlash(tc.want), got)
	}
}

func threeProfiles() []Profile {
	a := validProfile()
	b := Profile{Name: "beta", URL: "http://127.0.0.1:8080", ConnectionID: "c-2", InboxKeyID: "k", MailboxKeyID: "k", StoreDir: "/srv/b2bx/beta"}
	c := Profile{Name: "Zulu.1", URL: "https://zulu.example/api", ConnectionID: "c-3", Partner: `Zulu "Quoted" Ltd — ü`, InboxKeyID: "zi", MailboxKeyID: "zm"}
	return []Profile{c, a, b}
}

func TestFileRoundTripPermissionsAndStableOrder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX permissions")
	}
	base := t.TempDir()
	path := filepath.Join(base, "cfg", "b2bx", "profiles.toml")
	f, err := Load(path)
	require.NoError(t, err, "a missing file is an empty set")
	require.Empty(t, f.Names())
	for _, p := range threeProfiles() {
		require.NoError(t, f.Put(p))
	}
	require.NoError(t, f.Save())

	for _, d := range []string{filepath.Join(base, "cfg"), filepath.Join(base, "cfg", "b2bx")} {
		st, err := os.Stat(d)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o700), st.Mode().Perm(), d)
	}
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left behind")

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(raw)
	require.True(t, strings.HasPrefix(text, "# b2bx connection profiles (TOML)"))
	require.Contains(t, text, "\n[profile.\"Zulu.1\"]\n", "a dotted name is quoted, not nested")
	ia, ib := strings.Index(text, "[profile.acme-prod]"), strings.Index(text, "[profile.beta]")
	require.True(t, ia > 0 && ib > ia, "profiles sorted by name:\n%s", text)
	require.Regexp(t, `(?m)^url = "https://api.example.com"\nconnection = "conn-1"\npartner = "ACME GmbH"\ninbox_key_id = "key-up"\nmailbox_key_id = "key-mb"$`, text, "fixed field order")

	g, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, []string{"Zulu.1", "acme-prod", "beta"}, g.Names())
	for _, p := range threeProfiles() {
		got, ok := g.Get(p.Name)
		require.True(t, ok)
		require.Equal(t, p, got)
	}
	again, err := g.Encode()
	require.NoError(t, err)
	require.Equal(t, raw, again, "load and save is byte-stable")

	require.True(t, g.Remove("beta"))
	require.False(t, g.Remove("beta"))
	require.NoError(t, g.Save())
	h, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, []string{"Zulu.1", "acme-prod"}, h.Names())
}

func TestSaveLeavesExistingDirectoryModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX permissions")
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	f, err := Load(filepath.Join(dir, "profiles.toml"))
	require.NoError(t, err)
	require.NoError(t, f.Put(validProfile()))
	require.NoError(t, f.Save())
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), st.Mode().Perm(), "a directory b2bx did not create is not its to chmod")
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "profiles.toml")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

const goodTable = `
[profile.acme]
url = "https://api.example.com"
connection = "conn-1"
inbox_key_id = "k1"
mailbox_key_id = "k1"
`

func TestLoadHandEditedFile(t *testing.T) {
	p := writeFile(t, "# my notes\n"+goodTable+"  # trailing comment\n")
	f, err := Load(p)
	require.NoError(t, err)
	got, ok := f.Get("acme")
	require.True(t, ok)
	require.Equal(t, "conn-1", got.ConnectionID)
	_, ok = f.Get("nope")
	require.False(t, ok)
}

func TestLoadRejectsSecretsAndUnknownKeys(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"secret", goodTable + `secret = "` + canary + `"` + "\n", []string{`profile "acme"`, `key "secret" looks like a secret`, "b2bx conn set-secret"}},
		{"api_key", goodTable + `api_key = "` + canary + `"` + "\n", []string{"looks like a secret"}},
		{"Password", goodTable + `Password = "` + canary + `"` + "\n", []string{"looks like a secret"}},
		{"top-level token", `token = "` + canary + `"` + "\n" + goodTable, []string{"top level", "looks like a secret"}},
		{"typo", goodTable + `conection = "x"` + "\n", []string{`unknown key "profile.acme.conection"`, "inbox_key_id"}},
		{"unknown table", "[profiles.acme]\nurl = \"https://x\"\n", []string{"unknown key"}},
		{"syntax", goodTable + "url = \"" + canary + "\n", []string{"line 7", "TOML syntax error", "fix the file by hand"}},
		{"bad type", "[profile.acme]\nurl = 5\n", []string{"not a valid profile file"}},
		{"invalid field", strings.Replace(goodTable, "https://", "http://", 1), []string{`profile "acme": url`, "use https", "conn add --force"}},
		{"bad name", strings.Replace(goodTable, "[profile.acme]", `[profile."a b"]`, 1), []string{"profile name", "may only contain"}},
		{"secret in key id", strings.Replace(goodTable, `"k1"`, `"k1:`+canary+`"`, 1), []string{"must not contain ':'"}},
	} {
		p := writeFile(t, tc.content)
		_, err := Load(p)
		require.Error(t, err, tc.name)
		require.Contains(t, err.Error(), p, tc.name)
		for _, w := range tc.want {
			require.Contains(t, err.Error(), w, tc.name)
		}
		require.NotContains(t, err.Error(), canary, tc.name)
	}
}

func TestLoadRejectsHugeFile(t *testing.T) {
	p := writeFile(t, strings.Repeat("#", maxFileSize+1))
	_, err := Load(p)
	require.ErrorContains(t, err, "not a b2bx profile file")
}

func TestSaveRefusesConcurrentChange(t *testing.T) {
	p := writeFile(t, goodTable)
	f, err := Load(p)
	require.NoError(t, err)
	other := goodTable + "\n[profile.other]\nurl = \"https://o.example\"\nconnection = \"c\"\ninbox_key_id = \"k\"\nmailbox_key_id = \"k\"\n"
	require.NoError(t, os.WriteFile(p, []byte(other), 0o600))
	require.NoError(t, f.Put(validProfile()))
	err = f.Save()
	require.ErrorIs(t, err, ErrConcurrentChange)
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, other, string(raw), "the other writer's change is kept")

	// A file created by someone else after Load found none is a change too.
	q := filepath.Join(t.TempDir(), "profiles.toml")
	g, err := Load(q)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(q, []byte(goodTable), 0o600))
	require.NoError(t, g.Put(validProfile()))
	require.ErrorIs(t, g.Save(), ErrConcurrentChange)
}

func TestPutValidates(t *testing.T) {
	f, err := Load(filepath.Join(t.TempDir(), "p.toml"))
	require.NoError(t, err)
	p := validProfile()
	p.URL = "http://example.com"
	require.Error(t, f.Put(p))
	require.Empty(t, f.Names())
}
