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
		if text := doc.VersionOf(k).ContractProblem(directory); text != "" {
			out = append(out, ContractFinding{Message: k, Segment: m.First, Type: m.Type, Text: text})
		}
	}
	return out
}

// MessageVersion is what the contract's version rules read of one
// message, so they can be applied later (e.g. by the tracking index, for
// the directory of the connection a stored file belongs to) without the
// document.
type MessageVersion struct {
	Type    string `json:"t"`           // "ORDRSP"
	Ref     string `json:"m,omitempty"` // UNH 0062
	Version string `json:"v,omitempty"` // UNH S009 0052: "D", or "2"/"4" for a CONTRL
	Release string `json:"r,omitempty"` // UNH S009 0054: "96A", or "2"/"1" for a CONTRL
	Syntax  int    `json:"s,omitempty"` // the interchange's syntax version (0: not known)
	// Others counts the further messages of the same type and version
	// (DistinctVersions); their finding is this one's.
	Others int `json:"n,omitempty"`
}

// maxVersions bounds DistinctVersions.
const maxVersions = 8

// DistinctVersions are the distinct versions of doc's ORDERS, ORDRSP,
// APERAK and CONTRL messages (type, version, release, syntax), in order
// of first appearance, each with its first message's reference and how
// many Others share it; at most 8 (the rest are left out).
func DistinctVersions(doc *Document) []MessageVersion {
	var out []MessageVersion
next:
	for k := range doc.Messages {
		v := doc.VersionOf(k)
		switch v.Type {
		case "ORDERS", "ORDRSP", "APERAK", "CONTRL":
		default:
			continue
		}
		for i := range out {
			o := &out[i]
			if o.Type == v.Type && o.Version == v.Version && o.Release == v.Release && o.Syntax == v.Syntax {
				o.Others++
				continue next
			}
		}
		if len(out) < maxVersions {
			out = append(out, v)
		}
	}
	return out
}

// VersionFindings are the contract problems of versions (DistinctVersions)
// for the connection's directory, one per version that has one, with
// how many more messages share it. Texts may quote the data: sanitise.
func VersionFindings(versions []MessageVersion, directory string) []string {
	var out []string
	for _, v := range versions {
		text := v.ContractProblem(directory)
		if text == "" {
			continue
		}
		if v.Others > 0 {
			text += fmt.Sprintf(" (and %d more %s like it)", v.Others, v.Type)
		}
		out = append(out, text)
	}
	return out
}

// VersionOf is the version facts of message k of d.
func (d *Document) VersionOf(k int) MessageVersion {
	m := &d.Messages[k]
	v := MessageVersion{Type: m.Type, Ref: m.Ref, Version: m.Version, Release: m.Release}
	if m.Type == "CONTRL" {
		v.Syntax = d.syntaxOf(m)
	}
	return v
}

// ContractProblem is what is wrong with a message of version v under the
// contract's version rules for the connection's directory ("" when the
// directory is not known: both of the contract's pass), or "" when
// nothing is. Its text may quote the data: sanitise it for display.
func (v MessageVersion) ContractProblem(directory string) string {
	switch v.Type {
	case "ORDERS", "ORDRSP", "APERAK":
		if v.Version == "D" && (directory == "" && (v.Release == "96A" || v.Release == "25A") || directory == "D."+v.Release) {
			return "" // the common case, without building the name
		}
		dir := v.Version + "." + v.Release
		switch {
		case dir != ContractDirectories[0] && dir != ContractDirectories[1]:
			return fmt.Sprintf("%s %q is in directory %s; the Partner API exchanges %s in D.96A or D.25A only (the connection's profile revision)", v.Type, v.Ref, dir, v.Type)
		case directory != "" && dir != directory:
			return fmt.Sprintf("%s %q is in directory %s, but this connection's profile revision is %s (the profile's directory): the partner expects %s in %s", v.Type, v.Ref, dir, directory, v.Type, directory)
		}
	case "CONTRL":
		ver := v.Version + ":" + v.Release
		switch {
		case v.Syntax == 4 && ver != "4:1":
			return fmt.Sprintf("CONTRL %q is version %s under syntax version 4; the contract's CONTRL is 4:1 under syntax version 4", v.Ref, ver)
		case v.Syntax != 4 && v.Syntax != 0 && ver != "2:2":
			return fmt.Sprintf("CONTRL %q is version %s under syntax version %d; the contract's CONTRL is 2:2 under syntax version 3", v.Ref, ver, v.Syntax)
		}
	}
	return ""
}
