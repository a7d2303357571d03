package common

import "testing"

func TestErrorMsgLine(t *testing.T) {
	e := ErrorMsg{Tab: 3, Code: "ERR_B2B_EXCHANGE_UNAVAILABLE", Action: "retry with backoff", CorrelationID: "c0ffee", Text: "list mailbox: HTTP 503"}
	want := "list mailbox: HTTP 503 [ERR_B2B_EXCHANGE_UNAVAILABLE] — retry with backoff (correlation c0ffee)"
	if got := e.Line(); got != want {
		t.Fatalf("Line() = %q, want %q", got, want)
	}
	if got := (ErrorMsg{Text: "no request"}).Line(); got != "no request" {
		t.Fatalf("Line() without code = %q", got)
	}
	var err error = e
	if err.Error() != want {
		t.Fatalf("Error() = %q", err.Error())
	}
}
