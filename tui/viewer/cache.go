package viewer

import (
	"sort"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/edi/pin"
)

// cache holds what the viewer computes once per source and reuses across
// frames: segment names per message and tag, message headlines, the
// segments with issues, and the description of the selected segment. It
// is shared (by pointer) by the copies of a Model, all on the UI
// goroutine; only what is on screen is ever put in it.
type cache struct {
	names    map[nameKey]string
	messages map[int]messageInfo

	bySeg []int32 // indexes into Document.Issues, by segment

	pins      []pin.Pin     // the partner's errors pinned on the document
	pinsBySeg map[int][]int // indexes into pins, by segment

	descIndex int
	desc      edi.SegmentInfo
}

type nameKey struct {
	scope int // message index, or -1-interchange index outside messages
	tag   string
}

func newCache() *cache {
	return &cache{names: map[nameKey]string{}, messages: map[int]messageInfo{}, descIndex: -1}
}

// indexIssues orders the issues by segment (once per source), so a row
// finds its issues by binary search instead of a walk over all of them.
func (c *cache) indexIssues(doc *edi.Document) {
	issues := doc.Issues()
	c.bySeg = make([]int32, 0, len(issues))
	for k, is := range issues {
		if is.Segment >= 0 {
			c.bySeg = append(c.bySeg, int32(k))
		}
	}
	sort.SliceStable(c.bySeg, func(a, b int) bool { return issues[c.bySeg[a]].Segment < issues[c.bySeg[b]].Segment })
}

// issuesOf returns the indexes (into doc.Issues) of segment i's issues.
func (c *cache) issuesOf(doc *edi.Document, i int) []int32 {
	issues := doc.Issues()
	lo := sort.Search(len(c.bySeg), func(k int) bool { return issues[c.bySeg[k]].Segment >= i })
	hi := lo
	for hi < len(c.bySeg) && issues[c.bySeg[hi]].Segment == i {
		hi++
	}
	return c.bySeg[lo:hi]
}

// severityOf is the worst severity of segment i's issues, 0 for none.
func (c *cache) severityOf(doc *edi.Document, i int) edi.Severity {
	var worst edi.Severity
	for _, k := range c.issuesOf(doc, i) {
		if s := doc.Issues()[k].Severity; worst == 0 || s < worst { // SeverityError < SeverityWarning
			worst = s
		}
	}
	return worst
}

// name is the directory name of segment s (read from the bytes only for a
// malformed tag).
func (c *cache) name(doc *edi.Document, s edi.Segment) string {
	k := nameKey{scope: s.Message(), tag: s.Tag()}
	if k.scope < 0 {
		k.scope = -1 - doc.InterchangeOf(s.Index())
	}
	name, ok := c.names[k]
	if !ok {
		name = s.Name()
		c.names[k] = name
	}
	return name
}

// message is what the header shows of message k: its summary in words,
// and whether it is a CONTRL that rejects. Reading a summary reads the
// message's segments (120k LINs in the 16 MiB file), so it happens once
// per message, when the cursor first enters it.
func (c *cache) message(doc *edi.Document, k int) messageInfo {
	info, ok := c.messages[k]
	if !ok {
		msg := &doc.Messages[k]
		s := msg.Summary()
		info.headline = explain.HeadlineOf(msg, s)
		info.rejects = s != nil && s.Contrl != nil && answers.ContrlRejects(s.Contrl)
		c.messages[k] = info
	}
	return info
}

// messageInfo is the header's view of one message.
type messageInfo struct {
	headline string
	rejects  bool
}

// describe is doc.Describe(i), kept for the selected segment.
func (c *cache) describe(doc *edi.Document, i int) edi.SegmentInfo {
	if c.descIndex != i {
		c.desc, c.descIndex = doc.Describe(i), i
	}
	return c.desc
}
