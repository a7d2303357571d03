// Package orderdiff compares an ORDRSP with the ORDERS it answers: per
// line what the partner changed (quantity, price, delivery date, the item
// itself, the line's action code), which lines it added and which it left
// out, and what changed in the header (delivery dates, the response
// status). `b2bx diff` and the app's answer screens both print through
// Diff's render methods, so the two faces say the same thing.
//
// # Matching lines
//
// A response line belongs to the order line with the same LIN line number
// (1082) when their item ids agree (or one of them has none); otherwise to
// an order line with the same item id (LIN C212/7140 or any PIA id); and
// last to the order line with the same number even though the item
// differs (a substitution, reported as an "item" change). Response lines
// left over were added by the partner, order lines left over are missing
// from the response. An ORDRSP without any LIN confirms or rejects the
// order as a whole: with BGM 1225 29 "Accepted without amendment" every
// line is unchanged, with 27 "Not accepted" every line is rejected,
// otherwise every line is missing.
//
// # What is compared
//
//   - Quantity: the ordered quantity (QTY 21, else the line's first QTY)
//     against the quantity the partner confirms: the first of QTY 113
//     "Quantity to be delivered", 131 "Delivery quantity", 12 "Despatch
//     quantity" and 21 "Ordered quantity" (partners that only restate QTY
//     21 put the confirmed quantity there). A restated QTY 21 that differs
//     from the order next to a 113/131/12 is reported too. Numbers compare
//     by value ("48" equals "48.000", "1,5" equals "1.5"), units only when
//     both sides name one.
//   - Price: PRI by price qualifier (5125, e.g. AAA "Calculation net"). A
//     price the partner quotes for a line the order priced differently or
//     not at all is a change; a price the response omits is not.
//   - Dates: delivery-related DTM qualifiers (2 requested, 10 shipment
//     requested, 11 despatch, 17 estimated, 63 latest, 64 earliest, 69
//     promised for), in the line or, for the order, inherited from the
//     header. A promised (69) or estimated (17) date is compared with the
//     requested delivery date (2) when the order has no date of its own
//     qualifier. Dates compare by calendar day and, when both sides have
//     one, time of day. Header dates are compared the same way.
//   - Action (LIN 1229, names from edi/dict): 2 "Deleted", 7 "Not
//     accepted", 10 "Not found" and 21 "No delivery" make a line rejected;
//     any value difference makes it changed; a code other than 4 "No
//     action", 5 "Accepted without amendment" and 11 "Not amended" marks it
//     changed even without a visible difference (the partner changed
//     something b2bx does not compare); a line whose code says unchanged
//     but whose values differ gets a note.
//
// Something the response does not restate (no QTY, no PRI, no DTM) is not
// a change: partners confirm by omission. Only line-level QTY, DTM and PIA
// and the line's own PRI group count; schedule and package groups below
// the line are not compared. Messages without a directory structure are
// read in segment order (everything between one LIN and the next).
//
// Diff holds decoded payload text: sanitise it for display. The render
// methods (Headline, Lines, String) already do.
package orderdiff
