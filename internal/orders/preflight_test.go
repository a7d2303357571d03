package orders

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func TestInspectCleanOrders(t *testing.T) {
	path := orderstest.WriteFile(t, "po.edi", fixture(t, "orders_d96a.edi"))
	pf, err := Inspect(t.Context(), path)
	require.NoError(t, err)
	require.False(t, pf.Blocked(), "%v", pf.Problem)
	require.Empty(t, pf.Warnings())
	require.Equal(t, path, pf.Path)
	require.Len(t, pf.SHA256, 64)
	require.Equal(t, pf.Size, int64(len(pf.Data())))
	require.Equal(t, "PO-4711", BusinessID(pf.Facts))

	for name, want := range map[string]string{
		CheckSize:        "of at most 16 MiB",
		CheckParse:       "VALID: no errors, no warnings",
		CheckInterchange: "one interchange, control reference ICR0001, syntax UNOC:3",
		CheckMessages:    "messages: 1 ORDERS",
		CheckSender:      "sender 4012345000009 (qualifier 14)",
		CheckRecipient:   "recipient 4098765000003 (qualifier 14)",
		CheckOrders:      "order (BGM) PO-4711",
		CheckDirectory:   "directory ORDERS D.96A",
	} {
		c := checkNamed(t, pf, name)
		require.Equal(t, OK, c.Severity, name)
		require.Contains(t, c.Text, want, name)
	}
}

func TestInspectBlocks(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.edi")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxSize+1)) // sparse: refused from its size, never read
	require.NoError(t, f.Close())
	two := append(orderstest.Orders("R1", 1, "PO-1"), orderstest.Orders("R2", 1, "PO-2")...)
	ordrsp := []byte("UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+R1'UNH+1+ORDRSP:D:96A:UN'BGM+231+X+9'UNT+3+1'UNZ+1+R1'")
	badCount := strings.Replace(string(orderstest.Orders("R3", 1, "PO-3")), "UNT+8+1", "UNT+9+1", 1)
	noBGM := []byte("UNB+UNOA:3+S:14+R:14+250312:1030+NB'UNH+1+ORDERS:D:96A:UN'DTM+137:20250312:102'UNT+3+1'UNZ+1+NB'")
	for _, tc := range []struct {
		name, path string
		check      string // the check that blocks
		problem    string // in Problem
		kind       edi.PreflightKind
	}{
		{"empty", orderstest.WriteFile(t, "empty.edi", nil), CheckSize, "is empty: nothing to upload", ""},
		{"only line breaks", orderstest.WriteFile(t, "nl.edi", []byte("\r\n\r\n")), CheckProblem, "the file is empty", edi.PreflightEmpty},
		{"over 16 MiB", big, CheckSize, "accepts at most 16 MiB (16777216 bytes)", ""},
		{"two interchanges", orderstest.WriteFile(t, "two.edi", two), CheckInterchange, "contains 2 interchanges", edi.PreflightManyInterchanges},
		{"not orders", orderstest.WriteFile(t, "rsp.edi", ordrsp), CheckMessages, `is "ORDRSP", not ORDERS`, edi.PreflightNotOrders},
		{"garbage", orderstest.WriteFile(t, "junk.edi", []byte("hello \x1b[31m world")), CheckInterchange, "no UNB segment", edi.PreflightNoInterchange},
		{"parse error", orderstest.WriteFile(t, "cnt.edi", []byte(badCount)), CheckParse, "UNT_COUNT_MISMATCH", edi.PreflightEnvelope},
		{"no BGM", orderstest.WriteFile(t, "nobgm.edi", noBGM), CheckParse, "BGM", edi.PreflightEnvelope},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pf, err := Inspect(t.Context(), tc.path)
			require.NoError(t, err)
			require.True(t, pf.Blocked())
			require.Nil(t, pf.Facts)
			require.ErrorContains(t, pf.Problem, tc.problem)
			if tc.kind != "" {
				require.Contains(t, pf.Problem.Error(), "cannot be uploaded, nothing was sent")
				var pe *edi.PreflightError
				require.ErrorAs(t, pf.Problem, &pe)
				require.Equal(t, tc.kind, pe.Kind)
				require.Equal(t, Blocking, checkNamed(t, pf, CheckProblem).Severity, "the reason is a line of the report")
			}
			require.Equal(t, Blocking, checkNamed(t, pf, tc.check).Severity)
			for _, c := range pf.Checks {
				require.True(t, termsafe.IsSafe(c.Text), "%q", c.Text)
			}
		})
	}
}

