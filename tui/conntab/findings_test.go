package conntab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/fix"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// TestPinnedViewShowsThePartnerRules: v on a rejected upload of a
// connection with partner rules pins the CONTRL's error and the rules'
// finding (with the rule's file:line) side by side (issue 21 §3).
func TestPinnedViewShowsThePartnerRules(t *testing.T) {
	e := newAnswerEnv(t)
	rules := filepath.Join(t.TempDir(), "acme.toml")
	require.NoError(t, os.WriteFile(rules, []byte("partner = \"ACME\"\n\n[[rule]]\nsegment = \"BGM\"\nelement = \"1004\"\nformat = \"^ORD-[0-9]+$\"\n"), 0o600))
	e.conn.Target.Directory, e.conn.Target.MIG = "D.96A", rules
	e.upload(t, "orders_rejectable.edi", 1)
	m := e.tab(t)
	m, n := pressAll(t, m, "P")
	require.Empty(t, n)
	m, n = pressAll(t, m, "H")
	require.Empty(t, n)
	m, n = pressAll(t, m, "v")
	require.Empty(t, n)
	vm, ok := viewer.FromScreen(m.stack.Top())
	require.True(t, ok, "the viewer is on top")
	require.Len(t, vm.Pins(), 2)
	v := flat(m.View())
	require.Contains(t, v, "1 error of the partner's answer, 1 partner rule finding (MIG) pinned")
	m, _ = pressAll(t, m, "q")

	// E: the review of the fixed file shows the rule's finding, as the
	// upload's pre-flight would, and says y sends it anyway.
	m.getenv = func(k string) string {
		if k == "EDITOR" {
			return fixEditor
		}
		return ""
	}
	m, n = pressAll(t, m, "E")
	require.Empty(t, n)
	_, ok = m.stack.Top().(fix.Model)
	require.True(t, ok, "the fix flow is on top: %T", m.stack.Top())
	v = flat(m.View())
	require.Contains(t, v, rules+":3: BGM")
	require.Contains(t, v, "1 warning above (partner rules, what this partner accepted before): y sends the fix anyway")
	require.Contains(t, v, "y send the fix")
}

// TestClaimPanelShowsContractFindings: on a D.25A connection the
// partner's ORDRSP in D.96A is a contract finding in the claim panel once
// it is stored and linked; its CONTRL 2:2 under syntax 3 is not (issue
// 21 §1: the connection's directory decides).
func TestClaimPanelShowsContractFindings(t *testing.T) {
	e := newAnswerEnv(t)
	e.conn.Target.Directory = "D.25A"
	e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	found := map[string]bool{}
	for range 2 {
		var n string
		m, n = pressAll(t, m, "P")
		require.Empty(t, n)
		v := flat(m.View())
		found[m.claim.entry.MessageType] = strings.Contains(v, "contract")
		if m.claim.entry.MessageType == "ORDRSP" {
			require.Contains(t, v, "is in directory D.96A, but this connection's profile revision is D.25A")
		}
	}
	require.Equal(t, map[string]bool{"CONTRL": false, "ORDRSP": true}, found)
}
