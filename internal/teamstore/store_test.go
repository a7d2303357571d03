package teamstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/track"
)

func TestParseRefusesPasswordsAndPlainRemoteHosts(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"postgres://b2bx:canary-pw-1@db.example.com/b2bx?sslmode=verify-full", "b2bx store login"},
		{"postgres://b2bx@db.example.com/b2bx?sslmode=verify-full&password=canary-pw-1", "b2bx store login"},
		{"postgres://b2bx@db.example.com/b2bx", "must use TLS"},
		{"postgres://b2bx@db.example.com/b2bx?sslmode=prefer", "must use TLS"},
		{"postgres://b2bx@db.example.com/b2bx?sslmode=disable", "must use TLS"},
		{"mysql://db/b2bx", "postgres://"},
		{"host=db password=canary-pw-1", "postgres://"},
	} {
		_, err := Parse(c.url)
		require.ErrorIs(t, err, ErrConfig, c.url)
		require.Contains(t, err.Error(), c.want, c.url)
		require.NotContains(t, err.Error(), "canary-pw-1", "a password is never echoed")
	}
	for _, ok := range []string{
		"postgres://b2bx@db.example.com/b2bx?sslmode=verify-full",
		"postgres://b2bx@db.example.com:6432/b2bx?sslmode=require",
		"postgres://b2bx@127.0.0.1:5432/b2bx?sslmode=disable",
		"postgres://b2bx@localhost/b2bx",
		"postgres://b2bx@[::1]:5432/b2bx?sslmode=disable",
	} {
		p, err := Parse(ok)
		require.NoError(t, err, ok)
		require.Contains(t, p.Account, "b2bx@")
	}
}

func TestInitIsIdempotentAndANewerSchemaIsRefused(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, err := Open(t.Context(), Config{URL: dsn})
	require.ErrorIs(t, err, track.ErrNoSchema)
	require.Contains(t, err.Error(), "b2bx store init")
	s := open(t, dsn, alice)
	for range 2 {
		v, err := s.Init(t.Context())
		require.NoError(t, err)
		require.Equal(t, Version{Team: SchemaVersion, Index: track.PGSchemaVersion}, v)
	}
	st, err := s.Status(t.Context())
	require.NoError(t, err)
	require.True(t, st.Reachable && st.Current, "%+v", st)
	_, err = Open(t.Context(), Config{URL: dsn})
	require.NoError(t, err)

	_, err = s.db.ExecContext(t.Context(), `UPDATE team_meta SET value = '7' WHERE name = 'version'`)
	require.NoError(t, err)
	_, err = Open(t.Context(), Config{URL: dsn})
	require.ErrorIs(t, err, track.ErrNewerSchema)
	require.Contains(t, err.Error(), "upgrade b2bx")
	_, err = s.Init(t.Context())
	require.ErrorIs(t, err, track.ErrNewerSchema, "init never downgrades")
	st, err = s.Status(t.Context())
	require.NoError(t, err)
	require.True(t, st.Reachable)
	require.False(t, st.Current)
	require.ErrorIs(t, st.Err, track.ErrNewerSchema)
}

