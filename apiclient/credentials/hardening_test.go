package credentials

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadRejectsSecretShapedValues: the file's secret check looks at
// values too, not only at key names.
func TestLoadRejectsSecretShapedValues(t *testing.T) {
	for _, tc := range []struct{ name, field, value string }{
		{"key id and secret as connection", "connection", "k1:" + canary},
		{"other key id and secret", "connection", "key-9:" + canary},
		{"short secret after the profile's key id", "connection", "k1:" + "CANARY1"},
		{"stripe-like key as connection", "connection", "sk_live_" + canary},
		{"stripe-like key in the label", "partner", "ACME sk_live_" + canary},
		{"key id and secret in the label", "partner", "ACME GmbH k1:" + canary},
		{"github token as label", "partner", "ghp_" + canary},
	} {
		content := goodTable + tc.field + ` = "` + tc.value + `"` + "\n"
		if tc.field == "connection" {
			content = strings.Replace(goodTable, `connection = "conn-1"`, `connection = "`+tc.value+`"`, 1)
		}
		p := writeFile(t, content)
		_, err := Load(p)
		require.Error(t, err, tc.name)
		for _, w := range []string{`profile "acme": ` + tc.field, "looks like an API key secret", "b2bx conn set-secret acme", "B2BX_API_KEY"} {
			require.Contains(t, err.Error(), w, tc.name)
		}
		require.NotContains(t, err.Error(), "CANARY", tc.name)
	}
}

func TestLooksLikeSecretSparesRealValues(t *testing.T) {
	for _, v := range []string{"conn-1", "7f9c2ba4-e88f-11e9-81b4-2a2ae2dbcce4", "acme:7f9c2ba4-e88f-11e9-81b4-2a2ae2dbcce4",
		"urn:b2b:connection:42", "ACME GmbH: Berlin", "Zulu \"Quoted\" Ltd — ü", "tenant:short-1", "Bearer Industries", "Basic Foods"} {
		require.False(t, LooksLikeSecret(v, "k1"), v)
	}
	p := validProfile()
	p.ConnectionID = "key-up:" + canary
	err := p.Validate()
	require.ErrorContains(t, err, "looks like an API key secret", "conn add gets the same check")
	require.NotContains(t, err.Error(), canary)
}

func TestLoadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	require.ErrorIs(t, err, ErrNotRegular)
	require.ErrorContains(t, err, "is a directory")
	require.ErrorContains(t, err, "$B2BX_CONFIG")

}

func TestLoadWarnsAboutPermissiveFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX permissions")
	}
	p := writeFile(t, goodTable)
	f, err := Load(p)
	require.NoError(t, err)
	require.Empty(t, f.Warnings())

	for mode, who := range map[os.FileMode]string{0o640: "read", 0o604: "read", 0o660: "change", 0o666: "change"} {
		require.NoError(t, os.Chmod(p, mode))
		f, err = Load(p)
		require.NoError(t, err, "a warning, not a refusal")
		require.Len(t, f.Warnings(), 1, mode)
		w := f.Warnings()[0]
		require.Contains(t, w, p)
		require.Contains(t, w, "other users can "+who, mode)
		require.Contains(t, w, "chmod 600")
	}
	require.NoError(t, f.Put(validProfile()))
	require.NoError(t, f.Save())
	f, err = Load(p)
	require.NoError(t, err)
	require.Empty(t, f.Warnings(), "Save writes 0600")
}
