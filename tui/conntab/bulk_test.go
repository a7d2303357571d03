package conntab

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab/table"
)

// TestBulkProcessPreviewThenRun: P with marked rows shows the plan and
// runs nothing until y; y processes the marked entries in the worker
// order, one by one.
func TestBulkProcessPreviewThenRun(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	m, _ = pressAll(t, m, " ", "j", " ") // da-00000 and da-00002
	m, _ = pressAll(t, m, "P")
	p, ok := m.stack.Top().(common.Prompt)
	require.True(t, ok, "a preview first: %T", m.stack.Top())
	require.Empty(t, be.claimed(), "nothing runs before y")
	v := flat(m.View())
	require.Contains(t, v, "da-00000")
	require.Contains(t, v, "da-00002")
	require.NotNil(t, p.Yes())

	m, _ = pressAll(t, m, "y")
	require.Equal(t, []string{"da-00000", "da-00002"}, be.claimed())
	require.False(t, m.ordering(), "no marked entries left to process")
	require.Empty(t, m.marks, "the marks are used up")
}

// TestBulkProcessStopsAtFirstFailure: a failing entry stops the run; the
// entries after it are not claimed. N runs nothing.
func TestBulkProcessStopsAtFirstFailure(t *testing.T) {
	m, be, _ := newTest(t, 5, 50)
	be.fetchErr = map[string]error{"da-00001": errors.New("boom")}
	m, _ = pressAll(t, m, "*")
	m, _ = pressAll(t, m, "P", "N")
	require.Empty(t, be.claimed(), "N runs nothing")
	m, _ = pressAll(t, m, "P", "y")
	require.Equal(t, []string{"da-00000", "da-00001"}, be.claimed(), "stopped at the failure")
	require.False(t, m.ordering(), "no marked entries left to process")
}

// TestBulkUploadsPreviewThenSend: marked uploads on H, S previews each
// one's new key and the answer expected; nothing is sent before y; y
// sends them and lists the answers; R replays under the same key.
func TestBulkUploadsPreviewThenSend(t *testing.T) {
	e := newAnswerEnv(t)
	key := e.upload(t, "orders_d96a.edi", 2)
	m := e.tab(t)
	m, _ = pressAll(t, m, "H", " ")
	require.Contains(t, m.View(), table.MarkMark)
	m, _ = pressAll(t, m, "S")
	_, ok := m.stack.Top().(common.Prompt)
	require.True(t, ok, "a preview first: %T", m.stack.Top())
	next := strings.TrimSuffix(key, "1") + "2"
	v := flat(m.View())
	require.Contains(t, v, "resend with key "+next+", expect 202")
	hist, err := up.History(e.conn.Spool, answerConn)
	require.NoError(t, err)
	require.Len(t, hist, 1, "nothing sent before y")

	m, _ = pressAll(t, m, "y")
	v = flat(m.View())
	require.Contains(t, v, "Marked uploads sent")
	require.Regexp(t, `202 accepted\S* under key `+regexp.QuoteMeta(next), v)
	m, _ = pressAll(t, m, "esc")
	_, onAnswers := m.stack.Top().(answersScreen)
	require.True(t, onAnswers)

	// R on the first upload: its key again, 200 replay.
	m, _ = pressAll(t, m, "G", " ", "R")
	v = flat(m.View())
	require.Contains(t, v, "replay with key "+key+", expect 200 replay")
	m, _ = pressAll(t, m, "y")
	require.Contains(t, flat(m.View()), "under key "+key+" (expected 200 replay)")
}

// TestBulkProcessGoesThroughTheRunner: y on the preview hands the marked
// entries to the runner's order (worker.OrderMarked): the tab keeps no
// list of its own; one claim per connection while it runs, and an ID
// given twice is claimed once.
func TestBulkProcessGoesThroughTheRunner(t *testing.T) {
	m, be, _ := newTest(t, 4, 50)
	es := testEntries(4)
	m, cmd := m.Update(bulkRunReq{msgBase: msgBase{tab: testTab}, entries: []apiclient.Entry{es[2], es[0], es[2]}})
	o, _, ok := m.run.Order()
	require.True(t, ok)
	require.Equal(t, worker.OrderMarked, o.Kind)
	require.ErrorIs(t, m.run.Refuse(es[1]), worker.ErrOneClaim, "one claim per connection")
	m, _ = settle(t, m, cmd)
	require.Equal(t, []string{"da-00002", "da-00000"}, be.claimed(), "in the order given, never an ID twice")
	require.False(t, m.ordering())
	_, ok = m.run.Acknowledged("da-00002")
	require.True(t, ok)
}