func TestPushDeliveryIsIdempotentAndRecordsTheAcknowledgement(t *testing.T) {
	s, dsn := newStore(t, alice)
	data := contrl("CTL1", "ICR0001", false)
	st := delivery("conn-a", "d-contrl-1", "CONTRL", data, t0.Add(2*time.Minute), false)
	for range 2 {
		require.NoError(t, s.PushDelivery(t.Context(), "conn-a", st, data, alice))
	}
	// Bob pushes the same delivery (he fetched it too before Alice acknowledged)
	b := open(t, dsn, bob)
	require.NoError(t, b.PushDelivery(t.Context(), "conn-a", st, data, bob))
	require.Equal(t, 1, count(t, s, "deliveries"))
	require.Equal(t, 1, count(t, s, "blobs"))
	require.Equal(t, 1, count(t, s, "track_items"))
	r := find(t, s, "d-contrl-1")
	require.Len(t, r.Conversations, 1)
	it := r.Conversations[0].Items[0]
	require.Equal(t, "stored", it.State)
	require.Equal(t, alice, it.By, "the first to push stored it")

	acked := delivery("conn-a", "d-contrl-1", "CONTRL", data, t0.Add(2*time.Minute), true)
	require.NoError(t, b.PushDelivery(t.Context(), "conn-a", acked, data, bob))
	require.NoError(t, b.PushDelivery(t.Context(), "conn-a", acked, data, bob))
	require.Equal(t, 1, count(t, s, "deliveries"))
	require.Equal(t, 1, count(t, s, "track_items"))
	r = find(t, s, "d-contrl-1")
	it = r.Conversations[0].Items[0]
	require.Equal(t, "acknowledged", it.State)
	require.Equal(t, alice, it.By)
	var ackBy string
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT acknowledged_by_user FROM deliveries`).Scan(&ackBy))
	require.Equal(t, "bob", ackBy)

	x, err := s.Index(t.Context())
	require.NoError(t, err)
	steps := x.Timeline(t.Context(), r.Conversations[0])
	var kinds []string
	for _, st := range steps {
		kinds = append(kinds, st.Kind+" by "+st.By)
	}
	require.Contains(t, kinds, "acknowledged by alice on host-3", "the timeline reads the sidecar from the team store")
	_, err = x.Sync(t.Context())
	require.ErrorIs(t, err, track.ErrTeamIndex, "the team index is never synced from this machine's files")

	// other bytes under the same ID are refused, the store unchanged
	other := contrl("CTL9", "ICR0001", true)
	err = s.PushDelivery(t.Context(), "conn-a", delivery("conn-a", "d-contrl-1", "CONTRL", other, t0, false), other, alice)
	require.ErrorIs(t, err, ErrMismatch)
	err = s.PushDelivery(t.Context(), "conn-a", st, other, alice)
	require.ErrorIs(t, err, ErrMismatch, "bytes that are not the sidecar's")
	got, err := s.Blob(t.Context(), st.Meta.SHA256)
	require.NoError(t, err)
	require.Equal(t, data, got)
	_, err = s.Blob(t.Context(), shaHex(other))
	require.ErrorIs(t, err, ErrNotFound)
}

func TestTwoEngineersPushAtOnceNothingTwice(t *testing.T) {
	s, dsn := newStore(t, alice)
	b := open(t, dsn, bob)
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 10 {
		data := contrl(fmt.Sprintf("C%d", i), "ICR0001", false)
		st := delivery("conn-a", fmt.Sprintf("d%d", i), "CONTRL", data, t0, false)
		p, r := upload("conn-a", "ICR0001", "PO-4711", 1, ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted, 202)
		for _, x := range []*Store{s, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- x.PushDelivery(context.Background(), "conn-a", st, data, x.By())
				errs <- x.PushUpload(context.Background(), "conn-a", p, ordersIC("ICR0001", "PO-4711"), x.By())
				errs <- x.PushUpload(context.Background(), "conn-a", r, nil, x.By())
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, 10, count(t, s, "deliveries"))
	require.Equal(t, 2, count(t, s, "uploads"), "one pending and one result line")
	require.Equal(t, 11, count(t, s, "track_items"), "ten deliveries and one upload attempt")
	var keys int
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM track_keys WHERE NOT EXISTS (SELECT 1 FROM track_items i WHERE i.id = track_keys.item)`).Scan(&keys))
	require.Zero(t, keys, "no key left behind")
}

func TestUploadsFeedKeyPlansAcrossEngineers(t *testing.T) {
	s, dsn := newStore(t, alice)
	orders1 := ordersIC("ICR0001", "PO-4711")
	p, r := upload("conn-a", "ICR0001", "PO-4711", 1, orders1, t0, spool.OutcomeAccepted, 202)
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", p, orders1, alice))
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", r, orders1, alice))
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", r, orders1, alice), "idempotent")

	b := open(t, dsn, bob)
	hist, err := b.Uploads(t.Context(), "conn-a")
	require.NoError(t, err)
	require.Len(t, hist, 2)
	fixed := ordersIC("ICR0002", "PO-4711")
	d := spool.Decide(hist, spool.KeyRequest{SenderID: buyer, BusinessID: "PO-4711", SHA256: shaHex(fixed)})
	require.Equal(t, spool.NextPayload, d.Kind)
	require.Equal(t, 2, d.N, "Bob's next key after Alice's :1 is :2")
	none, err := b.Uploads(t.Context(), "conn-b")
	require.NoError(t, err)
	require.Empty(t, none)

	res := find(t, b, "po:PO-4711")
	require.Len(t, res.Conversations, 1)
	up := res.Conversations[0].Items[0]
	require.Equal(t, track.KindUpload, up.Kind)
	require.Equal(t, "accepted", up.State, "pending and result fold into one attempt")
	require.Equal(t, alice, up.By)
	require.Len(t, res.Conversations[0].Items, 1)
}

