// Package jsonline reads the plain JSON objects b2bx writes one per line
// (the upload history, the key state, the shape cache) without
// encoding/json's reflection: the pre-flight reads hundreds of such lines
// before every upload, and decoding them was most of its cost.
//
// It reads only what it can read exactly as encoding/json would: an
// object of members whose names have no escapes and whose values are
// strings without escapes, integers, booleans, null, or arrays of such
// strings. Anything else (an escape, a float, a nested object, invalid
// UTF-8, a control character) makes it say no, and the caller decodes
// that line with encoding/json, so the result is always encoding/json's.
package jsonline

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// Value is the raw JSON text of one member's value.
type Value struct {
	raw   []byte
	plain bool // raw is a string Fields checked (no escape, valid UTF-8)
}

// Fields calls fn for each member of the object b holds (surrounding
// white space allowed), in order; fn returns false to stop with false.
// Fields returns false when b is not an object this package reads.
func Fields(b []byte, fn func(name []byte, v Value) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		name, j, ok := plainString(b, i)
		if !ok {
			return false
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		end, ok := valueEnd(b, i)
		if !ok || !fn(name, Value{raw: b[i:end], plain: b[i] == '"'}) {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the string starting at b[i] when it has no escape,
// no control character and is valid UTF-8: its text and the index after
// its closing quote.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	q := bytes.IndexByte(b[i+1:], '"')
	if q < 0 {
		return nil, 0, false
	}
	s := b[i+1 : i+1+q]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, 0, false
	}
	ascii := true
	for k := 0; k < len(s); {
		if k+8 <= len(s) { // eight bytes at a time: any below 0x20 or from 0x80?
			w := binary.LittleEndian.Uint64(s[k:])
			if (w-0x2020202020202020)&^w&0x8080808080808080 == 0 && w&0x8080808080808080 == 0 {
				k += 8
				continue
			}
		}
		switch c := s[k]; {
		case c < 0x20:
			return nil, 0, false
		case c >= 0x80:
			ascii = false
		}
		k++
	}
	if !ascii && !utf8.Valid(s) {
		return nil, 0, false
	}
	return s, i + 2 + q, true
}

// valueEnd is the index after the value starting at b[i]: a plain
// string, an integer, true, false, null, or an array of plain strings.
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		_, j, ok := plainString(b, i)
		return j, ok
	case c == '-' || c >= '0' && c <= '9':
		j := i
		if b[j] == '-' {
			j++
		}
		start := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == start || (b[start] == '0' && j-start > 1) {
			return 0, false
		}
		if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
			return 0, false // not an integer: encoding/json decides
		}
		return j, true
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '[':
		j := skipSpace(b, i+1)
		if j < len(b) && b[j] == ']' {
			return j + 1, true
		}
		for {
			_, k, ok := plainString(b, j)
			if !ok {
				return 0, false
			}
			j = skipSpace(b, k)
			if j >= len(b) {
				return 0, false
			}
			switch b[j] {
			case ',':
				j = skipSpace(b, j+1)
			case ']':
				return j + 1, true
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// Null reports whether the value is null (encoding/json leaves the field
// as it was).
func (v Value) Null() bool { return string(v.raw) == "null" }

// IsString reports whether the value is a plain string (as String reads
// it, without making one).
func (v Value) IsString() bool {
	if v.plain {
		return true
	}
	_, end, ok := plainString(v.raw, 0)
	return ok && end == len(v.raw)
}

// String is the value of a plain string.
func (v Value) String() (string, bool) {
	if v.plain {
		return string(v.raw[1 : len(v.raw)-1]), true
	}
	s, end, ok := plainString(v.raw, 0)
	if !ok || end != len(v.raw) {
		return "", false
	}
	return string(s), true
}

// Int is the value of an integer that fits in 64 bits.
func (v Value) Int() (int64, bool) {
	if len(v.raw) == 0 || v.raw[0] != '-' && (v.raw[0] < '0' || v.raw[0] > '9') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v.raw), 10, 64)
	return n, err == nil
}

// Bool is the value of true or false.
func (v Value) Bool() (bool, bool) {
	switch string(v.raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Strings is the value of an array of plain strings (a non-nil empty
// slice for []).
func (v Value) Strings() ([]string, bool) {
	if len(v.raw) == 0 || v.raw[0] != '[' {
		return nil, false
	}
	out := []string{}
	for i := skipSpace(v.raw, 1); i < len(v.raw) && v.raw[i] == '"'; {
		s, j, _ := plainString(v.raw, i) // valueEnd checked the array
		out = append(out, string(s))
		i = skipSpace(v.raw, j)
		if i < len(v.raw) && v.raw[i] == ',' {
			i = skipSpace(v.raw, i+1)
		}
	}
	return out, true
}

// EachString calls fn with each string of an array of plain strings (the
// bytes are b's: copy what is kept); false when the value is not one.
func (v Value) EachString(fn func(s []byte)) bool {
	if len(v.raw) == 0 || v.raw[0] != '[' {
		return false
	}
	if _, ok := valueEnd(v.raw, 0); !ok {
		return false
	}
	for i := skipSpace(v.raw, 1); i < len(v.raw) && v.raw[i] == '"'; {
		s, j, _ := plainString(v.raw, i)
		fn(s)
		i = skipSpace(v.raw, j)
		if i < len(v.raw) && v.raw[i] == ',' {
			i = skipSpace(v.raw, i+1)
		}
	}
	return true
}

// Time is the value of a string time.Time's UnmarshalJSON takes (RFC
// 3339), as encoding/json decodes it.
func (v Value) Time() (time.Time, bool) {
	var t time.Time
	if len(v.raw) == 0 || v.raw[0] != '"' || t.UnmarshalJSON(v.raw) != nil {
		return time.Time{}, false
	}
	return t, true
}

// AppendString appends s as a JSON string: as it is, quoted, when
// Fields reads it back without escapes, else as encoding/json writes it.
func AppendString(b []byte, s string) []byte {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != '"' && s[i] != '\\'
	}
	if plain {
		return append(append(append(b, '"'), s...), '"')
	}
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
