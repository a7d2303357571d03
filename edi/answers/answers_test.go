package answers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/stretchr/testify/require"
)

const (
	buyer    = "4012345000009"
	supplier = "4098765000003"
)

var t0 = time.Date(2025, 3, 12, 10, 30, 0, 0, time.UTC)

// fixture reads the answers in a file of testdata/edifact.
func fixture(t *testing.T, name string, at time.Time) []Answer {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", name))
	require.NoError(t, err)
	doc, err := edi.Parse(b)
	require.NoError(t, err)
	return FromDocument(doc, name, at)
}

func one(t *testing.T, name string, at time.Time) Answer {
	t.Helper()
	as := fixture(t, name, at)
	require.Len(t, as, 1)
	return as[0]
}

// po4711 is the upload of testdata/edifact/orders_d96a.edi.
func po4711(at time.Time, id string) Upload {
	return Upload{Key: buyer + ":PO-4711:orders:1", Sender: buyer, Recipient: supplier, ControlRef: "ICR0001",
		BGMNumbers: []string{"PO-4711"}, UploadID: id, InterchangeID: "ic-" + id, At: at}
}

func TestFromDocument(t *testing.T) {
	c := one(t, "contrl_22_rejected.edi", t0)
	require.Equal(t, Answer{ID: "contrl_22_rejected.edi", At: t0, Type: "CONTRL", Message: 0, From: supplier, To: buyer,
		InterchangeRef: "ICR0009", InterchangeSender: buyer, InterchangeRecipient: supplier,
		Action: edi.Coded{Code: "4", Name: c.Action.Name}, Verdict: "rejected", Errors: 2}, c)
	require.NotEmpty(t, c.Action.Name, "named from the service directory")

	r := one(t, "ordrsp_d96a.edi", t0)
	require.Equal(t, "ORDRSP", r.Type)
	require.Equal(t, []string{"PO-4711"}, r.Refs)
	require.Equal(t, "RSP-0815", r.Number)
	require.Equal(t, "4", r.Status.Code)
	require.Equal(t, 2, r.Lines)
	require.Equal(t, 1, r.ChangedLines)

	a := one(t, "aperak_d96a.edi", t0)
	require.Equal(t, []string{"PO-4711"}, a.Refs, "RFF+ACW: the previous message")
	require.Equal(t, 1, a.Errors)
	require.Equal(t, "12: Unknown article number 4000862141411", a.FirstError)

	require.Empty(t, fixture(t, "orders_d96a.edi", t0), "an ORDERS is not an answer")
}

func TestAperakReferencesOrderNumberFirst(t *testing.T) {
	doc, err := edi.Parse([]byte("UNB+UNOC:3+S:14+R:14+250313:0815+A1'UNH+1+APERAK:D:96A:UN'BGM+313+APE-1+27'" +
		"DTM+137:20250313:102'RFF+ACW:MSG-9'RFF+ON:PO-1'ERC+12'UNT+7+1'UNZ+1+A1'"))
	require.NoError(t, err)
	as := FromDocument(doc, "x", t0)
	require.Len(t, as, 1)
	require.Equal(t, []string{"PO-1", "MSG-9"}, as[0].Refs)
}

