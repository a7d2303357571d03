package main

// Hand-written service definitions. The service XML lists segments with
// their composites, but not the components of the service composites
// (S001...S020), and names only the coded simple elements. The component
// lists, names and representations below follow ISO 9735 version 3
// (1988 with amendment 1, 1992) and ISO 9735-2:2002 (version 4); they were
// checked against the D.96A syntax text (PART4 D422), the UNSL code list
// names and the StAEDI syntax schemas (v3.xml, v4r01.xml).

// svcComp is one component of a service composite.
type svcComp struct {
	id        string
	mandatory bool
}

// svcComposite is a service composite: its name (empty: keep the XML's)
// and components.
type svcComposite struct {
	name  string
	comps []svcComp
}

// svcElem names a service simple element and gives its representation.
type svcElem struct {
	name string
	repr string
}

const (
	m = true  // mandatory
	c = false // conditional
)

var service3Composites = map[string]svcComposite{
	"S001": {"", []svcComp{{"0001", m}, {"0002", m}}},
	"S002": {"", []svcComp{{"0004", m}, {"0007", c}, {"0008", c}}},
	"S003": {"", []svcComp{{"0010", m}, {"0007", c}, {"0014", c}}},
	"S004": {"Date/time of preparation", []svcComp{{"0017", m}, {"0019", m}}},
	"S005": {"Recipient's reference/password", []svcComp{{"0022", m}, {"0025", c}}},
	"S006": {"Application sender's identification", []svcComp{{"0040", m}, {"0007", c}}},
	"S007": {"Application recipient's identification", []svcComp{{"0044", m}, {"0007", c}}},
	"S008": {"", []svcComp{{"0052", m}, {"0054", m}, {"0057", c}}},
	"S009": {"", []svcComp{{"0065", m}, {"0052", m}, {"0054", m}, {"0051", m}, {"0057", c}}},
	"S010": {"", []svcComp{{"0070", m}, {"0073", c}}},
	"S011": {"", []svcComp{{"0098", m}, {"0104", c}}},
}

var service4Composites = map[string]svcComposite{
	"S001": {"", []svcComp{{"0001", m}, {"0002", m}, {"0080", c}, {"0133", c}, {"0076", c}}},
	"S002": {"", []svcComp{{"0004", m}, {"0007", c}, {"0008", c}, {"0042", c}}},
	"S003": {"", []svcComp{{"0010", m}, {"0007", c}, {"0014", c}, {"0046", c}}},
	"S004": {"", []svcComp{{"0017", m}, {"0019", m}}},
	"S005": {"Recipient reference/password details", []svcComp{{"0022", m}, {"0025", c}}},
	"S006": {"", []svcComp{{"0040", m}, {"0007", c}}},
	"S007": {"", []svcComp{{"0044", m}, {"0007", c}}},
	"S008": {"", []svcComp{{"0052", m}, {"0054", m}, {"0057", c}}},
	"S009": {"", []svcComp{{"0065", m}, {"0052", m}, {"0054", m}, {"0051", m}, {"0057", c}, {"0110", c}, {"0113", c}}},
	"S010": {"", []svcComp{{"0070", m}, {"0073", c}}},
	"S011": {"", []svcComp{{"0098", m}, {"0104", c}, {"0136", c}}},
	"S016": {"", []svcComp{{"0115", m}, {"0116", c}, {"0118", c}, {"0051", c}}},
	"S017": {"", []svcComp{{"0121", m}, {"0122", c}, {"0124", c}, {"0051", c}}},
	"S018": {"", []svcComp{{"0127", m}, {"0128", c}, {"0130", c}, {"0051", c}}},
	"S020": {"", []svcComp{{"0813", m}, {"0802", m}}},
}

// service3Elements overrides or supplies names and representations for
// syntax version 3. Fixed lengths (a4, n6...) are lost in the XML, which
// only gives maximum lengths.
var service3Elements = map[string]svcElem{
	"0001": {"Syntax identifier", "a4"},
	"0002": {"Syntax version number", "n1"},
	"0004": {"Sender identification", "an..35"},
	"0007": {"Partner identification code qualifier", "an..4"},
	"0008": {"Address for reverse routing", "an..14"},
	"0010": {"Recipient identification", "an..35"},
	"0014": {"Routing address", "an..14"},
	"0017": {"Date", "n6"},
	"0019": {"Time", "n4"},
	"0022": {"Recipient's reference/password", "an..14"},
	"0025": {"Recipient's reference/password qualifier", "an2"},
	"0029": {"Processing priority code", "a1"},
	"0031": {"Acknowledgement request", "n1"},
	"0032": {"Communications agreement identification", "an..35"},
	"0035": {"Test indicator", "n1"},
	"0040": {"Application sender's identification", "an..35"},
	"0044": {"Application recipient's identification", "an..35"},
	"0051": {"Controlling agency", "an..2"},
	"0052": {"Message version number", "an..3"},
	"0054": {"Message release number", "an..3"},
	"0057": {"Association assigned code", "an..6"},
	"0065": {"Message type identifier", "an..6"},
	"0070": {"Sequence message transfer number", "n..2"},
	"0073": {"First/last sequence message transfer indication", "a1"},
	"0081": {"Section identification", "a1"},
	"0083": {"Action, coded", "an..3"},
	"0085": {"Syntax error, coded", "an..3"},
	"0098": {"Erroneous data element position in segment", "n..3"},
	"0104": {"Erroneous component data element position", "n..3"},
}

