// Package explain puts what edi found into words for people: the
// validation verdict, a message's summary in one line ("CONTRL for
// interchange 4711: REJECTED, 2 errors"), codes with their names, parties,
// dates and the element breakdown of a segment. `b2bx parse` and the
// segment viewer both print through it, so the two faces say the same
// thing the same way.
//
// Every function returns text safe for a terminal: values from the data go
// through termsafe, directory text is trusted. It imports no UI package.
package explain

import (
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/dict"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// safe sanitises one value from the data.
func safe(s string) string { return termsafe.String(s) }

// Coded shows a code and its directory name: "220 Order", or the code
// alone when the directory does not name it.
func Coded(c edi.Coded) string {
	if c.Name == "" {
		return safe(c.Code)
	}
	return safe(c.Code) + " " + c.Name
}

// CodedOr is Coded, or alt for an empty code.
func CodedOr(c edi.Coded, alt string) string {
	if c.Code == "" {
		return alt
	}
	return Coded(c)
}

// Party shows an interchange party (UNB/UNG) with its qualifier's name
// from the service directory of the syntax version (0007: 14 is GS1):
// "4012345000009 (qualifier 14 GS1)".
func Party(syntaxVersion int, p edi.Party) string {
	s := safe(p.ID)
	if p.Qualifier != "" {
		s += " (qualifier " + safe(p.Qualifier)
		if name, ok := dict.CodeName(dict.ServiceDirectory(syntaxVersion), "0007", p.Qualifier); ok {
			s += " " + name
		}
		s += ")"
	}
	if p.Routing != "" {
		s += " routing " + safe(p.Routing)
	}
	return s
}

// PartyID shows a summary's sender or recipient: "4012345000009 (14 GS1)".
func PartyID(p edi.PartyID) string {
	s := safe(p.ID)
	if p.Qualifier.Code != "" {
		s += " (" + Coded(p.Qualifier) + ")"
	}
	return s
}

// PartySummary shows a header NAD: role, id, GLN or agency, and the
// name and address parts there are.
func PartySummary(p edi.PartySummary) string {
	s := Coded(p.Role) + ": " + safe(p.ID)
	switch {
	case p.GLN:
		s += " (GLN)"
	case p.Agency.Code != "":
		s += " (agency " + Coded(p.Agency) + ")"
	}
	for _, v := range []string{p.Name, p.Street, p.City, p.Country} {
		if v != "" {
			s += ", " + safe(v)
		}
	}
	return s
}

// Date shows a DTM: the ISO date when edi understands the format, with
// qualifier and format: "2025-03-12  (137 Document/message date/time,
// format 102 CCYYMMDD, as written 20250312)".
func Date(d edi.DateTime) string {
	v := safe(d.Value)
	if d.ISO != "" {
		v = d.ISO
	}
	parts := []string{Coded(d.Qualifier)}
	if d.Format.Code != "" {
		parts = append(parts, "format "+Coded(d.Format))
	}
	if d.ISO != "" {
		parts = append(parts, "as written "+safe(d.Value))
	}
	return v + "  (" + strings.Join(parts, ", ") + ")"
}

// Action shows a CONTRL action code with its verdict word: "4 rejected
// (This level and all lower levels rejected)".
func Action(a edi.Coded, verdict string) string {
	if a.Code == "" {
		return "no action code"
	}
	if verdict == "" {
		return Coded(a)
	}
	text := safe(a.Code) + " " + verdict
	if a.Name != "" {
		text += " (" + a.Name + ")"
	}
	return text
}

// ContrlError shows a CONTRL level's syntax error with its place, "" when
// the level reports none.
func ContrlError(e edi.ContrlError) string {
	if !hasContrlError(e) {
		return ""
	}
	text := "error"
	if e.SyntaxError != nil {
		text += " " + Coded(*e.SyntaxError)
	}
	if e.ServiceSegment != "" {
		text += " in " + safe(e.ServiceSegment)
	}
	if e.Element != nil {
		text += " element " + Position(*e.Element)
	}
	return text
}

func hasContrlError(e edi.ContrlError) bool {
	return e.SyntaxError != nil || e.ServiceSegment != "" || e.Element != nil
}

// Position shows an S011 position as element[:component][*occurrence].
func Position(p edi.ElementPosition) string {
	s := strconv.Itoa(p.Element)
	if p.Component > 0 {
		s += ":" + strconv.Itoa(p.Component)
	}
	if p.Occurrence > 0 {
		s += "*" + strconv.Itoa(p.Occurrence)
	}
	return s
}
