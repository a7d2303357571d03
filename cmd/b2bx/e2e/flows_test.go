//go:build e2e

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ordersFixture is the ORDERS the upload tests send; its UNB sender and BGM
// number make the key 4012345000009:PO-4711:orders:<n>.
const (
	ordersFixture = "testdata/edifact/orders_d96a.edi"
	ordersKey     = "4012345000009:PO-4711:orders:"
	ordersICR     = "ICR0001" // its UNB interchange control reference
)

// entry is one mailbox entry of `mailbox ls --json`.
type entry struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	InterchangeID     string `json:"interchangeId"`
	MessageType       string `json:"messageType"`
	PayloadSize       int64  `json:"payloadSize"`
	PayloadSHA256     string `json:"payloadSha256"`
	Status            string `json:"status"`
}

// page is the `mailbox ls --json` document.
type page struct {
	Entries    []entry `json:"entries"`
	HasMore    bool    `json:"hasMore"`
	NextCursor string  `json:"nextCursor"`
}

// fetchResult is the `fetch --json` document (the fields the tests read).
type fetchResult struct {
	DeliveryAttemptID string          `json:"deliveryAttemptId"`
	MessageType       string          `json:"messageType"`
	Bytes             int64           `json:"bytes"`
	SHA256            string          `json:"sha256"`
	Checks            map[string]bool `json:"checks"`
	FailedChecks      []struct {
		Name string `json:"name"`
	} `json:"failedChecks"`
	Path         string `json:"path"`
	Acknowledged bool   `json:"acknowledged"`
	ReceiptID    string `json:"receiptId"`
	Replay       bool   `json:"replay"`
}

// uploadResult is the `upload --json` document.
type uploadResult struct {
	Key        string `json:"key"`
	N          int    `json:"n"`
	Decision   string `json:"decision"`
	HTTPStatus int    `json:"httpStatus"`
	UploadID   string `json:"uploadId"`
	Status     string `json:"status"`
	Replay     bool   `json:"replay"`
}

// decodeJSON decodes a command's stdout, failing with its whole output.
func decodeJSON(t *testing.T, r result, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(r.stdout), v), "stdout is not the expected JSON\n%s", r)
}

// listAll returns every due entry of the connection (`mailbox ls --all --json`).
func listAll(t *testing.T, w *world, s *simProc, c simConn) []entry {
	t.Helper()
	r := w.b2bx(t, apiKeyEnv(c), "", append([]string{"mailbox", "ls", "--all", "--json"}, s.connFlags(c)...)...)
	require.Equal(t, 0, r.code, "%s", r)
	var p page
	decodeJSON(t, r, &p)
	require.False(t, p.HasMore, "--all lists every page")
	return p.Entries
}

func ids(entries []entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.DeliveryAttemptID
	}
	return out
}

func TestMailboxPagesFollowTheCursor(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w)
	de, at := s.conn(t, "acme-de"), s.conn(t, "acme-at")

	var paged []string
	cursor, pages := "", 0
	for {
		args := append([]string{"mailbox", "ls", "--json", "--limit", "40"}, s.connFlags(de)...)
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		r := w.b2bx(t, apiKeyEnv(de), "", args...)
		require.Equal(t, 0, r.code, "%s", r)
		var p page
		decodeJSON(t, r, &p)
		pages++
		require.LessOrEqual(t, len(p.Entries), 40, "page %d", pages)
		paged = append(paged, ids(p.Entries)...)
		if !p.HasMore {
			require.Empty(t, p.NextCursor, "the last page has no cursor")
			break
		}
		require.Len(t, p.Entries, 40, "a page before the last is full")
		require.NotEmpty(t, p.NextCursor)
		cursor = p.NextCursor
		require.Less(t, pages, 20, "the cursor never ends")
	}
	require.Greater(t, pages, 1, "the demo seed fills more than one page of 40")

	all := ids(listAll(t, w, s, de))
	require.Equal(t, all, paged, "--all lists what following the cursor page by page lists, in the same order")
	seen := map[string]bool{}
	for _, id := range all {
		require.False(t, seen[id], "entry %s listed twice", id)
		seen[id] = true
	}
	for _, id := range ids(listAll(t, w, s, at)) {
		require.False(t, seen[id], "entry %s of acme-at is listed in acme-de's mailbox", id)
	}

	r := w.b2bx(t, apiKeyEnv(de), "", append([]string{"mailbox", "ls", "--limit", "101"}, s.connFlags(de)...)...)
	require.Equal(t, 2, r.code, "limit outside 1-100 is a usage error\n%s", r)
	r = w.b2bx(t, apiKeyEnv(at), "", append([]string{"mailbox", "ls"}, s.connFlags(de)...)...)
	require.Equal(t, 3, r.code, "acme-at's key on acme-de's connection is an API error (404)\n%s", r)
}

func TestFetchAckStoresVerifiedFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w)
	de := s.conn(t, "acme-de")
	first := listAll(t, w, s, de)[0]

	r := w.b2bx(t, apiKeyEnv(de), "", append([]string{"fetch", "--next", "--ack", "--json"}, s.connFlags(de)...)...)
	require.Equal(t, 0, r.code, "%s", r)
	var f fetchResult
	decodeJSON(t, r, &f)
	require.Equal(t, first.DeliveryAttemptID, f.DeliveryAttemptID, "--next takes the first listed entry")
	for _, check := range []string{"sizeHeader", "sizeListing", "hashHeader", "hashListing", "trailer", "stored"} {
		require.True(t, f.Checks[check], "check %s\n%s", check, r)
	}
	require.Empty(t, f.FailedChecks)
	require.True(t, f.Acknowledged)
	require.NotEmpty(t, f.ReceiptID)
	require.False(t, f.Replay)

	b, err := os.ReadFile(f.Path)
	require.NoError(t, err, "the stored file")
	sum := sha256.Sum256(b)
	require.Equal(t, first.PayloadSHA256, hex.EncodeToString(sum[:]), "the stored bytes are the listed ones")
	require.Equal(t, first.PayloadSize, int64(len(b)))
	require.Equal(t, f.Bytes, int64(len(b)))
	require.True(t, strings.HasPrefix(f.Path, w.dataDir+string(filepath.Separator)), "stored under $B2BX_DATA_DIR: %s", f.Path)

	waitUntil(t, 5*time.Second, "the acknowledge in the simulator's log", func() bool {
		return strings.Join(s.actions(f.DeliveryAttemptID), ",") == "claim 200,payload 200,acknowledge 200"
	})
	require.NotContains(t, ids(listAll(t, w, s, de)), f.DeliveryAttemptID, "an acknowledged entry is gone")

	p := w.b2bx(t, nil, "", "parse", "--json", f.Path)
	require.Contains(t, []int{0, 1}, p.code, "%s", p)
	var doc struct {
		Interchanges []struct {
			Messages []struct {
				Type string `json:"type"`
			} `json:"messages"`
		} `json:"interchanges"`
	}
	decodeJSON(t, p, &doc)
	require.NotEmpty(t, doc.Interchanges)
	require.NotEmpty(t, doc.Interchanges[0].Messages)
	require.Equal(t, f.MessageType, doc.Interchanges[0].Messages[0].Type, "parse sees the type the mailbox listed")
	w.requireNoSecretOnDisk(t)
}

// faultyCheck is the check each kind of faulty demo delivery must fail.
var faultyCheck = map[string]string{
	"hash mismatch":  "hashHeader",
	"truncated":      "sizeHeader",
	"trailer failed": "trailer",
}

func TestFaultyFetchExits4WithoutAck(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w)
	de := s.conn(t, "acme-de")
	require.NotEmpty(t, s.Faulty, "the demo seed has faulty deliveries")

	for _, fe := range s.Faulty {
		t.Run(fe.What, func(t *testing.T) {
			require.Equal(t, de.ConnectionID, fe.ConnectionID)
			r := w.b2bx(t, apiKeyEnv(de), "", append([]string{"fetch", fe.DeliveryAttemptID, "--ack", "--json"}, s.connFlags(de)...)...)
			require.Equal(t, 4, r.code, "an integrity failure exits 4\n%s", r)
			var f fetchResult
			decodeJSON(t, r, &f)
			require.False(t, f.Acknowledged)
			require.Empty(t, f.ReceiptID)
			require.Empty(t, f.Path, "nothing stored")
			require.False(t, f.Checks["stored"])
			require.NotEmpty(t, f.FailedChecks)
			if check, ok := faultyCheck[fe.What]; ok {
				require.False(t, f.Checks[check], "%s fails %s\n%s", fe.What, check, r)
				require.Contains(t, r.stderr, check, "the error names the failed check")
			}

			// The simulator saw the claim and the payload read, never an
			// acknowledge; the entry stays claimed (not listed) until its
			// lease runs out; no file with its id exists.
			waitUntil(t, 5*time.Second, "claim and payload in the simulator's log", func() bool {
				return len(s.requests(fe.DeliveryAttemptID)) >= 2
			})
			require.Equal(t, []string{"claim 200", "payload 200"}, s.actions(fe.DeliveryAttemptID))
			require.NotContains(t, ids(listAll(t, w, s, de)), fe.DeliveryAttemptID, "still claimed: the lease was left to expire")
			_ = filepath.WalkDir(w.dataDir, func(path string, _ os.DirEntry, err error) error {
				require.NotContains(t, filepath.Base(path), fe.DeliveryAttemptID, "a file of the faulty delivery was stored")
				return nil
			})

			again := w.b2bx(t, apiKeyEnv(de), "", append([]string{"fetch", fe.DeliveryAttemptID, "--ack"}, s.connFlags(de)...)...)
			require.Equal(t, 3, again.code, "a claimed entry cannot be fetched again during its lease\n%s", again)
			require.Equal(t, []string{"claim 200", "payload 200"}, s.actions(fe.DeliveryAttemptID), "no second claim during the lease")
		})
	}
}

