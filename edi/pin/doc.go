// Package pin places what a partner's answer reports on the ORDERS it
// answers, and compares two ORDERS segment by segment:
//
//   - Pins (ContrlPins, AperakPins) maps a CONTRL's UCI/UCM/UCS/UCD
//     errors or an APERAK's ERC groups onto the ORDERS interchange: the
//     segment index in the document (UCS 0096 counts from UNH = 1), the
//     element and component (UCD S011), the 0085 or 9321 code and the
//     error in words, so a viewer can mark the segment and explain it.
//   - DiffSegments is the segment-level diff a fix review shows against
//     the rejected bytes.
//
// Texts it returns for display are terminal-safe. It is EDIFACT only: no
// store, no network, no UI.
package pin
