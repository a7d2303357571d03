package edi

import "fmt"

// The Partner API contract's version rules (CONTRACT.md, "Message
// versions"): ORDERS, ORDRSP and APERAK are in directory D.96A or D.25A,
// the one of the connection's activated profile revision; CONTRL is
// service message 2:2 under syntax version 3 and 4:1 under syntax
// version 4. A message that breaks them is a contract finding: the
// partner (or the platform) may reject it, or b2bx may read it wrongly.

// ContractDirectories are the directories the contract allows.
var ContractDirectories = []string{"D.96A", "D.25A"}

// ContractFinding is one message that breaks the contract's version
// rules. Text may quote the data: sanitise it for display.
type ContractFinding struct {
	Message int    // index in Document.Messages
	Segment int    // the UNH
	Type    string // the message type, e.g. "ORDRSP"
	Text    string // what is wrong and what the contract says
}

// DirectoryName is the message's directory as the contract writes it:
// "D.96A" from UNH S009 0052 "D" and 0054 "96A".
func (m *Message) DirectoryName() string { return m.Version + "." + m.Release }

// ContractFindings checks every message of doc against the version rules;
// directory is the connection's ("D.96A" or "D.25A"), or "" when it is
// not known, which lets both of the contract's directories pass.
func ContractFindings(doc *Document, directory string) []ContractFinding {
	var out []ContractFinding
	for k := range doc.Messages {
		m := &doc.Messages[k]
		if text := contractProblem(doc, m, directory); text != "" {
			out = append(out, ContractFinding{Message: k, Segment: m.First, Type: m.Type, Text: text})
		}
	}
	return out
}

func contractProblem(doc *Document, m *Message, directory string) string {
	switch m.Type {
	case "ORDERS", "ORDRSP", "APERAK":
		if m.Version == "D" && (directory == "" && (m.Release == "96A" || m.Release == "25A") || directory == "D."+m.Release) {
			return "" // the common case, without building the name
		}
		dir := m.DirectoryName()
		switch {
		case dir != ContractDirectories[0] && dir != ContractDirectories[1]:
			return fmt.Sprintf("%s %q is in directory %s; the Partner API exchanges %s in D.96A or D.25A only (the connection's profile revision)", m.Type, m.Ref, dir, m.Type)
		case directory != "" && dir != directory:
			return fmt.Sprintf("%s %q is in directory %s, but this connection's profile revision is %s (the profile's directory): the partner expects %s in %s", m.Type, m.Ref, dir, directory, m.Type, directory)
		}
	case "CONTRL":
		syntax := doc.syntaxOf(m)
		v := m.Version + ":" + m.Release
		switch {
		case syntax == 4 && v != "4:1":
			return fmt.Sprintf("CONTRL %q is version %s under syntax version 4; the contract's CONTRL is 4:1 under syntax version 4", m.Ref, v)
		case syntax != 4 && syntax != 0 && v != "2:2":
			return fmt.Sprintf("CONTRL %q is version %s under syntax version %d; the contract's CONTRL is 2:2 under syntax version 3", m.Ref, v, syntax)
		}
	}
	return ""
}
