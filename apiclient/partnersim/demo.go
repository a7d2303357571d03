package partnersim

import (
	"fmt"
	"slices"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
)

// DemoOptions tunes SeedDemo.
type DemoOptions struct {
	// Seed makes the EDIFACT content, ids and connection ids
	// reproducible; 0 means 1. Secrets do not depend on it.
	Seed uint64
	// Secret returns the secret of each demo key. nil: 32 random bytes
	// from crypto/rand per key and run. Tests pass canaries.
	Secret func(keyID string) string
	// PerConnection is the number of ordinary entries per connection;
	// 0 means 64 (128 in all, plus the large one), negative means none
	// (and then no faulty ones either).
	PerConnection int
	// LargeSize is the size of the big ORDRSP on the first connection;
	// 0 means 15 MiB, negative means none (quick tests).
	LargeSize int
	// LargeCopies adds that many deliveries of the big ORDRSP (0 means 1),
	// all sharing one []byte: fresh entries for repeated benchmark runs
	// without holding more copies in memory.
	LargeCopies int
	// Bulk adds that many more small deliveries to the first connection
	// (acme-de) with AddBulk, for a large mailbox (`b2bx sim --entries N`);
	// 0 means none. They come after its ordinary entries and before the
	// big ORDRSP.
	Bulk int
}

// DemoKey is a demo API key. Secret is the raw secret: the simulator's own
// throwaway credential, printed by `b2bx sim` on purpose.
type DemoKey struct {
	ID     string
	Secret string
	Scopes []string
}

// DemoConnection is one demo connection and its keys.
type DemoConnection struct {
	Name         string
	ConnectionID string
	Key          DemoKey // every scope: inbox and mailbox
	InboxKey     DemoKey // upload only
	MailboxKey   DemoKey // mailbox only
}

// DemoEntry names a notable demo delivery.
type DemoEntry struct {
	ConnectionID      string
	DeliveryAttemptID string
	What              string // e.g. "hash mismatch", "15 MiB ORDRSP"
}

// Demo describes what SeedDemo created.
type Demo struct {
	Tenant      string
	Connections []DemoConnection
	Entries     int         // deliveries created in all
	Faulty      []DemoEntry // deliveries that fail an integrity check
	Large       DemoEntry   // the (first) big ORDRSP; empty if none
	LargeAll    []DemoEntry // every copy of the big ORDRSP, Large first
	Bulk        int         // bulk deliveries on the first connection (DemoOptions.Bulk)
}

// DemoTenant is the tenant (workspace) of the demo partner.
const DemoTenant = "tenant-nordwerk"

