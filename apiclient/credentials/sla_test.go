package credentials

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSLAInProfileFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "profiles.toml")
	require.NoError(t, os.WriteFile(path, []byte(`[profile.acme]
url = "https://api.example.com"
connection = "c1"
inbox_key_id = "k1"
mailbox_key_id = "k1"
sla.contrl = "30m"
sla.ordrsp = "2d"

[profile.plain]
url = "https://api.example.com"
connection = "c2"
inbox_key_id = "k2"
mailbox_key_id = "k2"
`), 0o600))
	f, err := Load(path)
	require.NoError(t, err)
	p, _ := f.Get("acme")
	c, o := p.Effective()
	require.Equal(t, 30*time.Minute, c)
	require.Equal(t, 48*time.Hour, o)
	q, _ := f.Get("plain")
	c, o = q.Effective()
	require.Equal(t, DefaultSLAContrl, c)
	require.Equal(t, DefaultSLAOrdrsp, o)

	// saved and loaded again: the same
	b, err := f.Encode()
	require.NoError(t, err)
	require.Contains(t, string(b), "sla.contrl = \"30m0s\"\nsla.ordrsp = \"48h0m0s\"\n")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	g, err := Load(path)
	require.NoError(t, err)
	p2, _ := g.Get("acme")
	require.Equal(t, p.SLA, p2.SLA)
	q2, _ := g.Get("plain")
	require.Nil(t, q2.SLA)
}

func TestSLABadValues(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`sla.contrl = "soon"`, "line 6"}, // the decoder's message is not echoed (it could quote a secret)
		{`sla.ordrsp = "-5m"`, "sla.ordrsp: -5m0s must be between 1s and 90d"},
		{`sla.ordrsp = "100d"`, "must be between 1s and 90d"},
		{`sla.later = "5m"`, "sla.later"},
	} {
		path := filepath.Join(t.TempDir(), "profiles.toml")
		require.NoError(t, os.WriteFile(path, []byte("[profile.acme]\nurl = \"https://api.example.com\"\nconnection = \"c1\"\ninbox_key_id = \"k1\"\nmailbox_key_id = \"k1\"\n"+tc.line+"\n"), 0o600))
		_, err := Load(path)
		require.ErrorContains(t, err, tc.want, tc.line)
	}
}