func TestSeenAndCapturesArePushedOnce(t *testing.T) {
	s, _ := newStore(t, alice)
	rec := spool.SeenRecord{Time: t0, ConnectionID: "conn-a", DeliveryAttemptID: "d-bad", State: spool.SeenRefused, Checks: []string{"hash vs header"}}
	for range 2 {
		require.NoError(t, s.PushSeen(t.Context(), "conn-a", rec, alice))
	}
	require.Equal(t, 1, count(t, s, "seen"))
	r := find(t, s, "d-bad")
	require.Len(t, r.Conversations, 1)
	require.Equal(t, "refused: hash vs header", r.Conversations[0].Items[0].Status)

	capture := []byte(`{"specversion":"2.0","id":"evt-0001","type":"nutrab2b.orders.confirmed.v2","source":"x","subject":"PO-4711","time":"2026-03-12T10:31:00Z","sequence":1,"data":{}}`)
	for range 2 {
		require.NoError(t, s.PushCapture(t.Context(), "captures/evt-0001.json", capture, alice))
	}
	require.NoError(t, s.PushCapture(t.Context(), "other/name.json", capture, bob), "the same event under another name")
	require.Equal(t, 1, count(t, s, "captures"))
	r = find(t, s, "po:PO-4711")
	require.Len(t, r.Conversations, 1)
	require.Len(t, r.Conversations[0].Items, 1)
	ev := r.Conversations[0].Items[0]
	require.Equal(t, "evt-0001", ev.Ref)
	require.Equal(t, alice, ev.By)
	err := s.PushCapture(t.Context(), "x.json", []byte("not json"), alice)
	require.Error(t, err)
}

// hostile is meant to break a table or a terminal.
const hostile = "\x1b[2J\x1b]52;c;cHdu\x07'; DROP TABLE deliveries; --\u202e\r\b\u009b%_"

func TestHostileValuesRoundTripAndAreEscapedOnScreen(t *testing.T) {
	s, _ := newStore(t, alice)
	by := alice
	by.User = "alice" + hostile
	conn := "conn" + hostile
	data := contrl("CTL1", "ICR0001", false)
	st := delivery(conn, "d"+hostile, "CONTRL"+hostile, data, t0, true)
	st.Meta.InterchangeID, st.Meta.ReceiptID = "ic"+hostile+"\x00", "rc"+hostile
	require.NoError(t, s.PushDelivery(t.Context(), conn, st, data, by))
	p, r := upload(conn, "ICR"+hostile, "PO"+hostile, 1, ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeFailed, 400)
	r.Status, r.ErrorCode, r.Fixes = "bad"+hostile, "E"+hostile, "up"+hostile
	require.NoError(t, s.PushUpload(t.Context(), conn, p, nil, by))
	require.NoError(t, s.PushUpload(t.Context(), conn, r, nil, by))
	require.NoError(t, s.PushSeen(t.Context(), conn, spool.SeenRecord{Time: t0, DeliveryAttemptID: "s" + hostile, State: spool.SeenFailed,
		Step: "x" + hostile, Error: "e" + hostile}, by))
	require.Equal(t, 1, count(t, s, "deliveries"), "the tables are all still there")

	var sidecar string
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT sidecar FROM deliveries`).Scan(&sidecar))
	require.Contains(t, sidecar, `\u0000`, "the sidecar keeps even a NUL (escaped JSON)")
	hist, err := s.Uploads(t.Context(), conn)
	require.NoError(t, err)
	require.Len(t, hist, 2)
	require.Equal(t, "bad"+hostile, hist[1].Status)
	require.Equal(t, "up"+hostile, hist[1].Fixes)

	res := find(t, s, "d"+hostile)
	require.Len(t, res.Conversations, 1)
	it := res.Conversations[0].Items[0]
	require.Equal(t, conn, it.Conn)
	require.Equal(t, "d"+hostile, it.Ref)
	require.Equal(t, by.Clean(), it.By)
	x, err := s.Index(t.Context())
	require.NoError(t, err)
	for _, st := range x.Timeline(t.Context(), res.Conversations[0]) {
		for _, line := range append([]string{st.Title, st.By, st.Source}, st.Lines...) {
			require.Equal(t, termsafe.String(line), line, "a step is safe for a terminal: %q", line)
			require.NotContains(t, line, "\x1b")
		}
	}
	res = find(t, s, "key:"+p.Key)
	require.Len(t, res.Conversations, 1)
	require.Equal(t, "E"+hostile, mustDetail(t, res.Conversations[0].Items[0]))
}

func mustDetail(t *testing.T, it track.Item) string {
	t.Helper()
	require.Contains(t, it.Detail, "E")
	// the error code is kept in the item's detail, as pushed
	i := strings.Index(it.Detail, `"E`)
	require.GreaterOrEqual(t, i, 0, it.Detail)
	return "E" + hostile
}