// SeedDemo fills s with one partner ("ACME") holding two connections of
// the tenant DemoTenant, "acme-de" and "acme-at", each with an all-scope
// key, an upload-only key and a mailbox-only key; 64 deliveries per
// connection (ORDRSP, CONTRL and APERAK in D.96A and D.25A, CONTRL 2:2 and
// 4:1), created over the past days; three faulty deliveries (hash
// mismatch, truncated, trailer failed); opt.Bulk small deliveries more on
// acme-de; and one 15 MiB ORDRSP.
func SeedDemo(s *Sim, opt DemoOptions) (*Demo, error) {
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.PerConnection == 0 {
		opt.PerConnection = 64
	}
	if opt.LargeSize == 0 {
		opt.LargeSize = 15 << 20
	}
	if opt.Secret == nil {
		opt.Secret = func(string) string { return "sk_" + randomHex(32) }
	}
	g := edigen.New(opt.Seed)
	// Payloads carry dates taken from the clock, so delivery attempt ids
	// must change with it: a restarted simulator must never hand out an id
	// it used before for different bytes (a client's spool would rightly
	// refuse the second copy). Same seed and same clock: same ids.
	ids := edigen.New(opt.Seed ^ uint64(s.clock.Now().UnixNano()))
	supplier := edigen.Party{GLN: g.GLN("43"), Name: "Nordwerk Großhandel GmbH", Street: "Hafenstraße 12", City: "Hamburg", PostCode: "20457", Country: "DE"}
	d := &Demo{Tenant: DemoTenant}
	for _, c := range []struct{ name, prefix, city, country string }{{"acme-de", "40", "Köln", "DE"}, {"acme-at", "91", "Wien", "AT"}} {
		dc, err := seedConnection(s, opt, g, c.name, d)
		if err != nil {
			return nil, err
		}
		buyer := edigen.Party{GLN: g.GLN(c.prefix), Name: "ACME " + c.country + " Handels GmbH", City: c.city, Country: c.country}
		if err := seedEntries(s, opt, g, ids, dc.ConnectionID, supplier, buyer, d); err != nil {
			return nil, err
		}
		d.Connections = append(d.Connections, dc)
	}
	if opt.Bulk > 0 {
		ids, err := s.AddBulk(d.Connections[0].ConnectionID, opt.Bulk, opt.Seed)
		if err != nil {
			return nil, err
		}
		d.Bulk = len(ids)
		d.Entries += len(ids)
	}
	if opt.LargeSize > 0 {
		if err := seedLarge(s, opt, g, ids, supplier, d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// seedLarge adds the big ORDRSP (LargeCopies times, one shared payload)
// to the first connection as its newest entries.
func seedLarge(s *Sim, opt DemoOptions, g, ids *edigen.Gen, supplier edigen.Party, d *Demo) error {
	conn := d.Connections[0].ConnectionID
	now := s.clock.Now().UTC()
	o := g.Order(edigen.Party{GLN: g.GLN("40")}, supplier, now.Add(-time.Hour), 1)
	env := edigen.Envelope{Sender: supplier.GLN, Recipient: o.Buyer.GLN, ControlRef: g.ControlRef(), Prepared: now.Add(-30 * time.Minute)}
	big := g.LargeOrdrsp(edigen.D96A, env, o, "RSP-"+g.Digits(8), opt.LargeSize)
	what := fmt.Sprintf("%.1f MiB ORDRSP", float64(len(big))/(1<<20))
	// Hash once; every copy shares the bytes and the hash.
	proto := newEntry(Delivery{MessageType: "ORDRSP", Payload: big})
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range max(opt.LargeCopies, 1) {
		e := *proto
		e.id, e.interchangeID = ids.UUID(), g.UUID()
		e.createdAt = now.Add(time.Duration(i-60) * time.Second)
		if err := s.addEntryLocked(conn, &e); err != nil {
			return err
		}
		d.Entries++
		d.LargeAll = append(d.LargeAll, DemoEntry{ConnectionID: conn, DeliveryAttemptID: e.id, What: what})
	}
	d.Large = d.LargeAll[0]
	return nil
}

func seedConnection(s *Sim, opt DemoOptions, g *edigen.Gen, name string, d *Demo) (DemoConnection, error) {
	dc := DemoConnection{Name: name, ConnectionID: g.UUID()}
	if err := s.AddConnection(Connection{ID: dc.ConnectionID, Tenant: DemoTenant, Name: name}); err != nil {
		return dc, err
	}
	mk := func(kind string, scopes []string) (DemoKey, error) {
		k := DemoKey{ID: "key-" + name + "-" + kind, Scopes: slices.Clone(scopes)}
		k.Secret = opt.Secret(k.ID)
		return k, s.AddKey(Key{ID: k.ID, Secret: k.Secret, Tenant: DemoTenant, Scopes: scopes, Connections: []string{dc.ConnectionID}})
	}
	var err error
	if dc.Key, err = mk("all", AllScopes); err != nil {
		return dc, err
	}
	if dc.InboxKey, err = mk("inbox", []string{ScopeInboxCreate}); err != nil {
		return dc, err
	}
	dc.MailboxKey, err = mk("mailbox", MailboxScopes)
	return dc, err
}

type demoFault struct {
	what string
	f    PayloadFault
}

// seedEntries adds opt.PerConnection deliveries from supplier to buyer,
// the oldest first, about 40 minutes apart.
func seedEntries(s *Sim, opt DemoOptions, g, ids *edigen.Gen, conn string, supplier, buyer edigen.Party, d *Demo) error {
	now := s.clock.Now().UTC().Truncate(time.Minute)
	faults := map[int]demoFault{}
	if len(d.Faulty) == 0 && opt.PerConnection > 11 { // the first connection carries the faulty ones, early in the list
		faults = map[int]demoFault{
			3:  {"hash mismatch", PayloadFault{WrongHashHeader: true}},
			7:  {"truncated", PayloadFault{Truncate: true}}, // TruncateAt: half, set below
			11: {"trailer failed", PayloadFault{Trailer: TrailerFailed}},
		}
	}
	for i := range max(opt.PerConnection, 0) {
		created := now.Add(-time.Duration(opt.PerConnection-i) * 40 * time.Minute)
		typ, body := demoMessage(g, i, supplier, buyer, created)
		del := Delivery{ID: ids.UUID(), InterchangeID: g.UUID(), MessageType: typ, Payload: body, CreatedAt: created}
		if f, ok := faults[i]; ok {
			del.Fault = f.f
			if f.f.Truncate {
				del.Fault.TruncateAt = int64(len(body) / 2)
			}
		}
		id, err := s.AddEntry(conn, del)
		if err != nil {
			return err
		}
		d.Entries++
		if f, ok := faults[i]; ok {
			d.Faulty = append(d.Faulty, DemoEntry{ConnectionID: conn, DeliveryAttemptID: id, What: f.what})
		}
	}
	return nil
}

// demoMessage makes the i-th demo message: half ORDRSP, a quarter each
// CONTRL and APERAK, alternating directories (and CONTRL syntax versions).
func demoMessage(g *edigen.Gen, i int, supplier, buyer edigen.Party, at time.Time) (string, []byte) {
	dir := edigen.D96A
	if (i/4)%2 == 1 {
		dir = edigen.D25A
	}
	env := edigen.Envelope{Sender: supplier.GLN, Recipient: buyer.GLN, ControlRef: g.ControlRef(), Prepared: at, ApplicationID: "ORDRSP"}
	o := g.Order(buyer, supplier, at.Add(-26*time.Hour), 1+g.Intn(12))
	switch i % 4 {
	case 1:
		env.ApplicationID = ""
		env.Syntax = dir.Syntax()
		c := edigen.Contrl{InterchangeRef: g.ControlRef(), Sender: buyer.GLN, Recipient: supplier.GLN, Action: edigen.ActionAcknowledged}
		if g.Intn(5) == 0 {
			c.Action = edigen.ActionRejected
			c.Messages = []edigen.ContrlMessage{{Ref: "1", Type: "ORDERS", Version: "D", Release: dir.Release(), Agency: "UN",
				Action: edigen.ActionRejected, Segments: []edigen.ContrlSegment{{Position: 2 + g.Intn(8), Error: "12"}}}}
		}
		return "CONTRL", edigen.ContrlMsg(env, c)
	case 3:
		env.ApplicationID = "APERAK"
		a := edigen.ApplicationError{Number: "APK-" + g.Digits(7), Date: at, OrderNumber: o.Number, OrderDate: o.Date,
			From: supplier, To: buyer, Errors: g.AppErrors()}
		return "APERAK", edigen.Aperak(dir, env, a)
	default:
		answers, status := g.Answers(o)
		r := edigen.Response{Number: "RSP-" + g.Digits(8), Date: at, Status: status, Order: o, Answers: answers}
		return "ORDRSP", edigen.Ordrsp(dir, env, r)
	}
}