func TestInspectUnreadable(t *testing.T) {
	for _, tc := range []struct{ path, msg string }{
		{t.TempDir(), "not a regular file"},
		{filepath.Join(t.TempDir(), "nope.edi"), "cannot read the file"},
	} {
		pf, err := Inspect(t.Context(), tc.path)
		require.Nil(t, pf)
		require.ErrorContains(t, err, tc.msg)
	}
	_, err := Inspect(t.Context(), t.TempDir())
	require.ErrorIs(t, err, spool.ErrNotRegular)
	require.ErrorContains(t, err, "upload reads only regular files")
}

func TestInspectWarningsNeedConfirmation(t *testing.T) {
	// Lower case in UNOA is a warning; a test interchange is one too.
	data := "UNB+UNOA:3+SENDER:14+RECEIVER:14+250312:1030+MULTI++++++1'" +
		"UNH+1+ORDERS:D:96A:UN'BGM+220+a-1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'" +
		"UNH+2+ORDERS:D:96A:UN'BGM+220+A-2+9'DTM+137:20250312:102'UNS+S'UNT+5+2'UNZ+2+MULTI'"
	pf := InspectBytes("multi.edi", []byte(data))
	require.False(t, pf.Blocked(), "%v", pf.Problem)
	w := pf.Warnings()
	require.GreaterOrEqual(t, len(w), 2)
	require.Equal(t, Warning, checkNamed(t, pf, CheckParse).Severity)
	require.Contains(t, checkNamed(t, pf, CheckTest).Text, "test")
	require.Contains(t, checkNamed(t, pf, CheckOrders).Text, "a-1, A-2; with several orders the key uses the control reference MULTI")
	require.Equal(t, "MULTI", BusinessID(pf.Facts))
}

func TestInspectDirectoryNote(t *testing.T) {
	pf := InspectBytes("d25a.edi", fixture(t, "utf8_orders_d25a.edi"))
	require.False(t, pf.Blocked(), "%v", pf.Problem)
	c := checkNamed(t, pf, CheckDirectory)
	require.Equal(t, Note, c.Severity)
	require.Contains(t, c.Text, "D.25A checked with the D.24A structure")
	require.Contains(t, checkNamed(t, pf, CheckOrders).Text, "PO-2025-0815")
}

func TestInspectBytesLimits(t *testing.T) {
	pf := InspectBytes("x", nil)
	require.ErrorContains(t, pf.Problem, "is empty")
	pf = InspectBytes("x", make([]byte, MaxSize+1))
	require.ErrorContains(t, pf.Problem, "at most 16 MiB")
	require.Nil(t, pf.Data(), "nothing kept of a refused payload")
}

// TestInspectHostile: a file name and payload values that try to steer the
// terminal reach the report only as visible escapes.
func TestInspectHostile(t *testing.T) {
	name := "po\x1b]0;owned\x07.edi"
	data := strings.Replace(string(orderstest.Orders("R\x1b[2J", 1, "PO-\x1b[31mX")), "4098765000003", "\u202erecipient", 1)
	pf := InspectBytes(name, []byte(data))
	for _, c := range pf.Checks {
		require.True(t, termsafe.IsSafe(c.Text), "%q", c.Text)
	}
	if pf.Problem != nil {
		require.NotContains(t, termsafe.String(pf.Problem.Error()), "\x1b")
	}
	empty := InspectBytes(name, nil)
	require.NotContains(t, empty.Problem.Error(), "\x1b", "the file name is sanitised in the problem")
}
