package explain

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestContrlReasons(t *testing.T) {
	doc := parseFixture(t, "contrl_22_rejected.edi")
	got := ContrlReasons(doc.Messages[0].Summary().Contrl)
	require.Len(t, got, 6)
	require.Contains(t, got[0], "interchange ICR0009: 4 rejected")
	require.Contains(t, got[1], "message M0001 (ORDERS D:96A): 4 rejected")
	require.Contains(t, got[2], "segment 3 of the message: 13 ")
	require.Equal(t, "  segment 6 of the message", got[3])
	require.Contains(t, got[4], "element 2:1: 12 ")
	require.Contains(t, got[5], "message M0002 (ORDERS D:96A): 7 ")

	ok := ContrlReasons(parseFixture(t, "contrl_22.edi").Messages[0].Summary().Contrl)
	require.Len(t, ok, 1)
	require.Contains(t, ok[0], "interchange ICR0001: 7 acknowledged")

	evil := parseBytes(t, []byte("UNB+UNOA:3+S:14+R:14+250312:1031+C'UNH+C1+CONTRL:2:2:UN'UCI+X\x1b[2J+S:14+R:14+4'UNT+3+C1'UNZ+1+C'"))
	require.NotContains(t, ContrlReasons(evil.Messages[0].Summary().Contrl)[0], "\x1b")
}
