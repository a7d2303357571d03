package edi

import "fmt"

// Separators are the service characters of one interchange, from its UNA
// service string advice or from the defaults of its syntax level.
type Separators struct {
	Component  byte // component data element separator, ':' by default
	Element    byte // data element separator, '+' by default
	Decimal    byte // decimal mark, '.' by default
	Release    byte // release (escape) character, '?' by default; valid only when HasRelease
	Repetition byte // repetition separator (syntax 4), '*' by default; valid only when HasRepetition
	Segment    byte // segment terminator, '\'' by default

	HasRelease    bool // false for the UNOB control-character defaults, which have none
	HasRepetition bool // true only under syntax version 4 with a repetition separator
	FromUNA       bool // the characters were declared in a UNA segment
}

// DefaultSeparators are the printable defaults of ISO 9735 (UNOA and most
// levels): ":+.? '" with '*' as repetition separator from syntax version 4.
func DefaultSeparators(syntaxVersion int) Separators {
	s := Separators{
		Component: ':', Element: '+', Decimal: '.', Release: '?',
		Repetition: ' ', Segment: '\'', HasRelease: true,
	}
	if syntaxVersion >= 4 {
		s.Repetition, s.HasRepetition = '*', true
	}
	return s
}

// ControlSeparators are the level-B defaults without UNA: information
// separators IS1 0x1F between components, IS3 0x1D between elements, IS4
// 0x1C after segments and no release character; under syntax version 4,
// IS2 0x1E separates repetitions.
func ControlSeparators(syntaxVersion int) Separators {
	s := Separators{Component: 0x1F, Element: 0x1D, Decimal: '.', Segment: 0x1C, Repetition: ' '}
	if syntaxVersion >= 4 {
		s.Repetition, s.HasRepetition = 0x1E, true
	}
	return s
}

// isService reports whether c is one of the separators or the release
// character: the characters the release character may escape.
func (s *Separators) isService(c byte) bool {
	return c == s.Component || c == s.Element || c == s.Segment ||
		(s.HasRelease && c == s.Release) || (s.HasRepetition && c == s.Repetition)
}

// maybeTrailing reports whether c, the last byte of a segment, may be a
// trailing separator (see checkTrailingSeparator, which decides): the
// scanner's pre-filter. Repetition is compared even when unused, as the
// shape check's own pre-filter does.
func (s *Separators) maybeTrailing(c byte) bool {
	return c == s.Element || c == s.Component || c == s.Repetition
}

// String shows the separators in UNA order, e.g. `:+.? '`.
func (s Separators) String() string {
	rel, rep := byte(' '), byte(' ')
	if s.HasRelease {
		rel = s.Release
	}
	if s.HasRepetition {
		rep = s.Repetition
	}
	return string([]byte{s.Component, s.Element, s.Decimal, rel, rep, s.Segment})
}

// unaSeparators reads the six characters after "UNA". The repetition
// separator is decided later, when UNB tells the syntax version. It
// returns a problem description when the advice cannot be used as given;
// the advice is then repaired so that scanning stays well defined.
func unaSeparators(c []byte) (Separators, string) {
	s := Separators{
		Component: c[0], Element: c[1], Decimal: c[2], Release: c[3],
		Repetition: c[4], Segment: c[5], HasRelease: c[3] != ' ', FromUNA: true,
	}
	var problem string
	seps := []struct {
		name string
		c    byte
	}{{"component separator", s.Component}, {"element separator", s.Element}, {"segment terminator", s.Segment}}
	for i, a := range seps {
		if isAlnum(a.c) {
			problem = fmt.Sprintf("the %s %s is a letter or digit", a.name, charText(a.c))
		}
		for _, b := range seps[i+1:] {
			if a.c == b.c && problem == "" {
				problem = fmt.Sprintf("the %s and the %s are the same character %s", a.name, b.name, charText(a.c))
			}
		}
		if s.HasRelease && s.Release == a.c {
			// The release character cannot also separate: ignore it.
			problem = fmt.Sprintf("the release character %s is also the %s; it is ignored", charText(s.Release), a.name)
			s.HasRelease = false
		}
	}
	if problem == "" && s.Decimal != '.' && s.Decimal != ',' {
		problem = fmt.Sprintf(`the decimal mark %s is neither "." nor ","`, charText(s.Decimal))
	}
	return s, problem
}

// withRepetition fixes the repetition separator once the syntax version is
// known: syntax 4 uses UNA position 5 (unless it is a space, meaning none)
// or the level default; earlier versions reserve the position.
func (s Separators) withRepetition(version int, control bool) Separators {
	s.HasRepetition = false
	if version < 4 {
		return s
	}
	switch {
	case s.FromUNA:
		c := s.Repetition
		if c != ' ' && c != s.Component && c != s.Element && c != s.Segment && !(s.HasRelease && c == s.Release) {
			s.HasRepetition = true
		}
	case control:
		s.Repetition, s.HasRepetition = 0x1E, true
	default:
		s.Repetition, s.HasRepetition = '*', true
	}
	return s
}

func isAlnum(c byte) bool {
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
}

func isTagChar(c byte) bool { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') }

// dialect is everything needed to read the bytes of one interchange. It is
// comparable so that identical dialects are stored once per Document.
type dialect struct {
	seps    Separators
	charset Charset
	version int  // syntax version from UNB S001/0002; 0 when unknown
	crGap   bool // CR is not a service character: it is layout, never data
	lfGap   bool // LF likewise
}

func newDialect(s Separators, cs Charset, version int) dialect {
	d := dialect{seps: s, charset: cs, version: version, crGap: true, lfGap: true}
	if s.isService('\r') || s.Decimal == '\r' {
		d.crGap = false
	}
	if s.isService('\n') || s.Decimal == '\n' {
		d.lfGap = false
	}
	return d
}

// isLayout reports whether c is a line break that this dialect ignores.
func (d *dialect) isLayout(c byte) bool {
	return (c == '\n' && d.lfGap) || (c == '\r' && d.crGap)
}

// charText shows a separator or data byte inside an issue message: a
// printable character in double quotes (so the apostrophe reads "'"),
// anything else as hex (UNOB's 0x1C, a stray NUL).
func charText(c byte) string {
	switch {
	case c == '"':
		return `'"'`
	case c == ' ':
		return `" " (space)`
	case c > 0x20 && c < 0x7f:
		return `"` + string(rune(c)) + `"`
	default:
		return fmt.Sprintf("0x%02X", c)
	}
}
