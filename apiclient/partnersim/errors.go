package partnersim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Stable error codes of the Partner API (CONTRACT.md, "Errors").
const (
	CodeInvalidRequest  = "ERR_B2B_EXCHANGE_INVALID_REQUEST"
	CodeNotFound        = "ERR_B2B_EXCHANGE_NOT_FOUND"
	CodeConflict        = "ERR_B2B_EXCHANGE_CONFLICT"
	CodePayloadTooLarge = "ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE"
	CodeUnavailable     = "ERR_B2B_EXCHANGE_UNAVAILABLE"
	CodeInternal        = "ERR_B2B_EXCHANGE_INTERNAL"
)

// notFoundMessage is the one message every 404 carries, whatever the cause
// (unknown key, wrong secret, foreign connection, missing scope, unknown
// entry, wrong claim token): the answer must not tell them apart.
const notFoundMessage = "The requested resource was not found."

// codeForStatus maps an HTTP status to its stable code; statuses outside
// the contract table (an injected 429, say) get the closest code.
func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return CodeInvalidRequest
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusConflict:
		return CodeConflict
	case http.StatusRequestEntityTooLarge:
		return CodePayloadTooLarge
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		return CodeUnavailable
	default:
		return CodeInternal
	}
}

// defaultMessage is the generic text for a status when the handler has
// nothing more specific (and safe) to say.
func defaultMessage(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "The request is invalid."
	case http.StatusNotFound:
		return notFoundMessage
	case http.StatusConflict:
		return "The request conflicts with the current state."
	case http.StatusRequestEntityTooLarge:
		return "The payload exceeds 16 MiB."
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		return "The service is temporarily unavailable. Retry later."
	default:
		return "An internal error occurred."
	}
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeError answers with the contract's error body. message must be a
// fixed, safe text (never echo request data or internal detail); empty
// means the status's default text.
func writeError(w http.ResponseWriter, status int, message string) {
	if message == "" {
		message = defaultMessage(status)
	}
	writeJSON(w, status, errorBody{Error: errorDetail{Code: codeForStatus(status), Message: message}})
}

// writeRetryAfter sets Retry-After in whole seconds (rounded up).
func writeRetryAfter(w http.ResponseWriter, d time.Duration) {
	if d <= 0 {
		return
	}
	secs := int64((d + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil { // only our own fixed types are encoded; cannot happen
		status, body = http.StatusInternalServerError, []byte(`{"error":{"code":"`+CodeInternal+`","message":"An internal error occurred."}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
