package edigen

import "strconv"

// UCI/UCM action codes (0083).
const (
	ActionRejected     = "4"
	ActionAcknowledged = "7"
	ActionReceived     = "8"
)

// Contrl is a syntax and service report about one received interchange.
type Contrl struct {
	Ref string // UNH reference; "" means "1"
	// The subject interchange as its UNB named it.
	InterchangeRef string
	Sender         string
	SenderQual     string // "" means "14"
	Recipient      string
	RecipientQual  string // "" means "14"
	Action         string // ActionAcknowledged, ActionRejected or ActionReceived
	Error          string // UCI 0085, an interchange-level syntax error code
	Messages       []ContrlMessage
}

// ContrlMessage reports on one message of the subject interchange (UCM).
type ContrlMessage struct {
	Ref      string // 0062 of the subject message
	Type     string // e.g. ORDERS
	Version  string // e.g. D
	Release  string // e.g. 96A
	Agency   string // e.g. UN
	Assoc    string // association code, optional
	Action   string
	Error    string // UCM 0085
	Segments []ContrlSegment
}

// ContrlSegment points at an erroneous segment (UCS) and its elements
// (UCD).
type ContrlSegment struct {
	Position int    // 0096: position in the message, UNH = 1
	Error    string // UCS 0085, optional when elements carry the error
	Elements []ContrlElement
}

// ContrlElement is one erroneous data element (UCD).
type ContrlElement struct {
	Error     string // 0085
	Position  int    // 0098: element position in the segment
	Component int    // 0104: component position, 0 for none
}

// ContrlMsg writes one interchange with one CONTRL: CONTRL:2:2:UN under
// syntax version 3, CONTRL:4:1:UN under syntax version 4 (env.Syntax).
func ContrlMsg(env Envelope, c Contrl) []byte {
	if env.Syntax != 4 {
		env.Syntax = 3
	}
	b := newBuilder(env.Syntax, true)
	b.unb(env)
	ref := c.Ref
	if ref == "" {
		ref = "1"
	}
	if env.Syntax == 4 {
		b.unh(ref, "CONTRL", "4", "1", "UN")
	} else {
		b.unh(ref, "CONTRL", "2", "2", "UN")
	}
	b.seg("UCI", e(c.InterchangeRef), e(c.Sender, orDefault(c.SenderQual, "14")),
		e(c.Recipient, orDefault(c.RecipientQual, "14")), e(c.Action), e(c.Error))
	for _, m := range c.Messages {
		b.seg("UCM", e(m.Ref), e(m.Type, m.Version, m.Release, m.Agency, m.Assoc), e(m.Action), e(m.Error))
		for _, s := range m.Segments {
			b.seg("UCS", e(strconv.Itoa(s.Position)), e(s.Error))
			for _, d := range s.Elements {
				pos := e(strconv.Itoa(d.Position))
				if d.Component > 0 {
					pos = append(pos, strconv.Itoa(d.Component))
				}
				b.seg("UCD", e(d.Error), pos)
			}
		}
	}
	b.unt()
	return b.unz(env.ControlRef)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
