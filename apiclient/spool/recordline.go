package spool

import (
	"encoding/json"

	"github.com/nutrab2b/b2bx/internal/jsonline"
)

// unmarshalRecord decodes one history line into a zero r, as
// json.Unmarshal does: the lines b2bx wrote are read by jsonline, which
// needs no reflection (the pre-flight reads hundreds before each upload),
// and any other line by encoding/json itself.
func unmarshalRecord(line []byte, r *UploadRecord) error {
	if fastRecord(line, r) {
		return nil
	}
	*r = UploadRecord{}
	return json.Unmarshal(line, r)
}

// fastRecord reads line with jsonline: false (r partly set) when a member
// is not one of UploadRecord's names, exactly spelled, with a value of its
// type.
func fastRecord(line []byte, r *UploadRecord) bool {
	return jsonline.Fields(line, func(name []byte, v jsonline.Value) bool {
		if v.Null() {
			if string(name) == "docNumbers" {
				r.DocNumbers = nil
			}
			return recordField(string(name)) // encoding/json leaves the field as it was
		}
		ok, head := headField(r, name, v)
		if head {
			return ok
		}
		switch string(name) {
		case "serverTime":
			r.ServerTime, ok = v.Time()
		case "size":
			r.Size, ok = v.Int()
		case "senderId":
			r.SenderID, ok = v.String()
		case "businessId":
			r.BusinessID, ok = v.String()
		case "recipientId":
			r.RecipientID, ok = v.String()
		case "controlRef":
			r.ControlRef, ok = v.String()
		case "docNumbers":
			r.DocNumbers, ok = v.Strings()
		case "n":
			var n int64
			n, ok = v.Int()
			r.N = int(n)
			ok = ok && int64(r.N) == n
		case "httpStatus":
			var n int64
			n, ok = v.Int()
			r.HTTPStatus = int(n)
			ok = ok && int64(r.HTTPStatus) == n
		case "uploadId":
			r.UploadID, ok = v.String()
		case "interchangeId":
			r.InterchangeID, ok = v.String()
		case "status":
			r.Status, ok = v.String()
		case "replay":
			r.Replay, ok = v.Bool()
		case "errorCode":
			r.ErrorCode, ok = v.String()
		case "correlationId":
			r.CorrelationID, ok = v.String()
		case "fixes":
			r.Fixes, ok = v.String()
		case "buyerId":
			r.BuyerID, ok = v.String()
		case "supplierId":
			r.SupplierID, ok = v.String()
		}
		return ok
	})
}

// headField decodes the members of a history line's head (what
// RecentAttempts returns) into r; head is false for any other member.
func headField(r *UploadRecord, name []byte, v jsonline.Value) (ok, head bool) {
	switch string(name) {
	case "time":
		r.Time, ok = v.Time()
	case "connectionId":
		r.ConnectionID, ok = v.String()
	case "file":
		r.File, ok = v.String()
	case "sha256":
		r.SHA256, ok = v.String()
	case "key":
		r.Key, ok = v.String()
	case "outcome":
		var o string
		o, ok = v.String()
		r.Outcome = Outcome(o)
	default:
		return false, false
	}
	return ok, true
}

// recordField reports whether name is the JSON name of a field of
// UploadRecord.
func recordField(name string) bool {
	switch name {
	case "time", "serverTime", "connectionId", "file", "size", "sha256", "key", "senderId", "businessId", "recipientId",
		"controlRef", "docNumbers", "n", "outcome", "httpStatus", "uploadId", "interchangeId", "status", "replay",
		"errorCode", "correlationId", "fixes", "buyerId", "supplierId":
		return true
	}
	return false
}

// skippedField reports whether v is a value json.Unmarshal takes for
// UploadRecord's field name (read without being kept).
func skippedField(name string, v jsonline.Value) bool {
	if v.Null() {
		return recordField(name)
	}
	switch name {
	case "size", "n", "httpStatus":
		n, ok := v.Int()
		return ok && (name == "size" || int64(int(n)) == n)
	case "replay":
		_, ok := v.Bool()
		return ok
	case "docNumbers":
		_, ok := v.Strings()
		return ok
	case "time", "serverTime":
		_, ok := v.Time()
		return ok
	}
	return recordField(name) && v.IsString()
}
