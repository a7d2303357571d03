package apiclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// maxJSONBody bounds a JSON answer; a full mailbox page is far smaller.
const maxJSONBody = 4 << 20

// decodeJSON reads and closes a 2xx answer into v. It insists on a JSON
// content type, one JSON value and nothing after it, so a proxy's HTML page
// or a truncated body is noticed instead of decoded into zero values.
func (c *Client) decodeJSON(cl *call, resp *http.Response, v any) error {
	defer resp.Body.Close()
	raw, err := c.readAnswer(resp, maxJSONBody+1, cl.lease)
	if err != nil {
		return &NetworkError{Op: cl.op, CorrelationID: cl.corr, Unclear: true, Err: fmt.Errorf("reading the answer: %w", err)}
	}
	if len(raw) > maxJSONBody {
		return garbage(cl, resp, "answer is larger than %d bytes", maxJSONBody)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return garbage(cl, resp, "answer is not JSON (Content-Type %q)", mt)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return garbage(cl, resp, "malformed JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return garbage(cl, resp, "data after the JSON value")
	}
	return nil
}

// garbage builds the error for a 2xx answer that breaks the contract: an
// *APIError with the real status (so callers see the correlation ID) that
// matches ErrUnexpected.
func garbage(cl *call, resp *http.Response, format string, args ...any) error {
	return &APIError{
		Op: cl.op, HTTPStatus: resp.StatusCode, CorrelationID: cl.corr,
		Message: fmt.Sprintf(format, args...),
		Action:  "the server's answer breaks the API contract; tell the operator with the correlation ID",
	}
}
