package track

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nutrab2b/b2bx/internal/who"
)

// Kind says what an indexed item is.
type Kind string

// The kinds of items.
const (
	KindDelivery Kind = "delivery" // a stored mailbox delivery (payload + sidecar)
	KindUpload   Kind = "upload"   // one upload attempt of the history (with the file sent)
	KindSeen     Kind = "seen"     // a mailbox state this machine saw but did not store (claimed, refused)
	KindEvent    Kind = "event"    // a webhook event of a capture the inspector read
)

// KeyKind names what a key value is. The query prefixes (po:, icr:, gln:,
// key:, id:, type:) select one kind; a bare word matches every kind but
// KeyConv.
type KeyKind string

// The key kinds.
const (
	KeyPO   KeyKind = "po"   // order number: ORDERS BGM 1004, RFF+ON of ORDRSP/APERAK, an event's subject
	KeyICR  KeyKind = "icr"  // interchange control reference (UNB 0020), or the one a CONTRL answers (UCI 0020)
	KeyGLN  KeyKind = "gln"  // UNB S002/S003 party IDs, NAD 3039
	KeyMsg  KeyKind = "msg"  // message reference (UNH 0062)
	KeyKey  KeyKind = "key"  // idempotency key
	KeyID   KeyKind = "id"   // delivery, upload, interchange, event, correlation and receipt IDs
	KeyType KeyKind = "type" // message type or event type
	KeyConv KeyKind = "conv" // conversation membership (internal): "po:<number>", "icr:<sender>:<ref>", "corr:<id>"
)

// Key is one searchable value of an item.
type Key struct {
	Kind  KeyKind
	Value string
}

// Item is one indexed thing. Text fields hold untrusted data as it was
// stored: sanitise before a terminal.
type Item struct {
	ID     int64     `json:"-"`
	Conn   string    `json:"connection"`       // connection ID
	Kind   Kind      `json:"kind"`             // delivery, upload, seen, event
	Ref    string    `json:"ref"`              // delivery attempt ID, idempotency key, event id
	Type   string    `json:"type,omitempty"`   // message type (ORDRSP, CONTRL...) or event type
	At     time.Time `json:"at"`               // when it happened (answer time, upload time, event time)
	State  string    `json:"state,omitempty"`  // acknowledged, stored, accepted, failed, refused, ...
	Status string    `json:"status,omitempty"` // the outcome in words ("CONTRL: rejected (2 errors)")
	Note   string    `json:"note,omitempty"`   // why the file could not be read fully, when it could not
	Path   string    `json:"path"`             // the file the item comes from (source of truth)
	Part   int       `json:"part,omitempty"`   // a delivery's part (see wideConvs): 1, 2, …; 0 the delivery or its head
	Detail string    `json:"-"`                // compact JSON the linking needs (see detail.go)
	By     who.Who   `json:"by,omitzero"`      // who stored or sent it (a team store's items); zero for this machine's
	IDs    *ItemIDs  `json:"ids,omitempty"`    // filled by Find: what a ticket quotes
	// Contract are a delivery's contract findings for its connection's
	// directory (Result.AddContractFindings); raw: sanitise for display.
	Contract []string `json:"contract,omitempty"`
	Keys     []Key    `json:"-"`
}

// maxKey bounds one key value: longer values (no EDIFACT reference is this
// long) are cut at a rune boundary so one hostile field cannot bloat the
// index.
const maxKey = 256

// norm is the form keys are stored and looked up in: trimmed, lower case,
// at most maxKey bytes, valid UTF-8 (NUL and invalid bytes kept as U+FFFD
// so they still match themselves but never end a C string).
func norm(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		s = strings.ToValidUTF8(s, "\uFFFD")
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if len(s) > maxKey {
		cut := maxKey
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// keySet collects an item's keys without duplicates or empty values.
type keySet struct {
	keys []Key
	seen map[Key]bool
}

// keySetLinear is how many keys a keySet compares one by one before it
// builds a map (most items have a handful; a wide delivery has many parts).
const keySetLinear = 16

func (k *keySet) add(kind KeyKind, values ...string) {
	for _, v := range values {
		v = norm(v)
		if v == "" {
			continue
		}
		key := Key{Kind: kind, Value: v}
		if k.has(key) {
			continue
		}
		k.keys = append(k.keys, key)
		if k.seen != nil {
			k.seen[key] = true
		} else if len(k.keys) > keySetLinear {
			k.seen = make(map[Key]bool, 2*len(k.keys))
			for _, have := range k.keys {
				k.seen[have] = true
			}
		}
	}
}

func (k *keySet) has(key Key) bool {
	if k.seen != nil {
		return k.seen[key]
	}
	for _, have := range k.keys {
		if have == key {
			return true
		}
	}
	return false
}

// Conversation keys: an order number, else an interchange (its sender and
// control reference), else a correlation ID.
func convPO(number string) string       { return "po:" + number }
func convICR(sender, ref string) string { return "icr:" + sender + ":" + ref }
func convCorr(id string) string         { return "corr:" + id }
