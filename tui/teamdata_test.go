package tui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
	"github.com/nutrab2b/b2bx/tui/connlist"
)

// fakeTeam is team data whose index is x (nil: not usable, note says why).
type fakeTeam struct {
	x        *track.Index
	note     string
	started  int
	attached []*spool.Store
	by       map[string]string
	// deliveries a colleague fetched, by ID and by their team path
	deliveries map[string]fakeDelivery
}

type fakeDelivery struct {
	meta    spool.Meta
	payload []byte
	by      string
}

func (f *fakeTeam) Start(context.Context)                { f.started++ }
func (f *fakeTeam) Index(context.Context) *track.Index   { return f.x }
func (f *fakeTeam) Note() string                         { return f.note }
func (f *fakeTeam) Loader(env session.Env) orders.Loader { return track.Loader(env) }
func (f *fakeTeam) AttachKeyPlans(_ context.Context, s *spool.Store) {
	f.attached = append(f.attached, s)
}
func (f *fakeTeam) SelectLoader(env session.Env) orders.SelectLoader {
	return track.SelectLoader(env)
}
func (f *fakeTeam) SentBy(context.Context, string) map[string]string { return f.by }
func (f *fakeTeam) Delivery(_ context.Context, _, id string) (spool.Meta, []byte, string, bool, error) {
	d, ok := f.deliveries[id]
	return d.meta, d.payload, d.by, ok, nil
}
func (f *fakeTeam) DeliveryAt(_ context.Context, path string) (spool.Meta, []byte, string, bool, error) {
	d, ok := f.deliveries[path]
	return d.meta, d.payload, d.by, ok, nil
}
func (f *fakeTeam) Timeline(env session.Env) func(ctx context.Context, conn, id string) ([]string, error) {
	return track.MachineTimeline(env, nil)
}

// emptyEnv is a machine that stored nothing.
func emptyEnv(t *testing.T) session.Env {
	vars := map[string]string{spool.EnvDataDir: t.TempDir(), credentials.EnvConfig: filepath.Join(t.TempDir(), "none.toml")}
	return session.Env{Getenv: func(k string) string { return vars[k] }}
}

