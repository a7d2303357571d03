package events

import "encoding/json"

// DataString returns the string member name of the event's data object
// ("uploadId", "interchangeId", "deliveryAttemptId", "orderNumber"), or
// "" when there is none or it is not a string. Untrusted: sanitise it for
// display.
func (e *Event) DataString(name string) string {
	raw, ok := e.members["data"]
	if !ok {
		return ""
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(raw, &data) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(data[name], &s) != nil {
		return ""
	}
	return s
}