func TestLinkEachAnswerType(t *testing.T) {
	uploads := []Upload{
		{Key: "k-other", Sender: buyer, Recipient: supplier, ControlRef: "ICR0002", BGMNumbers: []string{"PO-2025-0815"}, UploadID: "u0", At: t0},
		po4711(t0, "u1"),
		{Key: "k-rejected", Sender: buyer, Recipient: supplier, ControlRef: "ICR0009", BGMNumbers: []string{"PO-1", "PO-2"}, UploadID: "u2", At: t0},
	}
	later := t0.Add(time.Minute)
	for _, tc := range []struct {
		file    string
		upload  int
		by      Basis
		ref     string
		text    string
		outcome string
	}{
		{"contrl_22.edi", 1, ByInterchange, "ICR0001", "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:1)", "CONTRL: accepted"},
		{"contrl_22_rejected.edi", 2, ByInterchange, "ICR0009", "answers upload of PO-1, PO-2 (key k-rejected)", "CONTRL: rejected (2 errors)"},
		{"contrl_41_accepted.edi", 0, ByInterchange, "ICR0002", "answers upload of PO-2025-0815 (key k-other)", "CONTRL: accepted"},
		{"ordrsp_d96a.edi", 1, ByOrder, "PO-4711", "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:1)", "ORDRSP: 1 of 2 lines changed"},
		{"ordrsp_d25a.edi", 0, ByOrder, "PO-2025-0815", "answers upload of PO-2025-0815 (key k-other)", "ORDRSP: 2 of 3 lines changed"},
		{"aperak_d96a.edi", 1, ByOrder, "PO-4711", "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:1)",
			"APERAK: 1 error (first: 12: Unknown article number 4000862141411)"},
		{"aperak_d25a.edi", 0, ByOrder, "PO-2025-0815", "answers upload of PO-2025-0815 (key k-other)",
			"APERAK: 2 errors (first: 12: Unknown article number 4000862141411)"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			a := one(t, tc.file, later)
			l := Find(uploads, a)
			require.Equal(t, Link{Upload: tc.upload, By: tc.by, Ref: tc.ref, Candidates: 1}, l)
			require.Equal(t, tc.text, LinkText(uploads, a, l))
			require.Equal(t, tc.outcome, a.Outcome())
		})
	}
}

func TestNoMatch(t *testing.T) {
	up := po4711(t0, "u1")
	for _, tc := range []struct {
		name   string
		answer Answer
		text   string
	}{
		{"CONTRL for another interchange", Answer{Type: "CONTRL", InterchangeRef: "ICR0002", InterchangeSender: buyer},
			"answers interchange ICR0002 from 4012345000009: no upload of this connection has it"},
		{"CONTRL for the same reference from another sender", Answer{Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: "4000000000000"},
			"answers interchange ICR0001 from 4000000000000: no upload of this connection has it"},
		{"CONTRL naming another recipient", Answer{Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer, InterchangeRecipient: "9"},
			"answers interchange ICR0001 from 4012345000009: no upload of this connection has it"},
		{"CONTRL without UCI", Answer{Type: "CONTRL"}, "the CONTRL does not say which interchange it answers (no UCI reference)"},
		{"ORDRSP for another order", Answer{Type: "ORDRSP", Refs: []string{"PO-9"}}, "refers to order PO-9: no upload of this connection has it"},
		{"ORDRSP without RFF+ON", Answer{Type: "ORDRSP"}, "names no order (no RFF+ON): cannot be linked to an upload"},
		{"APERAK without references", Answer{Type: "APERAK"}, "names no document it refers to (no RFF): cannot be linked to an upload"},
		{"another message type", Answer{Type: "INVOIC", Refs: []string{"PO-4711"}}, "not an answer b2bx links to uploads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Find([]Upload{up}, tc.answer)
			require.False(t, l.Linked())
			require.Equal(t, -1, l.Upload)
			require.Equal(t, tc.text, LinkText([]Upload{up}, tc.answer, l))
		})
	}
	require.False(t, Find(nil, Answer{Type: "ORDRSP", Refs: []string{"PO-4711"}}).Linked())
}

