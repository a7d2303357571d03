package events

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ValidGLN reports whether s is a GS1 Global Location Number: 13 digits
// whose last is the GS1 mod-10 check digit of the first 12.
func ValidGLN(s string) bool {
	want, ok := glnCheckDigit(s)
	return ok && s[12] == want
}

// glnCheckDigit returns the check digit s should end with, when s is 13
// ASCII digits.
func glnCheckDigit(s string) (byte, bool) {
	if len(s) != 13 {
		return 0, false
	}
	sum := 0
	for i := 0; i < 13; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if i == 12 {
			break
		}
		// Weights 1,3,1,3… from the left for 12 data digits equal the
		// GS1 rule of 3,1,3… from the right.
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += int(c-'0') * w
	}
	return byte('0' + (10-sum%10)%10), true
}

// checkParties flags a sender or receiver that is meant as a GLN (13
// digits) but has a wrong check digit: a typo that routes nowhere.
func (c *checker) checkParties(ev *Event) {
	for _, p := range []struct{ field, v string }{{"sender", ev.Sender}, {"receiver", ev.Receiver}} {
		if want, ok := glnCheckDigit(p.v); ok && p.v[12] != want {
			c.add(SevWarning, CodeNotGLN, ev.Delivery, ev, p.field, "%s %s has 13 digits like a GLN but the GS1 check digit should be %c, not %c: check the number", p.field, p.v, want, p.v[12])
		}
	}
}

// checkKeyForm compares the idempotency key with the recommended form
// <sender GLN>:<business id>:<event>:<n>. The business id may itself
// contain ':' (the first and the last two parts are fixed). Deviations
// are warnings: the form is a recommendation, uniqueness is the rule.
func (c *checker) checkKeyForm(ev *Event) {
	k := ev.IdempotencyKey
	if k == "" {
		return
	}
	parts := strings.Split(k, ":")
	var dev []string
	if len(parts) < 4 {
		dev = append(dev, fmt.Sprintf("it has %d ':'-separated parts, not 4", len(parts)))
	} else {
		gln, biz, evName, n := parts[0], strings.Join(parts[1:len(parts)-2], ":"), parts[len(parts)-2], parts[len(parts)-1]
		switch {
		case !ValidGLN(gln):
			dev = append(dev, fmt.Sprintf("the first part %q is not a GLN (13 digits with a valid GS1 check digit)", clip(gln, 20)))
		case ev.Sender != "" && gln != ev.Sender:
			dev = append(dev, fmt.Sprintf("the GLN %s is not the sender %s", gln, clip(ev.Sender, 40)))
		}
		if strings.TrimSpace(biz) == "" {
			dev = append(dev, "the business id is empty")
		}
		if evName == "" {
			dev = append(dev, "the event part is empty")
		} else if m := typeRE.FindStringSubmatch(ev.Type); m != nil && !strings.EqualFold(evName, m[2]) {
			dev = append(dev, fmt.Sprintf("the event part %q is not the event of type %s (%s)", clip(evName, 30), ev.Type, m[2]))
		}
		if v, err := strconv.ParseUint(n, 10, 63); err != nil || v < 1 || n[0] == '0' {
			dev = append(dev, fmt.Sprintf("the last part %q is not a counter n >= 1", clip(n, 20)))
		}
	}
	if len(dev) > 0 {
		c.add(SevWarning, CodeKeyForm, ev.Delivery, ev, "idempotencykey",
			"idempotency key %q deviates from the recommended <sender GLN>:<business id>:<event>:<n>: %s; it still works while it is unique per event",
			clip(k, 120), strings.Join(dev, "; "))
	}
}

// checkAttachments checks attachments[] at the top level and in data:
// each an object with doc_type, an https uri and the file's sha256.
func (c *checker) checkAttachments(ev *Event) {
	c.checkAttachmentList(ev, "attachments", ev.members["attachments"])
	if data, ok := ev.members["data"]; ok && len(data) > 0 && data[0] == '{' {
		var dm map[string]json.RawMessage
		if json.Unmarshal(data, &dm) == nil {
			c.checkAttachmentList(ev, "data.attachments", dm["attachments"])
		}
	}
}

