package track

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// TestLinkedOfReadsTheRowsConversations: a tab's link input for a few
// stored deliveries (its mailbox rows) reads those deliveries and their
// conversations, not the connection's other uploads and answers (issue
// 23 §1: opening a tab must not cost what the store holds), and says
// for each of them what the whole connection's link input says (parsed
// from the store: a delivery in no upload's conversation is stored too).
func TestLinkedOfReadsTheRowsConversations(t *testing.T) {
	if testBackend != nil {
		t.Skip("counts the SQLite index's reads")
	}
	const n = 300
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	at := t0
	for i := range n {
		ref, doc := fmt.Sprintf("R%04d", i), fmt.Sprintf("PO-%04d", i)
		uploaded(t, s, "conn-a", ref, doc, ordersIC(ref, doc), at, spool.OutcomeAccepted)
		store(t, s, "conn-a", fmt.Sprintf("c-%04d", i), "CONTRL", contrl(fmt.Sprintf("C%04d", i), ref, i%7 == 0), at.Add(time.Minute), true)
		store(t, s, "conn-a", fmt.Sprintf("o-%04d", i), "ORDRSP", ordrsp(fmt.Sprintf("O%04d", i), doc), at.Add(2*time.Minute), true)
		at = at.Add(5 * time.Minute)
	}
	store(t, s, "conn-a", "lonely", "CONTRL", contrl("CXXX", "R-NEVER-SENT", false), at, true) // answers no upload
	x := openIndex(t, dir, &clock{t: at.Add(time.Hour)}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	whole, err := orders.LoadLinked(t.Context(), s, "conn-a", nil) // every stored answer parsed
	require.NoError(t, err)

	ids := []string{"c-0007", "o-0007", "o-0150", "lonely", "not-stored"}
	before := statsOf(x)
	part, err := x.LinkedOf(t.Context(), s, "conn-a", ids)
	require.NoError(t, err)
	work := statsOf(x).minus(before)
	assert.LessOrEqual(t, work.ItemsRead, 16, "items decoded for %d rows of a store of %d deliveries", len(ids), 2*n+1)
	assert.LessOrEqual(t, len(part.Deliveries), 5)
	assert.LessOrEqual(t, len(part.Uploads), 2)
	for _, id := range ids[:4] {
		d, ok := part.Delivery(id)
		require.True(t, ok, id)
		w, _ := whole.Delivery(id)
		assert.Equal(t, w.Stored.Path, d.Stored.Path, id)
		assert.Equal(t, whole.AnswerLines(id), part.AnswerLines(id), id)
		_, wo := whole.OrdrspUpload(id)
		_, po := part.OrdrspUpload(id)
		assert.Equal(t, wo, po, id)
	}
	assert.NotEmpty(t, part.AnswerLines("c-0007"))
	_, ok := part.Delivery("not-stored")
	assert.False(t, ok)
}
