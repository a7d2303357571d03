package partnersim

import (
	"fmt"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
)

// bulkTemplates is how many distinct messages AddBulk makes; its entries
// cycle through them and share their bytes.
const bulkTemplates = 64

// MaxBulk bounds AddBulk: a million small entries are a few hundred MB of
// bookkeeping, already far past any real mailbox.
const MaxBulk = 1_000_000

// AddBulk adds n small deliveries (ORDRSP, CONTRL and APERAK in D.96A and
// D.25A) to a connection's mailbox cheaply, for a large mailbox: it makes
// 64 realistic messages from seed and cycles through them, so entries
// share payload bytes and hashes and cost little more than their
// bookkeeping (10,000 entries take a few milliseconds). The entries are
// created one second apart, the oldest first, ending now, and listed after
// the connection's existing ones. Delivery attempt ids and interchange ids
// are fresh per entry, derived from seed and the clock (the same seed and
// clock give the same ids). It returns the ids in list order.
func (s *Sim) AddBulk(connectionID string, n int, seed uint64) ([]string, error) {
	if n < 0 || n > MaxBulk {
		return nil, fmt.Errorf("%w: bulk size %d is outside 0..%d", ErrInvalid, n, MaxBulk)
	}
	g := edigen.New(seed)
	ids := edigen.New(seed ^ uint64(s.clock.Now().UnixNano()) ^ 0xb01c)
	now := s.clock.Now().UTC().Truncate(time.Second)
	supplier := edigen.Party{GLN: g.GLN("43"), Name: "Nordwerk Großhandel GmbH", City: "Hamburg", Country: "DE"}
	buyer := edigen.Party{GLN: g.GLN("40"), Name: "ACME DE Handels GmbH", City: "Köln", Country: "DE"}
	protos := make([]*entry, min(n, bulkTemplates))
	for i := range protos {
		typ, body := demoMessage(g, i, supplier, buyer, now.Add(-time.Duration(len(protos)-i)*time.Minute))
		protos[i] = newEntry(Delivery{ID: "-", InterchangeID: "-", MessageType: typ, Payload: body})
	}
	out := make([]string, 0, n)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range n {
		e := *protos[i%len(protos)]
		e.id, e.interchangeID = ids.UUID(), g.UUID()
		e.createdAt = now.Add(-time.Duration(n-1-i) * time.Second)
		if err := s.addEntryLocked(connectionID, &e); err != nil {
			return out, err
		}
		out = append(out, e.id)
	}
	return out, nil
}
