package explain

import (
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
)

// ContrlReasons is what a CONTRL says about the answered interchange, one
// line per level, in words and sanitised: the interchange (UCI), each
// group (UCF) and message (UCM) with its action, each segment error (UCS)
// and data element error (UCD) under it. A plain acceptance is one line.
func ContrlReasons(c *edi.ContrlSummary) []string {
	var out []string
	line := "interchange " + safe(c.InterchangeRef) + ": " + Action(c.Action, c.Verdict)
	if t := ContrlError(c.ContrlError); t != "" {
		line += "; " + t
	}
	out = append(out, line)
	out = append(out, contrlMessageReasons("", c.Messages)...)
	for _, g := range c.Groups {
		line := "group " + safe(g.Ref) + ": " + Action(g.Action, g.Verdict)
		if t := ContrlError(g.ContrlError); t != "" {
			line += "; " + t
		}
		out = append(out, line)
		out = append(out, contrlMessageReasons("  ", g.Messages)...)
	}
	return out
}

func contrlMessageReasons(in string, ms []edi.ContrlMessage) []string {
	var out []string
	for _, m := range ms {
		line := fmt.Sprintf("%smessage %s (%s): %s", in, safe(m.Ref), safe(strings.Trim(m.Type+" "+m.Version+":"+m.Release, " :")), Action(m.Action, m.Verdict))
		if t := ContrlError(m.ContrlError); t != "" {
			line += "; " + t
		}
		out = append(out, line)
		for _, s := range m.Segments {
			text := fmt.Sprintf("%s  segment %d of the message", in, s.Position)
			if s.SyntaxError != nil {
				text += ": " + Coded(*s.SyntaxError)
			}
			out = append(out, text)
			for _, e := range s.Elements {
				text := in + "    element " + Position(e.Element)
				if e.SyntaxError != nil {
					text += ": " + Coded(*e.SyntaxError)
				}
				out = append(out, text)
			}
		}
	}
	return out
}
