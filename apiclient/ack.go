package apiclient

import (
	"context"
	"net/http"
	"time"
)

// Receipt is the server's acknowledgement of a delivery.
type Receipt struct {
	DeliveryAttemptID string    `json:"deliveryAttemptId"`
	ReceiptID         string    `json:"receiptId"`
	AcknowledgedAt    time.Time `json:"acknowledgedAt"`
	// Replay is true when the server had already acknowledged (e.g. our
	// first attempt's answer was lost); the receipt is the original one.
	Replay        bool   `json:"replay"`
	CorrelationID string `json:"correlationId"`
}

// Acknowledge confirms a durably stored, verified delivery with the claim's
// token. After an unclear network failure it retries with the same token
// (the server may have acknowledged already); the server answers an
// already completed acknowledge with the same receipt and Replay true.
func (c *Client) Acknowledge(ctx context.Context, claim *Claim) (*Receipt, error) {
	tok, err := tokenFor("acknowledge", claim)
	if err != nil {
		return nil, err
	}
	cl := &call{op: "acknowledge", scope: ScopeMailboxAcknowledge, method: http.MethodPost,
		url:   c.endpoint(nil, "mailbox", claim.DeliveryAttemptID, "acknowledge"),
		token: tok, deliveryID: claim.DeliveryAttemptID, corr: correlationFor(ctx), mode: retryUnclear, lease: claim.ExpiresAt}
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	var body struct {
		DeliveryAttemptID string    `json:"deliveryAttemptId"`
		ReceiptID         string    `json:"receiptId"`
		AcknowledgedAt    time.Time `json:"acknowledgedAt"`
		Replay            *bool     `json:"replay"`
	}
	if err := c.decodeJSON(cl, resp, &body); err != nil {
		return nil, err
	}
	switch {
	case body.ReceiptID == "":
		return nil, garbage(cl, resp, "acknowledge answer has no receiptId")
	case body.DeliveryAttemptID != claim.DeliveryAttemptID:
		return nil, garbage(cl, resp, "acknowledge answer is for another delivery attempt")
	}
	return &Receipt{DeliveryAttemptID: body.DeliveryAttemptID, ReceiptID: body.ReceiptID,
		AcknowledgedAt: body.AcknowledgedAt, Replay: body.Replay != nil && *body.Replay, CorrelationID: cl.corr}, nil
}
