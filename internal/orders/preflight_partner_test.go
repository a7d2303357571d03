package orders

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi/mig"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// TestPreflightBlocksWrongCheckDigit: the README's rejection story (a
// buyer GLN with a wrong check digit) no longer passes the pre-flight;
// the report says the digit it should be.
func TestPreflightBlocksWrongCheckDigit(t *testing.T) {
	pf := InspectBytes("po.edi", fixture(t, "orders_bad_gln.edi"))
	require.True(t, pf.Blocked())
	require.Nil(t, pf.Facts)
	require.Contains(t, pf.Problem.Error(), `"4012345000008" is a GLN (agency 9, GS1) with a wrong check digit: it ends in 8, its GS1 check digit is 9 (4012345000009)`)
	c := checkNamed(t, pf, CheckIssue)
	require.Equal(t, Blocking, c.Severity)
	require.Contains(t, c.Text, "GS1_CHECK_DIGIT")
	// The shipped rejectable one passes: only the partner can reject it.
	require.False(t, InspectBytes("po.edi", fixture(t, "orders_rejectable.edi")).Blocked())
}

// TestPreflightDirectory: an ORDERS in another directory than the
// connection's is blocked with the reason; --force lets it go with a
// warning; without a connection both of the contract's pass.
func TestPreflightDirectory(t *testing.T) {
	d25 := fixture(t, "utf8_orders_d25a.edi")
	pf := InspectBytesWith("po.edi", d25, Options{Directory: "D.96A"})
	require.True(t, pf.Blocked())
	require.Contains(t, pf.Problem.Error(), `is in directory D.25A, but this connection's profile revision is D.96A`)
	require.Contains(t, pf.Problem.Error(), "--force sends it anyway")
	require.Equal(t, Blocking, checkNamed(t, pf, CheckContract).Severity)

	pf = InspectBytesWith("po.edi", d25, Options{Directory: "D.96A", Force: true})
	require.False(t, pf.Blocked())
	require.Equal(t, Warning, checkNamed(t, pf, CheckContract).Severity)

	require.False(t, InspectBytesWith("po.edi", d25, Options{Directory: "D.25A"}).Blocked())
	require.False(t, InspectBytes("po.edi", d25).Blocked())

	d01b := []byte(strings.Replace(string(orderstest.Orders("R1", 1, "PO-1")), "ORDERS:D:96A:UN", "ORDERS:D:01B:UN", 1))
	pf = InspectBytes("po.edi", d01b)
	require.True(t, pf.Blocked())
	require.Contains(t, pf.Problem.Error(), "is in directory D.01B; the Partner API exchanges ORDERS in D.96A or D.25A only")
}

// TestPreflightPartnerRules: the partner's rules are warnings that name
// their file and line, one per broken rule.
func TestPreflightPartnerRules(t *testing.T) {
	rs, err := mig.Load(filepath.Join("..", "..", "testdata", "mig", "demo.toml"))
	require.NoError(t, err)
	pf := InspectBytesWith("po.edi", orderstest.Orders("R1", 1, "PO-1"), Options{Rules: rs})
	require.False(t, pf.Blocked())
	var rules []string
	for _, c := range pf.Warnings() {
		if c.Name == CheckPartnerRule {
			require.NotEmpty(t, c.Rule)
			require.True(t, strings.HasPrefix(c.Text, c.Rule+": "), c.Text)
			rules = append(rules, filepath.Base(c.Rule))
		}
	}
	require.Equal(t, []string{"demo.toml:5"}, rules, "orderstest's ORDERS has no NAD+DP")
	require.Contains(t, checkNamed(t, pf, CheckPartnerRule).Text, `has 0 NAD+DP; the partner requires at least 1`)
}
