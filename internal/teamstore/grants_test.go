package teamstore

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/who"
)

// grantsFromDocs is the SQL block of docs/team-store.md's least-rights
// section: the test runs what the docs say.
func grantsFromDocs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "team-store.md"))
	require.NoError(t, err)
	doc := string(b)
	_, rest, ok := strings.Cut(doc, "<!-- least-rights:")
	require.True(t, ok, "the docs mark the least-rights block")
	block, _, ok := strings.Cut(rest, "<!-- end least-rights -->")
	require.True(t, ok)
	_, block, _ = strings.Cut(block, "```sql\n")
	block, _, _ = strings.Cut(block, "```")
	var stmts []string
	for _, s := range strings.Split(block, ";") {
		if s = strings.TrimSpace(s); s != "" {
			stmts = append(stmts, s)
		}
	}
	require.NotEmpty(t, stmts)
	return stmts
}

// The role of the docs can push and find, and cannot create, drop or
// delete records.
func TestLeastRightsRoleOfTheDocs(t *testing.T) {
	server := pgtest.Server(t)
	suffix := shaHex(fmt.Appendf(nil, "%s-%d-%d", t.Name(), os.Getpid(), time.Now().UnixNano()))[:8]
	group, user := "b2bx_team_"+suffix, "alice_"+suffix
	t.Cleanup(func() { pgtest.Exec(t, server, "DROP ROLE IF EXISTS "+user, "DROP ROLE IF EXISTS "+group) })
	owner, dsn := newStore(t, alice)
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	db := strings.TrimPrefix(u.Path, "/")
	var stmts []string
	for _, s := range grantsFromDocs(t) {
		s = strings.ReplaceAll(s, "b2bx_team", group)
		s = strings.ReplaceAll(s, "ROLE alice", "ROLE "+user)
		s = strings.ReplaceAll(s, "DATABASE b2bx", "DATABASE "+db)
		stmts = append(stmts, s)
	}
	pgtest.Exec(t, dsn, stmts...)
	u.User = url.User(user)
	asAlice := open(t, u.String(), who.Who{User: "alice", Host: "host-3"})

	data := contrl("CTL1", "ICR0001", false)
	st := delivery("conn-a", "d1", "CONTRL", data, t0, false)
	require.NoError(t, asAlice.PushDelivery(t.Context(), "conn-a", st, data, asAlice.By()))
	acked := delivery("conn-a", "d1", "CONTRL", data, t0, true)
	require.NoError(t, asAlice.PushDelivery(t.Context(), "conn-a", acked, data, asAlice.By()), "the acknowledgement is an allowed update")
	p, r := upload("conn-a", "ICR0001", "PO-4711", 1, ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted, 202)
	require.NoError(t, asAlice.PushUpload(t.Context(), "conn-a", p, ordersIC("ICR0001", "PO-4711"), asAlice.By()))
	require.NoError(t, asAlice.PushUpload(t.Context(), "conn-a", r, nil, asAlice.By()), "re-indexing a key replaces its items")
	require.NoError(t, asAlice.PushSeen(t.Context(), "conn-a", spool.SeenRecord{Time: t0, DeliveryAttemptID: "d2", State: spool.SeenClaimed}, asAlice.By()))
	require.NoError(t, asAlice.PushCapture(t.Context(), "e.json", []byte(`{"specversion":"2.0","id":"evt-1","type":"x","subject":"PO-4711","time":"2026-03-12T10:31:00Z"}`), asAlice.By()))
	res := find(t, asAlice, "po:PO-4711")
	require.Len(t, res.Conversations, 1)
	hist, err := asAlice.Uploads(t.Context(), "conn-a")
	require.NoError(t, err)
	require.Len(t, hist, 2)
	st2, err := asAlice.Status(t.Context())
	require.NoError(t, err)
	require.True(t, st2.Current, "%v", st2.Err)

	_, err = asAlice.Init(t.Context())
	require.NoError(t, err, "an up-to-date schema needs no rights to be checked")
	for _, q := range []string{`DELETE FROM deliveries`, `TRUNCATE blobs`, `DROP TABLE uploads`, `UPDATE uploads SET record = '{}'`, `CREATE TABLE x (a int)`} {
		_, err := asAlice.db.ExecContext(t.Context(), q)
		require.Error(t, err, q)
	}
	require.Equal(t, 1, count(t, owner, "deliveries"))
}