// TestAmbiguity: a file sent again as a new upload keeps its references;
// the answer goes to the latest upload sent before it.
func TestAmbiguity(t *testing.T) {
	first, second := po4711(t0, "u1"), po4711(t0.Add(time.Hour), "u2")
	second.Key = buyer + ":PO-4711:orders:2"
	uploads := []Upload{first, second}
	for _, tc := range []struct {
		name string
		at   time.Time
		want int
	}{
		{"answer between the two", t0.Add(30 * time.Minute), 0},
		{"answer after both", t0.Add(2 * time.Hour), 1},
		// issue 23: an upload sent after the answer never takes it from
		// one sent before (the old rule's ClockSkew preferred the later)
		{"second upload within the clock skew: the one sent before", t0.Add(time.Hour - ClockSkew), 0},
		{"answer time unknown: the latest", time.Time{}, 1},
		{"answer before both, first within the clock skew", t0.Add(-time.Minute), 0},
		{"answer before both, beyond the clock skew: unlinked", t0.Add(-time.Hour), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, a := range []Answer{
				{Type: "ORDRSP", Refs: []string{"PO-4711"}, At: tc.at},
				{Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer, At: tc.at},
			} {
				l := Find(uploads, a)
				require.Equal(t, tc.want, l.Upload, a.Type)
				require.Equal(t, 2, l.Candidates)
				require.True(t, l.Ambiguous())
				if tc.want < 0 {
					require.Contains(t, LinkText(uploads, a, l), "created before every upload with that")
				}
			}
		})
	}
	a := Answer{Type: "ORDRSP", Refs: []string{"PO-4711"}, At: t0.Add(2 * time.Hour)}
	require.Equal(t, "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:2), the latest of 2 uploads with that order number",
		LinkText(uploads, a, Find(uploads, a)))
	c := Answer{Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer, At: t0.Add(2 * time.Hour)}
	require.Equal(t, "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:2), the latest of 2 uploads with that interchange reference",
		LinkText(uploads, c, Find(uploads, c)))

	// Records of one upload (the pending and the final record, a replay)
	// are one candidate.
	replay := po4711(t0.Add(time.Hour), "u1")
	l := Find([]Upload{first, replay}, a)
	require.Equal(t, 1, l.Candidates)
	require.False(t, l.Ambiguous())
	noID := Upload{Key: "k", Sender: buyer, ControlRef: "X", At: t0}
	l = Find([]Upload{noID, noID}, Answer{Type: "CONTRL", InterchangeRef: "X", InterchangeSender: buyer})
	require.Equal(t, 1, l.Candidates, "without an uploadId the key identifies the upload")
}

// TestPartiesPreferred: among uploads with the same order number, the one
// sent to the answer's sender wins even when another is later.
func TestPartiesPreferred(t *testing.T) {
	ours := po4711(t0, "u1")
	elsewhere := po4711(t0.Add(time.Minute), "u2")
	elsewhere.Recipient = "4000000000017"
	a := Answer{Type: "ORDRSP", Refs: []string{"PO-4711"}, From: supplier, To: buyer, At: t0.Add(time.Hour)}
	l := Find([]Upload{ours, elsewhere}, a)
	require.Equal(t, 0, l.Upload)
	require.Equal(t, 1, l.Candidates)
	// issue 23: order numbers are unique per buyer, not globally: an
	// answer whose parties fit no upload is not linked by the number
	a.From = "4000000000024"
	l = Find([]Upload{ours, elsewhere}, a)
	require.False(t, l.Linked())
	require.Equal(t, "same order number as PO-4711 of buyer 4012345000009, but this answer was sent by 4000000000024, not by 4000000000017: not linked by the number alone",
		LinkText([]Upload{ours, elsewhere}, a, l))
}

// TestOrderNumberOfAnotherBuyer: NAD+BY decides when the UNB parties
// agree: the same PO number of another buyer is not our order.
func TestOrderNumberOfAnotherBuyer(t *testing.T) {
	ours := po4711(t0, "u1")
	ours.Buyer, ours.Supplier = buyer, supplier
	a := Answer{Type: "ORDRSP", Refs: []string{"PO-4711"}, From: supplier, To: buyer, Buyer: "4000000000031", Supplier: supplier, At: t0.Add(time.Hour)}
	l := Find([]Upload{ours}, a)
	require.False(t, l.Linked())
	require.Equal(t, "same order number as PO-4711 of buyer 4012345000009, but this answer is for buyer 4000000000031: not linked by the number alone",
		LinkText([]Upload{ours}, a, l))
	a.Buyer = buyer
	require.Equal(t, 0, Find([]Upload{ours}, a).Upload)
	// the parties come from the documents
	r := one(t, "ordrsp_d96a.edi", t0)
	require.NotEmpty(t, r.Buyer)
}

