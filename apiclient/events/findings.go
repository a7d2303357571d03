package events

// Severity ranks a finding. Errors mean a receiver rejects or does not
// process something; warnings are deviations from a recommendation or
// things to look at; info explains what happened.
type Severity string

// Severities.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Code is a stable finding code; scripts and the TUI may match on it.
type Code string

// Finding codes. Delivery-level codes concern a whole file or request;
// the rest concern one event.
const (
	// Delivery level.
	CodeUnreadable       Code = "DELIVERY_UNREADABLE"   // not JSON, not an object or array
	CodeBatchTooLarge    Code = "BATCH_TOO_LARGE"       // > 10 MiB (error) or > 10 MB decimal (warning)
	CodeBatchEmpty       Code = "BATCH_EMPTY"           // a JSON array without events
	CodeTrailingBytes    Code = "TRAILING_BYTES"        // bytes after the HTTP body or the JSON value
	CodeSignatureInvalid Code = "SIGNATURE_INVALID"     // NB-E008
	CodeSignatureMissing Code = "SIGNATURE_MISSING"     // headers captured, no X-NB2B-Signature
	CodeSignatureSkipped Code = "SIGNATURE_NOT_CHECKED" // no secret, or no headers captured
	CodeSignatureTime    Code = "SIGNATURE_TIME_NOT_CHECKED"

	// One event.
	CodeNotObject       Code = "EVENT_NOT_OBJECT"
	CodeInvalidUTF8     Code = "EVENT_INVALID_UTF8"
	CodeDuplicateMember Code = "DUPLICATE_MEMBER" // the same JSON member twice
	CodeEventTooLarge   Code = "EVENT_TOO_LARGE"  // > 1 MiB (error) or > 1 MB decimal (warning)
	CodeFieldMissing    Code = "FIELD_MISSING"
	CodeFieldInvalid    Code = "FIELD_INVALID" // wrong JSON type or empty
	CodeSpecVersion     Code = "SPECVERSION"
	CodeType            Code = "TYPE_FORMAT"
	CodeTime            Code = "TIME_FORMAT"
	CodeSequence        Code = "SEQUENCE_INVALID"
	CodeDataNotObject   Code = "DATA_NOT_OBJECT"
	CodeNotGLN          Code = "PARTY_NOT_GLN"
	CodeKeyForm         Code = "KEY_FORM"
	CodeCausation       Code = "CAUSATION_UNKNOWN"
	CodeCausationSelf   Code = "CAUSATION_SELF"
	CodeCausationCorr   Code = "CAUSATION_OTHER_CONVERSATION"
	CodeAttachment      Code = "ATTACHMENT_INVALID"
	CodeInlinePDF       Code = "INLINE_PDF"
	CodeJWSInvalid      Code = "JWS_INVALID"
	CodeJWSNotChecked   Code = "JWS_NOT_CHECKED"
	CodeJWSMissing      Code = "JWS_MISSING" // a receiver that requires envelope.signature got none
	CodeJWSValid        Code = "JWS_VALID"

	// Across events.
	CodeDuplicate         Code = "DUPLICATE"          // NB-E005, same body: normal at-least-once
	CodeDuplicateConflict Code = "DUPLICATE_CONFLICT" // NB-E005, same key, different body
	CodeDuplicateID       Code = "DUPLICATE_ID"       // same event id under another key
	CodeSequenceGap       Code = "SEQUENCE_GAP"       // NB-E006, still parked at the end
	CodeSequenceMissing   Code = "SEQUENCE_MISSING"   // nothing parked, but a HEARTBEAT reports sequences never processed
	CodeHeartbeat         Code = "HEARTBEAT"          // a HEARTBEAT's last_sequences unreadable, or about a subject not in the set
	CodeOutOfOrder        Code = "SEQUENCE_OUT_OF_ORDER"
	CodeSequenceStart     Code = "SEQUENCE_START"
	CodeRegression        Code = "SEQUENCE_REGRESSION" // lower than processed: rejected
	CodeEnvMixed          Code = "ENV_MIXED"
	CodeRateLimit         Code = "RATE_LIMIT" // NB-E012: more than 100 events in one second from one sender
)

// Finding is one observation. Delivery and Event are 0-based indexes into
// Report.Deliveries and Report.Events, -1 when the finding is not about one.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	// Platform is the platform error code a receiver answers with
	// (NB-E005, NB-E006, NB-E008), when one applies.
	Platform string `json:"platform,omitempty"`
	Delivery int    `json:"delivery"`
	Event    int    `json:"event"`
	// EventID is the event's id as sent (untrusted text).
	EventID string `json:"eventId,omitempty"`
	// Field is a JSON path inside the event, e.g. "attachments[0].uri".
	Field string `json:"field,omitempty"`
	// Message says what is wrong and what to do. It may quote event
	// content: sanitise it before showing it on a terminal.
	Message string `json:"message"`
}