// indexOf is the index over env's files (the "team's" in the fakes).
func indexOf(t *testing.T, env session.Env) *track.Index {
	m, err := track.LoadMachine(env)
	require.NoError(t, err)
	x, err := m.OpenQuery(t.Context(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	return x
}

// TestFindReadsTheTeamsIndex: with team data whose index is open, :find
// and its timeline answer from it (this machine stored nothing); with
// none usable, this machine's index answers.
func TestFindReadsTheTeamsIndex(t *testing.T) {
	q, err := track.ParseQuery("po:PO-4711")
	require.NoError(t, err)
	local := emptyEnv(t)
	r, _, err := machineSource{env: local}.Find(t.Context(), q)
	require.NoError(t, err)
	require.Empty(t, r.Conversations, "this machine stored nothing")

	team := &fakeTeam{x: indexOf(t, findStore(t))}
	src := machineSource{env: local, team: team}
	r, _, err = src.Find(t.Context(), q)
	require.NoError(t, err)
	require.Len(t, r.Conversations, 1, "the team's index answers")
	steps := src.Timeline(t.Context(), r.Conversations[0])
	require.GreaterOrEqual(t, len(steps), 3, "upload, CONTRL, ORDRSP: %+v", steps)
	// the shared index is not closed by a query
	r, _, err = src.Find(t.Context(), q)
	require.NoError(t, err)
	require.Len(t, r.Conversations, 1)

	team.x = nil // not usable: this machine's answers
	r, _, err = src.Find(t.Context(), q)
	require.NoError(t, err)
	require.Empty(t, r.Conversations)
}

// TestStatusBarSaysTheTeamsDataIsNotUsed: team data that cannot be used
// is said in the status bar (sanitised), refreshed by the tick that runs
// with team data alone; once usable, nothing is said.
func TestStatusBarSaysTheTeamsDataIsNotUsed(t *testing.T) {
	m, _ := newTestModel(t)
	team := &fakeTeam{note: "team store not used (dial tcp: refused\x1b[2J): this machine's index answers"}
	m.teamData = team
	var ticked bool
	for _, msg := range collect(m.Init()) {
		if _, ok := msg.(teamTickMsg); ok {
			ticked = true
		}
	}
	require.True(t, ticked, "team data alone starts the tick")
	m, cmd := m.teamTicked()
	require.NotNil(t, cmd, "the next tick")
	bar := m.statusBar()
	require.Contains(t, bar, "team store not used")
	require.NotContains(t, bar, "\x1b[2J")
	team.note = ""
	m, _ = m.teamTicked()
	require.NotContains(t, m.statusBar(), "team store not used")
}

// unansweredOrders is an ORDERS upload of PO-4712, accepted and never
// answered (overdue by any SLA), as rec and its bytes.
func unansweredOrders() (spool.UploadRecord, []byte) {
	const buyer, supplier = "4012345000009", "4098765000003"
	data := fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1030+ICR0002'UNH+M1+ORDERS:D:96A:UN'BGM+220+PO-4712+9'"+
		"DTM+137:20260312:102'NAD+BY+%s::9'NAD+SU+%s::9'LIN+1++4000862141404:SRS'QTY+21:3'UNS+S'UNT+9+M1'UNZ+1+ICR0002'",
		buyer, supplier, buyer, supplier)
	sum := sha256.Sum256(data)
	return spool.UploadRecord{Time: time.Date(2026, 3, 12, 11, 0, 0, 0, time.UTC), ConnectionID: "c-de", File: "/tmp/po2.edi", Size: int64(len(data)),
		SHA256: hex.EncodeToString(sum[:]), Key: buyer + ":PO-4712:orders:1", SenderID: buyer, BusinessID: "PO-4712", RecipientID: supplier,
		ControlRef: "ICR0002", DocNumbers: []string{"PO-4712"}, N: 1, Outcome: spool.OutcomeAccepted, HTTPStatus: 202,
		UploadID: "up-2", InterchangeID: "ic-up-2", Status: "accepted"}, data
}

// unansweredStore is a machine whose one upload was never answered.
func unansweredStore(t *testing.T) session.Env {
	env := emptyEnv(t)
	s, err := spool.Open(env.Getenv(spool.EnvDataDir))
	require.NoError(t, err)
	rec, data := unansweredOrders()
	_, err = s.KeepSent("c-de", data)
	require.NoError(t, err)
	require.NoError(t, s.AppendUpload(rec))
	return env
}

// TestDashboardCountsTheTeamsData: the start screen's figures come from
// the team's index when it is open (and say so), this machine's else.
func TestDashboardCountsTheTeamsData(t *testing.T) {
	env := emptyEnv(t)
	cfg := env.Getenv(credentials.EnvConfig)
	f, err := credentials.Load(cfg)
	require.NoError(t, err)
	require.NoError(t, f.Put(credentials.Profile{Name: "acme-de", URL: "http://127.0.0.1:1", ConnectionID: "c-de", InboxKeyID: "k-in", MailboxKeyID: "k-mb"}))
	require.NoError(t, f.Save())
	env.Store = credentials.NewMemoryStore()
	d := connlist.NewSessionDashboard(env, nil)
	team := indexOf(t, unansweredStore(t))
	d.Team = func(context.Context) *track.Index { return team }
	figs, _ := d.Figures(t.Context(), "acme-de") // the mailbox is not reachable: the index part stays
	require.True(t, figs.Team)
	require.Equal(t, 1, figs.Refused+figs.Awaiting+figs.Overdue+figs.NeedsAction, "the team's upload counts: %+v", figs)
	require.Contains(t, figs.StoreText(), "(the team's data)")

	d = connlist.NewSessionDashboard(env, nil)
	d.Team = func(context.Context) *track.Index { return nil }
	figs, _ = d.Figures(t.Context(), "acme-de")
	require.False(t, figs.Team)
	require.Zero(t, figs.Refused+figs.Awaiting+figs.Overdue+figs.NeedsAction, "this machine stored nothing")
}

// TestAppReadsAlicesPushedDataOnPostgres: against a real team store, what
// Alice pushed (an upload of PO-4711 and the CONTRL rejecting it) is what
// Bob's app reads: :find and its timeline with "alice on host-3", the
// start screen's needs-action figure, and H's link input.
func TestAppReadsAlicesPushedDataOnPostgres(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	alice, err := teamstore.Connect(ctx, teamstore.Config{URL: dsn, By: who.Who{User: "alice", Host: "host-3"}})
	require.NoError(t, err)
	defer alice.Close()
	_, err = alice.Init(ctx)
	require.NoError(t, err)
	aliceEnv := findStore(t) // her machine: the upload, its CONTRL and ORDRSP
	aliceStore, err := spool.Open(aliceEnv.Getenv(spool.EnvDataDir))
	require.NoError(t, err)
	hist, err := aliceStore.Uploads("c-de")
	require.NoError(t, err)
	sent, err := os.ReadFile(fixturePath("orders_d96a.edi"))
	require.NoError(t, err)
	for _, r := range hist {
		require.NoError(t, alice.PushUpload(ctx, "c-de", r, sent, alice.By()))
	}
	for _, id := range []string{"d-contrl", "d-ordrsp"} {
		st, err := aliceStore.Lookup("c-de", id)
		require.NoError(t, err)
		payload, err := os.ReadFile(st.Path)
		require.NoError(t, err)
		require.NoError(t, alice.PushDelivery(ctx, "c-de", *st, payload, alice.By()))
	}

	// Bob's machine: nothing stored, [store] url configured
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[store]\nurl = \""+dsn+"\"\nuser = \"bob\"\n"), 0o600))
	vars := map[string]string{spool.EnvDataDir: t.TempDir(), credentials.EnvConfig: filepath.Join(dir, "profiles.toml"), "HOME": dir}
	bob := session.Env{Getenv: func(k string) string { return vars[k] }, Store: credentials.NewMemoryStore()}
	faces := teamstore.NewFaces(bob.Getenv, nil)
	require.NotNil(t, faces)
	defer faces.Close()
	faces.Start(ctx)

	q, err := track.ParseQuery("po:PO-4711")
	require.NoError(t, err)
	src := machineSource{env: bob, team: faces}
	r, _, err := src.Find(ctx, q)
	require.NoError(t, err)
	require.Len(t, r.Conversations, 1, faces.Note())
	var by []string
	for _, s := range src.Timeline(ctx, r.Conversations[0]) {
		by = append(by, s.By)
	}
	require.Contains(t, by, "alice on host-3")

	// the start screen's figures: another upload of hers, never answered
	rec, data := unansweredOrders()
	require.NoError(t, alice.PushUpload(ctx, "c-de", rec, data, alice.By()))
	f, err := credentials.Load(vars[credentials.EnvConfig])
	require.NoError(t, err)
	require.NoError(t, f.Put(credentials.Profile{Name: "acme-de", URL: "http://127.0.0.1:1", ConnectionID: "c-de", InboxKeyID: "k-in", MailboxKeyID: "k-mb"}))
	require.NoError(t, f.Save())
	d := connlist.NewSessionDashboard(bob, nil)
	d.Team = faces.Index
	figs, _ := d.Figures(ctx, "acme-de")
	require.True(t, figs.Team)
	local := connlist.NewSessionDashboard(bob, nil)
	lfigs, _ := local.Figures(ctx, "acme-de")
	require.Equal(t, 1, figs.Refused+figs.Awaiting+figs.Overdue+figs.NeedsAction, "Alice's upload counts: %+v", figs)
	require.Zero(t, lfigs.Refused+lfigs.Awaiting+lfigs.Overdue+lfigs.NeedsAction, "not on Bob's own files")

	// H: Bob's tab (no upload of his own) links Alice's upload to its answers
	bobStore, err := spool.Open(vars[spool.EnvDataDir])
	require.NoError(t, err)
	l, err := faces.Loader(bob)(ctx, bobStore, "c-de")
	require.NoError(t, err)
	require.Len(t, l.Uploads, 2, "both her uploads")
	require.Equal(t, "up-1", l.Uploads[0].UploadID)
	require.Contains(t, l.UploadText(0), "CONTRL", "her CONTRL answers it")
	require.Contains(t, l.UploadText(1), "no answer yet")
	bl, err := track.Loader(bob)(ctx, bobStore, "c-de")
	require.NoError(t, err)
	require.Empty(t, bl.Uploads, "this machine's own loader sees nothing")
}