func (c *checker) checkAttachmentList(ev *Event, field string, raw json.RawMessage) {
	if raw == nil || string(raw) == "null" {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		c.add(SevError, CodeAttachment, ev.Delivery, ev, field, "%s must be an array of {doc_type, uri, sha256}", field)
		return
	}
	for i, a := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		var m map[string]json.RawMessage
		if json.Unmarshal(a, &m) != nil || m == nil {
			c.add(SevError, CodeAttachment, ev.Delivery, ev, f, "an attachment must be an object {doc_type, uri, sha256}")
			continue
		}
		var probs []string
		if s, ok := stringMember(m, "doc_type"); !ok || strings.TrimSpace(s) == "" {
			probs = append(probs, "doc_type is missing or empty (e.g. CoA, certificate, bill_of_lading)")
		}
		if p := checkHTTPSURI(m); p != "" {
			probs = append(probs, p)
		}
		if s, ok := stringMember(m, "sha256"); !ok {
			probs = append(probs, "sha256 (hex SHA-256 of the file) is missing")
		} else if b, err := hex.DecodeString(s); err != nil || len(b) != 32 {
			probs = append(probs, fmt.Sprintf("sha256 %q is not 64 hexadecimal digits", clip(s, 70)))
		}
		if len(probs) > 0 {
			c.add(SevError, CodeAttachment, ev.Delivery, ev, f, "attachment: %s", strings.Join(probs, "; "))
		}
	}
}

// checkHTTPSURI returns a problem with the attachment's uri (or url), or "".
func checkHTTPSURI(m map[string]json.RawMessage) string {
	s, ok := stringMember(m, "uri")
	if !ok {
		if s, ok = stringMember(m, "url"); !ok {
			return "uri (an https:// address of the file) is missing"
		}
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "":
		return fmt.Sprintf("uri %q is not an absolute URL", clip(s, 80))
	case !strings.EqualFold(u.Scheme, "https"):
		return fmt.Sprintf("uri scheme is %q; attachments must be fetched over HTTPS", clip(u.Scheme, 20))
	case u.User != nil:
		return "uri carries a user name or password; put no credentials in an attachment URL"
	}
	return ""
}

// pdfMarkers are the ways a PDF shows up inside a JSON string: base64 (and
// base64url) of "%PDF-", a data: URI, the raw magic, hex of the magic.
var pdfMarkers = []string{"JVBERi0", "data:application/pdf", "%PDF-", "255044462d"}

const maxPDFFindings = 10

// checkInlinePDF looks at every string and member name of the event for
// an embedded PDF.
func (c *checker) checkInlinePDF(ev *Event) {
	if !mayHoldPDF(ev.raw) {
		return
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(ev.raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return
	}
	var paths []string
	walkStrings(v, "", func(path, s string) {
		if hasPDFMarker(s) {
			paths = append(paths, path)
		}
	})
	sort.Strings(paths)
	paths = slices.Compact(paths) // a member name and its value share a path
	for i, p := range paths {
		if i == maxPDFFindings {
			c.add(SevError, CodeInlinePDF, ev.Delivery, ev, "", "and %d more inline PDFs", len(paths)-maxPDFFindings)
			break
		}
		c.add(SevError, CodeInlinePDF, ev.Delivery, ev, p, "%s holds an inline PDF; never inline PDFs: upload the file and list it in attachments[] with doc_type, an HTTPS uri and its sha256", displayPath(p))
	}
}

// mayHoldPDF is a cheap pre-check on the raw bytes (case-insensitive for
// the data: URI and the hex form). A JSON escape can hide a marker from
// it (\u0025PDF-, data:application\/pdf), so any \u or \/ sends the event
// to the decoded walk.
func mayHoldPDF(raw []byte) bool {
	if bytes.Contains(raw, []byte("JVBERi0")) || bytes.Contains(raw, []byte("%PDF-")) || bytes.Contains(raw, []byte(`\u`)) || bytes.Contains(raw, []byte(`\/`)) {
		return true
	}
	l := bytes.ToLower(raw)
	return bytes.Contains(l, []byte("application/pdf")) || bytes.Contains(l, []byte("255044462d"))
}

func hasPDFMarker(s string) bool {
	if strings.Contains(s, pdfMarkers[0]) || strings.HasPrefix(s, pdfMarkers[2]) {
		return true
	}
	l := strings.ToLower(s)
	return strings.Contains(l, pdfMarkers[1]) || strings.HasPrefix(l, pdfMarkers[3])
}

// walkStrings calls f for every string value (and member name) in v with
// its JSON path.
func walkStrings(v any, path string, f func(path, s string)) {
	switch t := v.(type) {
	case string:
		f(path, t)
	case []any:
		for i, e := range t {
			walkStrings(e, fmt.Sprintf("%s[%d]", path, i), f)
		}
	case map[string]any:
		for k, e := range t {
			p := k
			if path != "" {
				p = path + "." + k
			}
			f(p, k)
			walkStrings(e, p, f)
		}
	}
}

func displayPath(p string) string {
	if p == "" {
		return "the event"
	}
	return p
}