// TestServerClock: an upload dated by the server's Date is compared
// without the clock-skew window: an answer created before it is not its
// answer, however close.
func TestServerClock(t *testing.T) {
	up := po4711(t0.Add(10*time.Minute), "u1") // this machine's clock runs 10 minutes ahead
	up.ServerAt = t0
	a := Answer{Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer, At: t0.Add(time.Second)}
	l := Find([]Upload{up}, a)
	require.Equal(t, 0, l.Upload, "sent at or before the answer on the server's clock")
	require.False(t, l.Skewed)
	a.At = t0.Add(-time.Second) // within the Date's resolution
	l = Find([]Upload{up}, a)
	require.Equal(t, 0, l.Upload)
	require.True(t, l.Skewed)
	a.At = t0.Add(-5 * time.Second)
	l = Find([]Upload{up}, a)
	require.False(t, l.Linked())
	require.Equal(t, "answers interchange ICR0001 from 4012345000009: created before the upload with that interchange reference", LinkText([]Upload{up}, a, l))

	// without the server's time, the window applies and says so
	local := po4711(t0.Add(time.Minute), "u1")
	a.At = t0
	l = Find([]Upload{local}, a)
	require.Equal(t, 0, l.Upload)
	require.True(t, l.Skewed)
	require.Contains(t, LinkText([]Upload{local}, a, l), "this machine's clock is ahead of the server's")
}

// TestDistinctMergesReplays: a replay (200, same uploadId) and the
// records of one key are one upload, dated when it was first sent.
func TestDistinctMergesReplays(t *testing.T) {
	first := po4711(t0, "u1")
	first.ServerAt = t0
	replay := po4711(t0.Add(time.Hour), "u1")
	replay.ServerAt, replay.Replay = t0.Add(time.Hour), true
	other := po4711(t0.Add(2*time.Hour), "u2")
	other.Key = buyer + ":PO-4711:orders:2"
	pending := Upload{Key: "k-p", At: t0}
	final := Upload{Key: "k-p", UploadID: "u3", At: t0.Add(time.Second), ServerAt: t0}
	out, of := Distinct([]Upload{first, replay, other, pending, final})
	require.Len(t, out, 3)
	require.Equal(t, []int{0, 0, 1, 2, 2}, of)
	require.Equal(t, t0, out[0].At)
	require.Equal(t, t0, out[0].ServerAt, "the replay's later Date does not move the upload")
	require.Equal(t, "u3", out[2].UploadID)
	require.Equal(t, t0, out[2].ServerAt)
}

// TestResentBy: an upload sent again (by --fixes, or the same order
// between the same parties) is history; the latest attempt is not.
func TestResentBy(t *testing.T) {
	orig := po4711(t0, "u1")
	fix := po4711(t0.Add(time.Hour), "u2")
	fix.Key, fix.Fixes = buyer+":PO-4711:orders:2", "u1"
	other := po4711(t0.Add(2*time.Hour), "u3")
	other.Key, other.BGMNumbers, other.ControlRef = "k-other", []string{"PO-9"}, "ICR9"
	x := NewIndex([]Upload{orig, fix, other}, nil)
	k, ok := x.ResentBy(0)
	require.True(t, ok)
	require.Equal(t, 1, k)
	_, ok = x.ResentBy(1)
	require.False(t, ok, "the latest attempt of its order")
	_, ok = x.ResentBy(2)
	require.False(t, ok)
	// the same order number from another buyer is another order
	foreign := po4711(t0.Add(3*time.Hour), "u4")
	foreign.Key, foreign.Sender = "k-foreign", "4000000000048"
	x = NewIndex([]Upload{orig, foreign}, nil)
	_, ok = x.ResentBy(0)
	require.False(t, ok)
}

