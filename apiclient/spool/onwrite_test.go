package spool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnWriteReportsEachDurableWriteOnce: the outbox hook hears of a
// commit, a receipt, an upload record and a seen line, after each was
// written, and not of the no-ops (the same bytes again, the same receipt
// again) nor of failed writes.
func TestOnWriteReportsEachDurableWriteOnce(t *testing.T) {
	s := newStore(t)
	var got []Written
	s.SetOnWrite(func(w Written) {
		// the write is on disk when the hook runs
		if w.Stored != nil {
			_, err := s.Lookup(w.ConnectionID, w.Stored.Meta.DeliveryAttemptID)
			assert.NoError(t, err)
		}
		got = append(got, w)
	})
	data := []byte("UNA:+.? 'UNB+UNOC:3+A+B'")
	_, err := store(t, s, "c", "da-1", data)
	require.NoError(t, err)
	_, err = store(t, s, "c", "da-1", data) // AlreadyStored: no write
	require.NoError(t, err)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	_, err = s.MarkAcknowledged("c", "da-1", "rcpt-1", at)
	require.NoError(t, err)
	_, err = s.MarkAcknowledged("c", "da-1", "rcpt-1", at) // the same receipt: no write
	require.NoError(t, err)
	require.NoError(t, s.AppendUpload(UploadRecord{ConnectionID: "c", Key: "k:1", SHA256: sum(data), Outcome: OutcomeAccepted}))
	require.NoError(t, s.NoteSeen(SeenRecord{ConnectionID: "c", DeliveryAttemptID: "da-2", State: SeenClaimed}))
	require.Error(t, s.NoteSeen(SeenRecord{})) // refused: not written, not reported

	kinds := make([]WriteKind, len(got))
	for i, w := range got {
		kinds[i] = w.Kind
		assert.Equal(t, s.Root(), w.Root)
		assert.Equal(t, "c", w.ConnectionID)
	}
	assert.Equal(t, []WriteKind{WroteDelivery, WroteAck, WroteUpload, WroteSeen}, kinds)
	assert.Equal(t, "da-1", got[0].Stored.Meta.DeliveryAttemptID)
	assert.False(t, got[0].Stored.Meta.Acknowledged())
	assert.Equal(t, "rcpt-1", got[1].Stored.Meta.ReceiptID)
	assert.Equal(t, "k:1", got[2].Upload.Key)
	assert.False(t, got[2].Upload.Time.IsZero(), "the record as written, stamped")
	assert.Equal(t, "da-2", got[3].Seen.DeliveryAttemptID)

	s.SetOnWrite(nil)
	require.NoError(t, s.NoteSeen(SeenRecord{ConnectionID: "c", DeliveryAttemptID: "da-3", State: SeenClaimed}))
	assert.Len(t, got, 4)
}
