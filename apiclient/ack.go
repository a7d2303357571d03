package apiclient

import (
	"context"
	"errors"
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

// Acknowledge confirms a stored delivery with the claim's token. After an
// unclear network failure it retries with the same token; the server
// answers an already completed acknowledge with the same receipt and
// Replay true.
func (c *Client) Acknowledge(ctx context.Context, claim *Claim) (*Receipt, error) {
	return nil, errors.New("not implemented")
}
