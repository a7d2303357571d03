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
//     written). When some of the matching uploads went to the answer's
//     sender (upload recipient = answer's UNB sender, upload sender =
//     answer's UNB recipient), only those count.
//
// The same reference can match several uploads: a file sent again as a
// new upload keeps its control reference and BGM numbers. Decision: the
// link goes to the latest of them sent before the answer was created
// (allowing ClockSkew between the local clock and the server's), or to
// the earliest when all are later; Link.Candidates says how many
// matched, so a screen can say that the reference was reused. Records of
// the same upload (a replay, the pending and the final record of one key)
// count once: uploads are the same when their UploadID (else their Key)
// is. Pass only uploads the server accepted, one connection at a time.
//
// Text from the payloads and the history is sanitised in every *Text and
// Outcome method; the structs hold it as written.
package answers
