//go:build e2e

package e2e

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
)

// teamWorld is a world (its own HOME, data and config directory: another
// engineer's machine) whose config.toml names the team store dsn, as user.
func teamWorld(t *testing.T, dsn, user string) *world {
	t.Helper()
	w := newWorld(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(w.config), 0o700))
	cfg := "[store]\nurl = \"" + dsn + "\"\nuser = \"" + user + "\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(w.config), "config.toml"), []byte(cfg), 0o600))
	return w
}

// teamCount counts the rows of a team store table that match where.
func teamCount(t *testing.T, db *sql.DB, table, where string, args ...any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var n int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE "+where, args...).Scan(&n))
	return n
}

// teamKeys lists the keys of the team's upload records of a business ID.
func teamKeys(t *testing.T, db *sql.DB, like string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT key FROM uploads WHERE key LIKE $1", like)
	require.NoError(t, err)
	defer rows.Close()
	keys := map[string]int{}
	for rows.Next() {
		var k string
		require.NoError(t, rows.Scan(&k))
		keys[k]++
	}
	require.NoError(t, rows.Err())
	return keys
}

// The two-engineer story with the built binary, one simulator and one
// PostgreSQL database: Alice uploads an ORDERS the partner rejects and
// fetches (and acknowledges) the mailbox's entries; her commands push
// through the outbox before they end. Bob, on another machine (HOME),
// finds what she fetched and sent, attributed to her; his fix of her
// order gets the next key; and when both upload the same new order at
// the same moment, the team store holds both records under two keys.
func TestTwoEngineersOneTeamStore(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t) // fails, not skips, with B2BX_REQUIRE_POSTGRES=1 and no server
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	host, err := os.Hostname()
	require.NoError(t, err)

	alice, bob := teamWorld(t, dsn, "alice"), teamWorld(t, dsn, "bob")
	s := startSim(t, alice, "--reply-delay", "100ms")
	de := s.conn(t, "acme-de")
	for _, c := range append(append([]simConn{}, s.Connections...), s.ExtraKeys...) {
		bob.addSecret(c.Secret)
	}
	r := alice.b2bx(t, nil, "", "store", "init")
	require.Equal(t, 0, r.code, "%s", r)

	upload := func(w *world, file string, extra ...string) result {
		t.Helper()
		args := append(append([]string{"upload", "--json"}, s.connFlags(de)...), extra...)
		return w.b2bx(t, apiKeyEnv(de), "", append(args, file)...)
	}
	before := map[string]bool{}
	for _, id := range ids(listAll(t, alice, s, de)) {
		before[id] = true
	}

	// Alice: the rejectable ORDERS (PO-4720) goes in under :1
	bad := filepath.Join(repoRoot, "testdata", "edifact", "orders_rejectable.edi")
	r = upload(alice, bad)
	require.Equal(t, 0, r.code, "%s", r)
	var first uploadResult
	decodeJSON(t, r, &first)
	require.Equal(t, "4012345000009:PO-4720:orders:1", first.Key)
	require.Positive(t, teamCount(t, db, "uploads", "key = $1 AND by_user = 'alice' AND outcome = 'accepted'", first.Key),
		"her upload (its pending and accepted history lines) is in the team store when her command ends\n%s", r)

	// Alice fetches the next entry and then the partner's CONTRL, acknowledging both
	r = alice.b2bx(t, apiKeyEnv(de), "", append([]string{"fetch", "--next", "--ack", "--json"}, s.connFlags(de)...)...)
	require.Equal(t, 0, r.code, "%s", r)
	var next fetchResult
	decodeJSON(t, r, &next)
	require.True(t, next.Acknowledged, "%s", r)
	var contrl string
	waitUntil(t, 20*time.Second, "the partner's CONTRL", func() bool {
		for _, e := range listAll(t, alice, s, de) {
			if !before[e.DeliveryAttemptID] && e.MessageType == "CONTRL" {
				contrl = e.DeliveryAttemptID
				return true
			}
		}
		return false
	})
	r = alice.b2bx(t, apiKeyEnv(de), "", append([]string{"fetch", contrl, "--ack", "--json"}, s.connFlags(de)...)...)
	require.Equal(t, 0, r.code, "%s", r)
	for _, id := range []string{next.DeliveryAttemptID, contrl} {
		require.Equal(t, 1, teamCount(t, db, "deliveries", "delivery_id = $1 AND by_user = 'alice' AND receipt_id <> ''", id),
			"the acknowledged delivery %s is in the team store when her fetch ends", id)
	}

	// Bob, who fetched nothing, finds what Alice fetched and sent, by her
	by := "alice on " + host
	f := bob.b2bx(t, nil, "", "find", next.DeliveryAttemptID)
	require.Equal(t, 0, f.code, "%s", f)
	require.Contains(t, f.stdout, next.DeliveryAttemptID, "%s", f)
	require.Contains(t, f.stdout, by, "%s", f)
	f = bob.b2bx(t, nil, "", "find", "po:PO-4720")
	require.Equal(t, 0, f.code, "%s", f)
	require.Contains(t, f.stdout, "CONTRL", "%s", f)
	require.Contains(t, f.stdout, contrl, "%s", f)
	require.Contains(t, f.stdout, by, "%s", f)
	f = bob.b2bx(t, nil, "", "find", "--timeline", "po:PO-4720")
	require.Equal(t, 0, f.code, "%s", f)
	require.Contains(t, f.stdout, "— by "+by, "%s", f)
	require.Contains(t, f.stdout, "acknowledged", "%s", f)
	f = bob.b2bx(t, nil, "", "find", "--overdue")
	require.Equal(t, 1, f.code, "the rejected upload needs action\n%s", f)
	require.Contains(t, f.stdout, "PO-4720", "%s", f)
	require.Contains(t, f.stdout, first.Key, "Alice's upload, read from the team store\n%s", f)
	require.NotContains(t, f.stderr, "team store not used", "%s", f)

	// Bob's fix of Alice's rejected order gets the next key
	work := filepath.Join(t.TempDir(), "PO-4720-fix.edi")
	b, err := os.ReadFile(bad)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(work, b, 0o600))
	out, err := exec.Command(filepath.Join(repoRoot, "testdata", "fix-rejectable.sh"), work).CombinedOutput()
	require.NoError(t, err, "%s", out)
	r = upload(bob, bad)
	require.Equal(t, 2, r.code, "Alice's rejected bytes are refused for Bob\n%s", r)
	require.Contains(t, r.stderr, "identical to an upload the partner rejected", "%s", r)
	r = upload(bob, work, "--fixes", first.UploadID)
	require.Equal(t, 0, r.code, "%s", r)
	var fixed uploadResult
	decodeJSON(t, r, &fixed)
	require.Equal(t, "4012345000009:PO-4720:orders:2", fixed.Key, "Bob's resend continues after Alice's :1")
	require.Positive(t, teamCount(t, db, "uploads", "key = $1 AND by_user = 'bob' AND outcome = 'accepted'", fixed.Key))

	// both upload a version of the same new order (PO-4711) at once, from
	// two machines: different bytes, so each needs a key of its own (for
	// identical bytes a colleague's pending key is the right one to
	// retry under: the platform answers replay, no second order)
	file := filepath.Join(repoRoot, ordersFixture)
	b, err = os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(b), "QTY+21:48'")
	bobFile := filepath.Join(t.TempDir(), "PO-4711-bob.edi")
	require.NoError(t, os.WriteFile(bobFile, []byte(strings.Replace(string(b), "QTY+21:48'", "QTY+21:50'", 1)), 0o600))
	type done struct {
		who string
		r   result
	}
	results := make(chan done, 2)
	start := make(chan struct{})
	for _, w := range []struct {
		who  string
		w    *world
		file string
	}{{"alice", alice, file}, {"bob", bob, bobFile}} {
		go func() {
			<-start
			results <- done{w.who, runQuiet(w.w, apiKeyEnv(de), append(append([]string{"upload", "--json"}, s.connFlags(de)...), w.file)...)}
		}()
	}
	close(start)
	got := map[string]uploadResult{}
	for range 2 {
		d := <-results
		alice.requireNoSecret(t, d.who+"'s upload", d.r.stdout+d.r.stderr)
		require.Equal(t, 0, d.r.code, "%s: %s", d.who, d.r)
		var u uploadResult
		decodeJSON(t, d.r, &u)
		got[d.who] = u
	}
	require.NotEqual(t, got["alice"].Key, got["bob"].Key, "two machines at once: two keys")
	require.ElementsMatch(t, []string{ordersKey + "1", ordersKey + "2"}, []string{got["alice"].Key, got["bob"].Key})
	keys := teamKeys(t, db, ordersKey+"%")
	for _, k := range []string{got["alice"].Key, got["bob"].Key} {
		require.Positive(t, keys[k], "the team store holds the record of %s: %v", k, keys)
	}
	require.Len(t, keys, 2, "no other key: %v", keys)
	for who, u := range got {
		require.Positive(t, teamCount(t, db, "uploads", "key = $1 AND by_user = $2", u.Key, who), "%s's record of %s", who, u.Key)
	}
	alice.requireNoSecretOnDisk(t)
	bob.requireNoSecretOnDisk(t)
	dump := dumpTeamTables(t, db)
	require.Contains(t, dump, first.Key, "the dump reads the rows")
	alice.requireNoSecret(t, "the team store's tables", dump) // every API key secret of the simulator
}

