package orders

import (
	"slices"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// History is the connection's upload history for people: one record per
// attempt (a reservation merged with its result; a reservation without
// one is still pending or was interrupted), newest first.
func History(store *spool.Store, connectionID string) ([]spool.UploadRecord, error) {
	h, err := store.Uploads(connectionID)
	if err != nil {
		return nil, err
	}
	a := spool.Attempts(h)
	slices.Reverse(a)
	return a, nil
}