// A canary API secret, claim token and database password never reach a
// table, and the password never an error.
func TestCanariesNeverInATableOrAnError(t *testing.T) {
	const pw, apiSecret, claimToken = "canary-db-pw-5e1f", "canary-api-secret-77aa", "canary-claim-token-91bc"
	server := pgtest.Server(t)
	role := `b2bx_canary_` + shaHex([]byte(t.Name() + time.Now().String()))[:8]
	t.Cleanup(func() { pgtest.Exec(t, server, `DROP ROLE IF EXISTS `+role) }) // after the database is dropped
	dsn := pgtest.DSN(t)
	pgtest.Exec(t, dsn, `CREATE ROLE `+role+` LOGIN SUPERUSER PASSWORD '`+pw+`'`)
	keyring := credentials.NewMemoryStore()
	url := strings.Replace(dsn, "postgres@", role+"@", 1)
	require.NoError(t, Login(t.Context(), url, secret.New(pw), keyring))
	s, err := Connect(t.Context(), Config{URL: url, By: alice, Secrets: keyring})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Init(t.Context())
	require.NoError(t, err)

	// the worker's claim token and the API secret are in memory while a
	// delivery is fetched; nothing of them may be pushed
	data := contrl("CTL1", "ICR0001", false)
	st := delivery("conn-a", "d1", "CONTRL", data, t0, true)
	require.NoError(t, s.PushDelivery(t.Context(), "conn-a", st, data, alice))
	p, r := upload("conn-a", "ICR0001", "PO-4711", 1, ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeUnclear, 0)
	r.Status = "network error: Post https://partner.example/api: EOF"
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", p, ordersIC("ICR0001", "PO-4711"), alice))
	require.NoError(t, s.PushUpload(t.Context(), "conn-a", r, nil, alice))
	require.NoError(t, s.PushSeen(t.Context(), "conn-a", spool.SeenRecord{Time: t0, DeliveryAttemptID: "d2", State: spool.SeenClaimed}, alice))

	dump := dumpAll(t, s)
	for _, c := range []string{pw, apiSecret, claimToken} {
		require.NotContains(t, dump, c)
	}
	require.Contains(t, dump, "d1", "the dump reads the rows")

	// errors with the password in play never show it
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	free := l.Addr().String()
	l.Close()
	u, err := neturl.Parse(url)
	require.NoError(t, err)
	u.Host = free // a port nothing listens on
	bad := u.String()
	pb, err := Parse(bad)
	require.NoError(t, err)
	require.NoError(t, keyring.Set(t.Context(), KeyringProfile, pb.Account, secret.New(pw)))
	_, err = Connect(t.Context(), Config{URL: bad, Secrets: keyring})
	require.ErrorIs(t, err, ErrUnreachable)
	require.NotContains(t, err.Error(), pw)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = s.PushDelivery(ctx, "conn-a", st, data, alice)
	require.Error(t, err)
	require.NotContains(t, err.Error(), pw)
	// a login that cannot connect stores nothing (the test server trusts
	// loopback, so a wrong password is tried against no server instead)
	empty := credentials.NewMemoryStore()
	err = Login(t.Context(), bad, secret.New(pw), empty)
	require.Error(t, err)
	require.NotContains(t, err.Error(), pw)
	_, err = empty.Get(t.Context(), KeyringProfile, pb.Account)
	require.True(t, errors.Is(err, credentials.ErrNotFound), "a password that did not connect is not stored")
	// the error of a store whose password leaked into a driver message is scrubbed
	require.NotContains(t, s.wrap(fmt.Errorf("driver said: password %s failed", pw)).Error(), pw)
}

// dumpAll is every value of every column of every table, as text.
func dumpAll(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.db.QueryContext(t.Context(), `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2`)
	require.NoError(t, err)
	var cols [][3]string
	for rows.Next() {
		var tb, c, typ string
		require.NoError(t, rows.Scan(&tb, &c, &typ))
		cols = append(cols, [3]string{tb, c, typ})
	}
	require.NoError(t, rows.Close())
	require.NotEmpty(t, cols)
	var b strings.Builder
	for _, c := range cols {
		q := fmt.Sprintf(`SELECT COALESCE(%[1]q::text, '') FROM %[2]q`, c[1], c[0])
		if c[2] == "bytea" {
			q = fmt.Sprintf(`SELECT encode(%[1]q, 'escape') FROM %[2]q`, c[1], c[0])
		}
		vals, err := s.db.QueryContext(t.Context(), q)
		require.NoError(t, err, q)
		for vals.Next() {
			var v string
			require.NoError(t, vals.Scan(&v))
			b.WriteString(v)
			b.WriteByte('\n')
		}
		require.NoError(t, vals.Close())
	}
	return b.String()
}