// dumpTeamTables is the text of every column of every table of the team
// store's schema (bytea as text too: the blobs' bytes).
func dumpTeamTables(t *testing.T, db *sql.DB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2`)
	require.NoError(t, err)
	var cols [][3]string
	for rows.Next() {
		var c [3]string
		require.NoError(t, rows.Scan(&c[0], &c[1], &c[2]))
		cols = append(cols, c)
	}
	require.NoError(t, rows.Close())
	require.NotEmpty(t, cols)
	var b strings.Builder
	for _, c := range cols {
		expr := `COALESCE("` + c[1] + `"::text, '')`
		if c[2] == "bytea" {
			expr = `COALESCE(encode("` + c[1] + `", 'escape'), '')` // ASCII as is
		}
		r, err := db.QueryContext(ctx, `SELECT `+expr+` FROM "`+c[0]+`"`)
		require.NoError(t, err, "%v", c)
		for r.Next() {
			var v string
			require.NoError(t, r.Scan(&v))
			b.WriteString(v)
			b.WriteByte('\n')
		}
		require.NoError(t, r.Close())
	}
	return b.String()
}

// runQuiet is world.b2bx for a goroutine: no require (which must run on
// the test's goroutine), a bounded run, the result returned.
func runQuiet(w *world, extraEnv []string, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append([]string{}, w.env...), extraEnv...)
	cmd.Dir = w.dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		r.code, r.stderr = -1, r.stderr+"\nrun: "+err.Error()
	}
	return r
}
