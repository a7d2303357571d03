package track

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/who"
)

// A team store indexes what engineers pushed, from the bytes they pushed
// (no file of this machine is read), under source paths that name no
// machine: Alice's and Bob's push of the same delivery are one source.

// TeamPrefix starts every source path of a team store.
const TeamPrefix = "team:"

// TeamDeliveryPath is the source of a pushed delivery (its sidecar; the
// payload is the same path ending in .edi, as on disk).
func TeamDeliveryPath(conn, id string) string {
	return TeamPrefix + conn + "/deliveries/" + spool.SafeName(id) + ".json"
}

// TeamUploadPath is the source of one key's pushed upload attempts.
func TeamUploadPath(conn, key string) string { return TeamPrefix + conn + "/uploads/" + key }

// TeamSeenPath is the source of one pushed seen record (sum: its content's SHA-256).
func TeamSeenPath(conn, sum string) string { return TeamPrefix + conn + "/seen/" + sum }

// TeamEventPath is the source of one pushed webhook event.
func TeamEventPath(id string) string { return TeamPrefix + "events/" + id }

// TeamDeliveryItems are the items of a delivery from its sidecar and
// payload bytes, by who stored it. The caller has checked that payload
// has the sidecar's SHA-256 and size (teamstore.PushDelivery): the facts
// of the same bytes parsed for the local index are used, when this
// process has them (sharedParses).
func TeamDeliveryItems(ctx context.Context, st spool.Stored, payload []byte, by who.Who) []Item {
	st.Path = TeamDeliveryPath(st.Meta.ConnectionID, st.Meta.DeliveryAttemptID)
	var f payloadFacts
	if int64(len(payload)) != st.Meta.Size {
		f.err = errors.New("the pushed payload does not have the verified size")
	} else {
		f = sharedParses.facts(ctx, payload, st.Meta.SHA256, true)
	}
	return withBy(deliveryItemsFrom(st, &f), by)
}

// TeamUploadItems are the attempts of one key's pushed records (in the
// order they were recorded), each by who sent it; sent returns a file
// sent by its SHA-256 (false: no copy).
func TeamUploadItems(ctx context.Context, conn string, recs []spool.UploadRecord, by []who.Who, sent func(sha string) ([]byte, bool)) []Item {
	var read func(sha string, fn func(*edi.Document) error) (bool, error)
	if sent != nil {
		read = func(sha string, fn func(*edi.Document) error) (bool, error) {
			b, ok := sent(sha)
			if !ok {
				return false, nil
			}
			return true, parseDoc(ctx, b, fn)
		}
	}
	items := uploadItemsWith(conn, recs, read)
	// Attempts folds a pending record into its result: an attempt is by
	// who recorded its last line
	byAttempt := map[string]who.Who{}
	for i, r := range recs {
		if i < len(by) {
			byAttempt[attemptID(r)] = by[i]
		}
	}
	for i, a := range spool.Attempts(recs) {
		if i < len(items) {
			items[i].By = byAttempt[attemptID(a)]
		}
	}
	return items
}

func attemptID(r spool.UploadRecord) string {
	return r.Key + "\x00" + strings.ToLower(r.SHA256) + "\x00" + r.Time.UTC().Format(time.RFC3339Nano) + "\x00" + string(r.Outcome)
}

// TeamSeenItems are the items of pushed seen records.
func TeamSeenItems(conn string, recs []spool.SeenRecord, by who.Who) []Item {
	return withBy(seenItems(conn, recs), by)
}

// TeamEventItems are the events of a pushed capture file (the apiclient/
// events capture format: a raw HTTP request, or a body), named name.
func TeamEventItems(name string, capture []byte) []Item {
	d := events.Delivery{Name: name, Body: capture}
	if looksLikeRequest(capture) {
		if r, err := events.ParseHTTPRequest(name, capture); err == nil {
			d = r
		}
	}
	return eventItemsOf([]events.Delivery{d})
}

func looksLikeRequest(b []byte) bool {
	for _, m := range []string{"POST ", "PUT ", "GET "} {
		if bytes.HasPrefix(b, []byte(m)) {
			return true
		}
	}
	return false
}

func withBy(items []Item, by who.Who) []Item {
	for i := range items {
		items[i].By = by
	}
	return items
}

// OpenTeam is an index over a team store's backend: it is queried only
// (Find, Timeline, Dashboard…), never synced from this machine's files.
// readFile reads an item's file by its source path (a delivery's sidecar
// from the store); nil reads nothing.
func OpenTeam(ctx context.Context, b Backend, readFile func(path string) ([]byte, error), now func() time.Time) (*Index, error) {
	if now == nil {
		now = time.Now
	}
	c, err := newPathCodec(ctx, b, nil)
	if err != nil {
		return nil, err
	}
	if readFile == nil {
		readFile = func(string) ([]byte, error) { return nil, os.ErrNotExist }
	}
	return &Index{b: c, raw: b, opts: Options{Now: now}, readFile: readFile, team: true}, nil
}

// Team reports whether x is a team store's index.
func (x *Index) Team() bool { return x.team }

// read reads an item's file: this machine's, or the team store's.
func (x *Index) read(path string) ([]byte, error) {
	if x.readFile != nil {
		return x.readFile(path)
	}
	return os.ReadFile(path)
}
