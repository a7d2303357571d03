package common

import "strings"

// ErrorMsg is an error a tab hands to the shell's footer, where it stays
// until dismissed. The fields come from the domain error (apiclient's
// stable code and client action, the request's correlation ID) so an
// engineer can act on it and hand the correlation ID to platform
// support. Every string is already sanitised by the sender.
//
// ErrorMsg deliberately does not implement Owned: it is for the footer,
// not for a tab. Tab says which tab it came from (0: the shell itself).
type ErrorMsg struct {
	Tab           TabID
	Code          string // stable error code, e.g. ERR_B2B_EXCHANGE_UNAVAILABLE; "" when none
	Action        string // what the operator should do; "" when none
	CorrelationID string // "" when the failure had no request
	Text          string // what happened, one or a few sentences
}

// Error makes ErrorMsg usable as an error value too.
func (e ErrorMsg) Error() string { return e.Line() }

// Line is the footer's one-line form: text, then code, action and
// correlation ID when known.
func (e ErrorMsg) Line() string {
	var b strings.Builder
	b.WriteString(e.Text)
	if e.Code != "" {
		b.WriteString(" [" + e.Code + "]")
	}
	if e.Action != "" {
		b.WriteString(" — " + e.Action)
	}
	if e.CorrelationID != "" {
		b.WriteString(" (correlation " + e.CorrelationID + ")")
	}
	return b.String()
}
