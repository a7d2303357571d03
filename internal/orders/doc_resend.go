// Fix and resend: the domain half of "fix and resend a rejected
// ORDERS", shared by `b2bx upload --fixes` and the app. The pins
// (edi/pin) place what the answer reports on the ORDERS:
//
//   - Pins maps what a partner's CONTRL (UCI 0083 = 4, UCM/UCS/UCD
//     errors) or APERAK (ERC groups) reports onto the ORDERS interchange
//     it answers: the segment index in the ORDERS document (UCS 0096
//     counts from UNH = 1), the element and component (UCD S011), the
//     0085 or 9321 code and the error in words, so a viewer can mark the
//     segment and explain it.
//   - Rejections finds the uploads of a connection that a linked answer
//     rejected, and Guard refuses to send bytes identical to one of them
//     (the seed's rule "fix and send with a new idempotency key"); the
//     command line may force it.
//   - NewWorkCopy copies the rejected bytes to a work file, EditorArgs is
//     the command that opens it in $VISUAL/$EDITOR, and ReviewFix
//     computes what a person decides on after editing: the pre-flight, a
//     segment-level diff against the rejected bytes, the key plan and
//     notes (ControlRefNote).
//
// Texts it returns for display are terminal-safe; struct fields holding
// payload values are raw unless their comment says otherwise. It
// imports no UI package.

package orders