func TestUploadWithoutSenderStillLinksCONTRL(t *testing.T) {
	u := Upload{Key: "k", ControlRef: "ICR0001", At: t0}
	l := Find([]Upload{u}, Answer{Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer})
	require.Equal(t, 0, l.Upload)
	require.Equal(t, "answers upload of interchange ICR0001 (key k)", LinkText([]Upload{u}, Answer{Type: "CONTRL"}, l))
}

func TestIndexBothDirections(t *testing.T) {
	uploads := []Upload{po4711(t0, "u1"),
		{Key: "k-two", Sender: buyer, Recipient: supplier, ControlRef: "ICR0003", BGMNumbers: []string{"PO-1", "PO-2"}, UploadID: "u2", At: t0},
		{Key: "k-none", Sender: buyer, ControlRef: "ICR0004", BGMNumbers: []string{"PO-3"}, UploadID: "u3", At: t0}}
	at := t0.Add(time.Minute)
	answers := []Answer{one(t, "contrl_22.edi", at), one(t, "ordrsp_d25a.edi", at), one(t, "ordrsp_d96a.edi", at), one(t, "aperak_d96a.edi", at),
		{Type: "CONTRL", InterchangeRef: "ICR0003", InterchangeSender: buyer, Verdict: "acknowledged", At: at},
		{Type: "ORDRSP", Refs: []string{"PO-2"}, Lines: 3, Status: edi.Coded{Code: "27"}, At: at},
		{Type: "ORDRSP", Refs: []string{"PO-1"}, Lines: 0, Status: edi.Coded{Code: "29"}, At: at}}
	x := NewIndex(uploads, answers)
	require.Equal(t, []int{0, 2, 3}, x.AnswersOf(0))
	require.Equal(t, []int{4, 5, 6}, x.AnswersOf(1))
	require.Empty(t, x.AnswersOf(2))
	require.False(t, x.Link(1).Linked(), "the D.25A ORDRSP answers PO-2025-0815, not uploaded here")
	require.Equal(t, 0, x.Link(3).Upload)
	require.Equal(t, "answered by CONTRL: accepted; ORDRSP: 1 of 2 lines changed; APERAK: 1 error (first: 12: Unknown article number 4000862141411)",
		x.UploadText(0))
	require.Equal(t, "answered by CONTRL: accepted; ORDRSP for PO-2: not accepted; ORDRSP for PO-1: accepted without amendment", x.UploadText(1))
	require.Equal(t, "no answer yet", x.UploadText(2))
	require.Equal(t, "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:1)", x.AnswerText(2))
	require.Equal(t, "refers to order PO-2025-0815: no upload of this connection has it", x.AnswerText(1))
}

func TestOutcomeWords(t *testing.T) {
	for _, tc := range []struct {
		a    Answer
		want string
	}{
		{Answer{Type: "CONTRL", Verdict: "acknowledged"}, "CONTRL: accepted"},
		{Answer{Type: "CONTRL", Verdict: "accepted"}, "CONTRL: accepted"},
		{Answer{Type: "CONTRL", Verdict: "rejected", Errors: 1}, "CONTRL: rejected (1 error)"},
		{Answer{Type: "CONTRL", Verdict: "received"}, "CONTRL: received"},
		{Answer{Type: "CONTRL", Verdict: "acknowledged with errors", Errors: 3}, "CONTRL: acknowledged with errors (3 errors)"},
		{Answer{Type: "CONTRL", Action: edi.Coded{Code: "9"}}, "CONTRL: action 9"},
		{Answer{Type: "CONTRL"}, "CONTRL: no action code"},
		{Answer{Type: "ORDRSP", Lines: 5}, "ORDRSP: no lines changed (of 5)"},
		{Answer{Type: "ORDRSP", Lines: 1, ChangedLines: 1}, "ORDRSP: 1 of 1 line changed"},
		{Answer{Type: "ORDRSP"}, "ORDRSP: no lines"},
		{Answer{Type: "APERAK"}, "APERAK: no errors"},
		{Answer{Type: "APERAK", Errors: 2}, "APERAK: 2 errors"},
	} {
		require.Equal(t, tc.want, tc.a.Outcome())
	}
}

