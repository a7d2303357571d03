package conntab

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// H says who sent a team store's upload on its row ("by alice on
// host-3", Options.SentBy), terminal-safe; this machine's own rows say
// nothing. A new load (linkedNews) brings its own answer.
func TestAnswersScreenSaysWhoSentTheTeamsUploads(t *testing.T) {
	t0 := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	s, recs := acceptedUploads(t, t0, func(_ int, doc string) string { return "REF" + doc }, "PO-ALICE", "PO-MINE")
	l, err := up.LoadLinked(t.Context(), s, answerConn, nil)
	require.NoError(t, err)
	c := &common.Common{Width: 160, Height: 30, Styles: common.NewStyles(true), Now: func() time.Time { return t0 }}
	by := map[string]string{SentByKey(recs[0]): "alice on host-3\x1b]52;c;aGk=\x07"}
	v := flat(newAnswersScreen(c, 1, nil, "acme", l, track.SLA{}, by).setSize(160, 30).view())
	require.Contains(t, v, "by alice on host-3^[]52;c;aGk=^G")
	require.NotContains(t, v, "\x1b]52")
	require.Equal(t, 1, strings.Count(v, " by "), "only the colleague's row: %s", v)

	a := newAnswersScreen(c, 1, nil, "acme", l, track.SLA{}, nil)
	require.NotContains(t, flat(a.setSize(160, 30).view()), " by ")
	a = a.Notice(linkedNews{linked: l, by: map[string]string{SentByKey(recs[1]): "bob on host-7"}}).(answersScreen)
	require.Contains(t, flat(a.setSize(160, 30).view()), "by bob on host-7")
}
