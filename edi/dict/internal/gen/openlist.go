package main

import "regexp"

// Which code lists are closed. D.96A has no open/closed column: its TRED
// says in an element's Note when the codes come from elsewhere ("User or
// association defined code", "Use ISO 3166 ...", "Use UN/ECE
// Recommendation No. 16", "national code sets", "May be used in
// combination with 1131/3055", "Code values to be provided", ...). A list
// is closed when UNCL/UNSL has codes for the element and its Note says
// none of that; everything else is open, and an unknown code in it is
// not reported. D.24A's XML carries no such notes, so all its lists count
// as open (names only). For the service directories, the message and
// syntax identifiers (0001, 0002, 0051, 0052, 0054, 0065) are open: Parse checks
// them itself and names unknown ones in a note instead.
var reOpenNote = regexp.MustCompile(`(?i)user or association|association defined|\bISO \d|UN/ECE Recommendation|national (code|authority)|external code|1131/3055|1131 and 3055|relevant code|organisation concerned|code set|code values to be provided|no code values|no international codes`)

// openServiceLists are the service elements whose lists are not checked.
var openServiceLists = map[string]bool{"0001": true, "0002": true, "0051": true, "0052": true, "0054": true, "0065": true}

// markOpenD96A marks the D.96A lists that are open by their TRED note, and
// the service identifiers.
func markOpenD96A(d *directory) {
	for id := range d.codes {
		if e, ok := d.elements[id]; ok && e.note != "" && reOpenNote.MatchString(e.note) {
			d.open[id] = true
		}
		if openServiceLists[id] {
			d.open[id] = true
		}
	}
}

// markAllOpen marks every list of d open (a source without notes).
func markAllOpen(d *directory) {
	for id := range d.codes {
		d.open[id] = true
	}
}

// markOpenService marks the service identifiers open.
func markOpenService(d *directory) {
	for id := range d.codes {
		if openServiceLists[id] {
			d.open[id] = true
		}
	}
}