// TestTextIsSanitised: payload and history values cannot reach the
// terminal raw.
func TestTextIsSanitised(t *testing.T) {
	evil := "PO-\x1b]0;pwned\x07\u202e"
	u := Upload{Key: "k\x1b[2J", Sender: buyer, ControlRef: "R\x9b", BGMNumbers: []string{evil}, At: t0}
	answers := []Answer{
		{Type: "ORDRSP", Refs: []string{evil}, ChangedLines: 1, Lines: 1},
		{Type: "CONTRL", InterchangeRef: "R\x9b", InterchangeSender: buyer, Verdict: "rejected", Errors: 1},
		{Type: "CONTRL", InterchangeRef: "X\x1b", InterchangeSender: "S\r"},
		{Type: "APERAK", Refs: []string{"Y\x07"}, Errors: 1, FirstError: "12: \x1b[31m"},
		{Type: "T\x1b"},
	}
	u2 := u
	u2.BGMNumbers = append(u2.BGMNumbers, "B\x1b")
	x := NewIndex([]Upload{u, u2}, answers)
	var texts []string
	for j := range answers {
		texts = append(texts, x.AnswerText(j), answers[j].Outcome())
	}
	texts = append(texts, x.UploadText(0), x.UploadText(1))
	for _, s := range texts {
		require.True(t, termsafe.IsSafe(s), "%q", s)
	}
	require.True(t, strings.Contains(strings.Join(texts, "\n"), "^["), "escapes are visible")
}

// TestRejectsIsTheOneRule: the verdicts and error counts that reject, for
// an answer and for a CONTRL summary alike (the viewer asks the latter).
func TestRejectsIsTheOneRule(t *testing.T) {
	for _, c := range []struct {
		a    Answer
		want bool
	}{
		{Answer{Type: "CONTRL", Verdict: "rejected"}, true},
		{Answer{Type: "CONTRL", Verdict: "partly rejected"}, true},
		{Answer{Type: "CONTRL", Verdict: "acknowledged with errors"}, true},
		{Answer{Type: "CONTRL", Verdict: "acknowledged", Errors: 1}, true},
		{Answer{Type: "CONTRL", Verdict: "acknowledged"}, false},
		{Answer{Type: "CONTRL", Verdict: "accepted"}, false},
		{Answer{Type: "CONTRL", Verdict: "received"}, false},
		{Answer{Type: "CONTRL"}, false},
		{Answer{Type: "APERAK", Errors: 2}, true},
		{Answer{Type: "APERAK"}, false},
		{Answer{Type: "ORDRSP", Errors: 3}, false},
		{Answer{Type: "ORDRSP", Status: edi.Coded{Code: "27"}}, false},
	} {
		require.Equal(t, c.want, c.a.Rejects(), "%+v", c.a)
		if c.a.Type == "CONTRL" && c.a.Errors == 0 {
			require.Equal(t, c.want, ContrlRejects(&edi.ContrlSummary{Verdict: c.a.Verdict}), c.a.Verdict)
		}
	}
	rej := one(t, "contrl_22_rejected.edi", t0)
	require.True(t, rej.Rejects())
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "contrl_22_rejected.edi"))
	require.NoError(t, err)
	doc, err := edi.Parse(b)
	require.NoError(t, err)
	require.True(t, ContrlRejects(doc.Messages[0].Summary().Contrl))
}

