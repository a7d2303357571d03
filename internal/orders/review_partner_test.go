package orders

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi/mig"
)

// TestReviewFixChecksThePartner: the review of a fixed file runs the
// pre-flight with the connection's options, so it shows the partner
// rules' findings (with their file:line) and what this partner accepted
// before, as the upload's pre-flight does (issue 21 §3, §4).
func TestReviewFixChecksThePartner(t *testing.T) {
	st, rec := rejectedStore(t, rejectsCONTRL)
	l := linked(t, st)
	rejected, _ := os.ReadFile(rejectable)
	path, err := NewWorkCopy(WorkDir(st, resendConn), rec, rejected)
	require.NoError(t, err)
	out, err := exec.Command("sh", filepath.Join("..", "..", "testdata", "fix-rejectable.sh"), path).CombinedOutput()
	require.NoError(t, err, "%s", out)

	rules := filepath.Join(t.TempDir(), "acme.toml")
	require.NoError(t, os.WriteFile(rules, []byte("[[rule]]\nsegment = \"BGM\"\nelement = \"1004\"\nformat = \"^ORD-[0-9]+$\"\n"), 0o600))
	rs, err := mig.Load(rules)
	require.NoError(t, err)
	h, err := LoadHistory(t.Context(), historyStore(t, 6, 2), resendConn, nil)
	require.NoError(t, err)

	r, err := ReviewFix(t.Context(), st, l, rec, rejected, path, nil, Options{Directory: "D.96A", Rules: rs, History: h})
	require.NoError(t, err)
	require.False(t, r.Preflight.Blocked(), "warnings only: %v", r.Preflight.Problem)
	require.NotNil(t, r.Plan)
	var rule, history []string
	for _, c := range r.Preflight.Warnings() {
		switch c.Name {
		case CheckPartnerRule:
			rule = append(rule, c.Text)
		case CheckHistory:
			history = append(history, c.Text)
		}
	}
	require.Len(t, rule, 1)
	require.True(t, strings.HasPrefix(rule[0], rules+":1: BGM"), rule[0])
	require.Contains(t, rule[0], `"PO-4720" does not have the partner's format ^ORD-[0-9]+$`)
	require.NotEmpty(t, history, "the fixed file has segments the partner never accepted")
	require.Contains(t, history[0], "this partner accepted 6 ORDERS, none with ")

	// Without the connection's options the review knows nothing of the partner.
	r, err = ReviewFix(t.Context(), st, l, rec, rejected, path, nil, Options{})
	require.NoError(t, err)
	require.Empty(t, r.Preflight.Warnings())
}