// service4Elements is the same for syntax version 4.
var service4Elements = map[string]svcElem{
	"0001": {"Syntax identifier", "a4"},
	"0002": {"Syntax version number", "an1"},
	"0004": {"Interchange sender identification", "an..35"},
	"0007": {"Identification code qualifier", "an..4"},
	"0008": {"Interchange sender internal identification", "an..35"},
	"0010": {"Interchange recipient identification", "an..35"},
	"0014": {"Interchange recipient internal identification", "an..35"},
	"0017": {"Date", "n8"},
	"0019": {"Time", "n4"},
	"0022": {"Recipient reference/password", "an..14"},
	"0025": {"Recipient reference/password qualifier", "an2"},
	"0029": {"Processing priority code", "a1"},
	"0031": {"Acknowledgement request", "n1"},
	"0035": {"Test indicator", "n1"},
	"0038": {"Message group identification", "an..6"},
	"0040": {"Application sender identification", "an..35"},
	"0042": {"Interchange sender internal sub-identification", "an..35"},
	"0044": {"Application recipient identification", "an..35"},
	"0046": {"Interchange recipient internal sub-identification", "an..35"},
	"0051": {"Controlling agency, coded", "an..3"},
	"0052": {"Message version number", "an..3"},
	"0054": {"Message release number", "an..3"},
	"0057": {"Association assigned code", "an..6"},
	"0065": {"Message type", "an..6"},
	"0070": {"Sequence of transfers", "n..2"},
	"0073": {"First and last transfer", "a1"},
	"0076": {"Syntax release number", "an2"},
	"0080": {"Service code list directory version number", "an..6"},
	"0081": {"Section identification", "a1"},
	"0083": {"Action, coded", "an..3"},
	"0085": {"Syntax error, coded", "an..3"},
	"0098": {"Erroneous data element position in segment", "n..3"},
	"0104": {"Erroneous component data element position", "n..3"},
	"0110": {"Code list directory version number", "an..6"},
	"0113": {"Message type sub-function identification", "an..6"},
	"0115": {"Message subset identification", "an..14"},
	"0116": {"Message subset version number", "an..3"},
	"0118": {"Message subset release number", "an..3"},
	"0121": {"Message implementation guideline identification", "an..14"},
	"0122": {"Message implementation guideline version number", "an..3"},
	"0124": {"Message implementation guideline release number", "an..3"},
	"0127": {"Scenario identification", "an..14"},
	"0128": {"Scenario version number", "an..3"},
	"0130": {"Scenario release number", "an..3"},
	"0133": {"Character encoding, coded", "an..3"},
	"0136": {"Erroneous data element occurrence", "n..6"},
	"0802": {"Reference identification number", "an..35"},
	"0813": {"Reference qualifier", "an..3"},
}

// contrlStructure is the CONTRL message of ISO 9735 (syntax 3: CONTRL
// 2:2 / D:3, syntax 4: CONTRL 4:1); both versions share it. The service
// XML nests SG3 inside SG2, which is wrong: the functional group responses
// (SG3, UCF) are siblings of the message responses (SG1, UCM).
func contrlStructure() []*node {
	seg := func(tag string, mand bool, max int) *node { return &node{tag: tag, mandatory: mand, max: max} }
	grp := func(n, max int, kids ...*node) *node { return &node{group: n, max: max, children: kids} }
	return []*node{
		seg("UNH", m, 1),
		seg("UCI", m, 1),
		grp(1, 999999,
			seg("UCM", m, 1),
			grp(2, 999, seg("UCS", m, 1), seg("UCD", c, 99))),
		grp(3, 999999,
			seg("UCF", m, 1),
			grp(4, 999999,
				seg("UCM", m, 1),
				grp(5, 999, seg("UCS", m, 1), seg("UCD", c, 99)))),
		seg("UNT", m, 1),
	}
}