// TestWithinOneSecond: the Date has whole seconds; two uploads and the
// answer within one second keep their order by this machine's finer
// clock when the clocks agree.
func TestWithinOneSecond(t *testing.T) {
	first := po4711(t0.Add(100*time.Millisecond), "u1")
	first.ServerAt = t0
	second := po4711(t0.Add(800*time.Millisecond), "u2")
	second.Key, second.ServerAt = buyer+":PO-4711:orders:2", t0
	a := Answer{Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer, At: t0.Add(500 * time.Millisecond)}
	l := Find([]Upload{first, second}, a)
	require.Equal(t, 0, l.Upload, "the CONTRL created between them answers the first")
	a.At = t0.Add(900 * time.Millisecond)
	require.Equal(t, 1, Find([]Upload{first, second}, a).Upload)
	// createdAt in whole seconds: an upload sent within the answer's
	// second is sent "at" it
	late := po4711(t0.Add(1500*time.Millisecond), "u3")
	late.ServerAt = t0.Add(time.Second)
	a.At = t0.Add(time.Second)
	l = Find([]Upload{first, late}, a)
	require.Equal(t, 1, l.Upload, "sent at 1.5 s, the answer created in second 1")
	require.False(t, l.Skewed)
}

// TestSameSecondAnswersGoInOrder: a resend in the same second as the
// first upload and its CONTRL (createdAt in whole seconds): the first
// CONTRL goes to the first upload, the next to the resend.
func TestSameSecondAnswersGoInOrder(t *testing.T) {
	first := po4711(t0.Add(100*time.Millisecond), "u1")
	first.ServerAt = t0
	second := po4711(t0.Add(700*time.Millisecond), "u2")
	second.Key, second.ServerAt = buyer+":PO-4711:orders:2", t0
	rej := Answer{ID: "d1", Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer, At: t0, Verdict: "rejected"}
	acc := Answer{ID: "d2", Type: "CONTRL", InterchangeRef: "ICR0001", InterchangeSender: buyer, At: t0, Verdict: "acknowledged"}
	x := NewIndex([]Upload{first, second}, []Answer{rej, acc})
	require.Equal(t, 0, x.Link(0).Upload)
	require.Equal(t, 1, x.Link(1).Upload)
}

// TestAnswerStoredBeforeAnUploadDoesNotAnswerIt: the mailbox dates its
// CONTRL in whole seconds, so a fix sent in the same second "precedes"
// it on that clock alone; but the CONTRL was downloaded and stored here
// before the fix left, so it answers the original (issue 23: an answer
// belongs to the upload that caused it).
func TestAnswerStoredBeforeAnUploadDoesNotAnswerIt(t *testing.T) {
	s := t0.Add(10 * time.Second) // the CONTRL's createdAt, whole seconds
	orig := Upload{Key: "k:1", ControlRef: "ICR0042", UploadID: "u1", At: s.Add(-1500 * time.Millisecond)}
	fix := Upload{Key: "k:3", ControlRef: "ICR0042", UploadID: "u3", At: s.Add(700 * time.Millisecond)}
	a := Answer{Type: "CONTRL", InterchangeRef: "ICR0042", At: s}
	ups := []Upload{orig, fix}
	require.Equal(t, 1, Find(ups, a).Upload, "on the mailbox's clock alone the fix is sent 'at' the answer's second")

	a.Received = s.Add(400 * time.Millisecond) // fetched and stored before the fix was sent
	l := Find(ups, a)
	require.Equal(t, 0, l.Upload, "the answer was here before the fix left")
	require.Equal(t, 2, l.Candidates)
	require.Equal(t, 1, l.Later, "the fix still counts as a later upload with the reference")

	a.Received = s.Add(900 * time.Millisecond) // stored after the fix left: it may be the fix's
	require.Equal(t, 1, Find(ups, a).Upload)

	only := []Upload{fix}
	a.Received = s.Add(400 * time.Millisecond)
	l = Find(only, a)
	require.False(t, l.Linked(), "the only upload with the reference left after the answer was stored")
	require.Equal(t, "downloaded before the upload with that interchange reference was sent", l.Why)
}
