package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckExitCodes: b2bx check is the upload's pre-flight without
// sending: 0 clean, 1 warnings only, 2 blocked.
func TestCheckExitCodes(t *testing.T) {
	fx := func(n string) string { return filepath.Join("..", "..", "testdata", "edifact", n) }
	demoMIG := filepath.Join("..", "..", "testdata", "mig", "demo.toml")
	dir := t.TempDir()
	noDP := filepath.Join(dir, "po.edi")
	data, err := os.ReadFile(fx("orders_d96a.edi"))
	require.NoError(t, err)
	require.Contains(t, string(data), "NAD+DP")
	require.NoError(t, os.WriteFile(noDP, []byte(strings.Replace(string(data), "NAD+DP", "NAD+UC", 1)), 0o600))

	code, out, _ := runCmd(t, "", nil, "check", fx("orders_d96a.edi"))
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "clean: nothing was sent")

	code, out, _ = runCmd(t, "", nil, "check", "--mig", demoMIG, noDP)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "! "+demoMIG+`:5: ORDERS "`)
	require.Contains(t, out, "has 0 NAD+DP; the partner requires at least 1")

	code, out, _ = runCmd(t, "", nil, "check", fx("orders_bad_gln.edi"))
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "its GS1 check digit is 9 (4012345000009)")

	// -c: the profile's directory and its mig, relative to the profile file.
	cfg := filepath.Join(dir, "profiles.toml")
	mig, err := os.ReadFile(demoMIG)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "partner.toml"), mig, 0o600))
	require.NoError(t, os.WriteFile(cfg, []byte("[profile.acme]\nurl = \"https://api.example.com\"\nconnection = \"c1\"\ninbox_key_id = \"k\"\nmailbox_key_id = \"k\"\ndirectory = \"D.96A\"\nmig = \"partner.toml\"\n"), 0o600))
	envv := map[string]string{"B2BX_CONFIG": cfg, "HOME": dir}
	code, out, _ = runCmd(t, "", envv, "check", "-c", "acme", fx("utf8_orders_d25a.edi"))
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "is in directory D.25A, but this connection's profile revision is D.96A")

	code, out, _ = runCmd(t, "", envv, "check", "-c", "acme", "--json", noDP)
	require.Equal(t, 1, code, out)
	var js checkJSON
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	require.Equal(t, "warnings", js.Verdict)
	require.Equal(t, "D.96A", js.Directory)
	var rules []string
	for _, c := range js.Checks {
		if c.Rule != "" {
			rules = append(rules, filepath.Base(c.Rule))
		}
	}
	require.Equal(t, []string{"partner.toml:5"}, rules)

	// A broken rules file is refused with its line.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("[[rule]]\nsegment = \"nad\"\nmin = 1\n"), 0o600))
	code, _, errOut := runCmd(t, "", nil, "check", "--mig", filepath.Join(dir, "bad.toml"), noDP)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "bad.toml:1: segment \"nad\"")
}

// TestMIGLearnNeedsHistory: without accepted uploads there is nothing to
// learn, and the error says so (the learning itself: orders.LearnMIG).
func TestMIGLearnNeedsHistory(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "profiles.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("[profile.acme]\nurl = \"https://api.example.com\"\nconnection = \"c1\"\ninbox_key_id = \"k\"\nmailbox_key_id = \"k\"\nstore_dir = \""+filepath.Join(dir, "store")+"\"\n"), 0o600))
	code, _, errOut := runCmd(t, "", map[string]string{"B2BX_CONFIG": cfg, "HOME": dir}, "mig", "learn", "-c", "acme")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "has no upload a CONTRL accepted")
	code, _, errOut = runCmd(t, "", nil, "mig", "learn")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "give the connection with -c NAME")
}

// TestParseMIG: parse --mig lists the partner rules' findings with their
// file:line after the summary; a broken rules file is refused.
func TestParseMIG(t *testing.T) {
	demoMIG := filepath.Join("..", "..", "testdata", "mig", "demo.toml")
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "orders_d96a.edi"))
	require.NoError(t, err)
	noDP := filepath.Join(t.TempDir(), "po.edi")
	require.NoError(t, os.WriteFile(noDP, []byte(strings.Replace(string(data), "NAD+DP", "NAD+UC", 1)), 0o600))
	code, out, _ := runCmd(t, "", nil, "parse", "--mig", demoMIG, noDP)
	require.Equal(t, exitOK, code, "findings are warnings")
	require.Contains(t, out, "partner rules "+demoMIG+": 5 rule(s), 1 finding(s)\n  warning "+demoMIG+":5 (segment index 2): ORDERS \"M0001\" has 0 NAD+DP")

	code, _, errOut := runCmd(t, "", nil, "parse", "--mig", noDP, noDP)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "not valid TOML")
}
