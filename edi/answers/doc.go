// Package answers links the partner's answers in a connection's mailbox
// (CONTRL, ORDRSP, APERAK) to the ORDERS uploads they answer, in both
// directions: an entry says "answers upload of PO-123 (key …)", an upload
// says "answered by CONTRL: accepted; ORDRSP: 3 of 5 lines changed". The
// CLI and the app both ask this package, so the rule lives once.
//
// # Linking rules
//
//   - A CONTRL answers the interchange its UCI names: the upload whose
//     UNB control reference (0020) is the UCI's and whose sender is the
//     UCI sender (S002; the CONTRL's own UNB sender is the partner). A
//     UCI recipient (S003) that differs from the upload's recipient
//     excludes the upload.
//   - An ORDRSP answers the upload whose BGM number is its RFF+ON; an
//     APERAK the upload whose BGM number is one of its header references
//     (RFF+ON first, then e.g. ACW "previous message" in the order
//     written). Order numbers are unique per buyer, not globally: only
//     uploads between the same parties count (upload recipient = the
//     answer's UNB sender, upload sender = its UNB recipient, and the
//     same NAD+BY and NAD+SU; a party unknown on either side fits). An
//     answer whose number matches only other parties' uploads is not
//     linked, and Link.Why says "same order number as PO-… of buyer …".
//
// The same reference can match several uploads: a file sent again as a
// new upload keeps its control reference and BGM numbers. The rule: an
// answer answers the latest upload sent at or before the answer was
// created, compared on the server's clock (Upload.ServerAt, the Date of
// the upload's answer; the mailbox dates answers on that clock). Only
// when no candidate precedes it, an upload dated on this machine's clock
// (no ServerAt) up to ClockSkew later is taken (Link.Skewed); beyond that
// the answer is unlinked and Link.Why says "created before every upload
// with that reference". Link.Candidates says how many matched, so a
// screen can say that the reference was reused. A replay (200, the same
// uploadId) and the records of one key are the same upload: Distinct
// builds the one link input from a connection's accepted history. Pass
// one connection at a time.
//
// Two more rules live here: Answer.Rejects (which answers reject the
// upload: the resend guard, H, find, the dashboard and --overdue ask it)
// and Index.ResentBy (an upload sent again — by --fixes or with the same
// order between the same parties — is history: its conversation follows
// its latest attempt).
//
// Text from the payloads and the history is sanitised in every *Text and
// Outcome method; the structs hold it as written.
package answers
