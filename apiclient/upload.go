package apiclient

import (
	"context"
	"errors"
	"io"
)

// MaxPayloadSize is the contract's payload limit: 16 MiB.
const MaxPayloadSize = 16 << 20

// MaxKeyLen is the longest Idempotency-Key the contract allows.
const MaxKeyLen = 200

// ValidateIdempotencyKey checks the contract's rule: 1..200 characters
// from [A-Za-z0-9._:-]. The error matches ErrInvalidKey.
func ValidateIdempotencyKey(k string) error { return errors.New("not implemented") }

// IdempotencyKey builds "<sender>:<business>:orders:<n>" (CONTRACT.md).
func IdempotencyKey(senderID, businessID string, n int) (string, error) {
	return "", errors.New("not implemented")
}

// UploadResult is the inbox's answer to an upload.
type UploadResult struct {
	HTTPStatus    int    `json:"httpStatus"` // 202 first upload, 200 replay
	UploadID      string `json:"uploadId"`
	InterchangeID string `json:"interchangeId,omitempty"`
	Status        string `json:"status"`
	Replay        bool   `json:"replay"`
	Key           string `json:"idempotencyKey"`
	CorrelationID string `json:"correlationId"`
}

// Upload sends one EDIFACT interchange of size bytes read from body, with
// the same key on every retry. It refuses an invalid key or a payload over
// MaxPayloadSize before sending anything.
func (c *Client) Upload(ctx context.Context, key string, body io.ReaderAt, size int64) (*UploadResult, error) {
	return nil, errors.New("not implemented")
}