func TestUploadThenPartnerAnswers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w, "--reply-delay", "300ms")
	de := s.conn(t, "acme-de")
	file := filepath.Join(repoRoot, ordersFixture)
	before := map[string]bool{}
	for _, id := range ids(listAll(t, w, s, de)) {
		before[id] = true
	}
	upload := func(extra ...string) (uploadResult, result) {
		t.Helper()
		args := append(append([]string{"upload", "--json"}, s.connFlags(de)...), extra...)
		r := w.b2bx(t, apiKeyEnv(de), "", append(args, file)...)
		var u uploadResult
		if r.code == 0 {
			decodeJSON(t, r, &u)
		}
		return u, r
	}

	u, r := upload()
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, ordersKey+"1", u.Key)
	require.Contains(t, r.stderr, ordersKey+"1", "with --json the key is shown on stderr before sending")
	require.Equal(t, 202, u.HTTPStatus)
	require.False(t, u.Replay)
	require.NotEmpty(t, u.UploadID)

	requirePartnerAnswers(t, w, s, de, before)

	// The same bytes again without --replay/--new and without a terminal:
	// nothing is sent, the error says how to choose.
	inboxPosts := func() int { return len(s.requests("/inbox")) }
	waitUntil(t, 5*time.Second, "the upload in the simulator's log", func() bool { return inboxPosts() == 1 })
	_, r = upload()
	require.Equal(t, 2, r.code, "%s", r)
	require.Contains(t, r.stderr, "--replay")
	require.Contains(t, r.stderr, "--new")
	require.Equal(t, 1, inboxPosts(), "nothing was sent")

	u, r = upload("--replay")
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, ordersKey+"1", u.Key, "a replay uses the same key")
	require.Equal(t, 200, u.HTTPStatus)
	require.True(t, u.Replay, "the server answers replay")

	u, r = upload("--new")
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, ordersKey+"2", u.Key, "a new upload of accepted bytes takes the next number")
	require.Equal(t, 202, u.HTTPStatus)
	require.False(t, u.Replay)
	waitUntil(t, 5*time.Second, "three uploads in the simulator's log", func() bool { return inboxPosts() == 3 })
	require.Equal(t, []string{"inbox 202", "inbox 200", "inbox 202"}, s.actions("/inbox"))
	w.requireNoSecretOnDisk(t)
}

// requirePartnerAnswers waits for the partner's answers to the uploaded
// ORDERS (entries not in before): a CONTRL naming its interchange and an
// ORDRSP naming its order; fetches, acknowledges and parses both.
func requirePartnerAnswers(t *testing.T, w *world, s *simProc, de simConn, before map[string]bool) {
	t.Helper()
	var answers []entry
	waitUntil(t, 20*time.Second, "the CONTRL and ORDRSP answers", func() bool {
		answers = answers[:0]
		for _, e := range listAll(t, w, s, de) {
			if !before[e.DeliveryAttemptID] {
				answers = append(answers, e)
			}
		}
		return len(answers) >= 2
	})
	types := map[string]string{}
	for _, a := range answers {
		types[a.MessageType] = a.DeliveryAttemptID
	}
	require.Len(t, types, 2, "one CONTRL and one ORDRSP: %+v", answers)
	for typ, want := range map[string]string{"CONTRL": "UCI+" + ordersICR + "+", "ORDRSP": "RFF+ON:PO-4711"} {
		id, ok := types[typ]
		require.True(t, ok, "no %s answer among %+v", typ, answers)
		fr := w.b2bx(t, apiKeyEnv(de), "", append([]string{"fetch", id, "--ack", "--json"}, s.connFlags(de)...)...)
		require.Equal(t, 0, fr.code, "%s", fr)
		var f fetchResult
		decodeJSON(t, fr, &f)
		require.True(t, f.Acknowledged)
		b, err := os.ReadFile(f.Path)
		require.NoError(t, err)
		require.Contains(t, string(b), want, "the %s refers to our ORDERS", typ)
		p := w.b2bx(t, nil, "", "parse", f.Path)
		require.Equal(t, 0, p.code, "the partner's %s parses without errors\n%s", typ, p)
		require.Contains(t, p.stdout, typ)
	}
}
