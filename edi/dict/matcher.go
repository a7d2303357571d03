package dict

import (
	"fmt"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// NoPath is the PathID of a segment that did not fit the structure.
const NoPath uint16 = 0xFFFF

// Step is the result of matching one segment.
type Step struct {
	// Path is the innermost group and tag, e.g. "SG2/NAD" or "BGM"; empty
	// when the segment does not fit the structure.
	Path string
	// PathID indexes Message.Entries (see Message.PathOf) for the full
	// nesting, e.g. "SG25/SG26/CCI"; NoPath when the segment does not fit.
	PathID uint16
	// Problems found at this segment, nil when there are none: the segment
	// itself is unexpected or repeated too often, or mandatory entries
	// were skipped to reach it.
	Problems []Problem
}

// Matcher follows the segments of one message through its structure, the
// way EDIFACT defines it: a group starts with its trigger segment, matching
// only moves forward, a segment repeats in place up to its maximum, and a
// segment that does not fit where the matcher stands is looked for later in
// the current group, then as the trigger of a new occurrence of the current
// group, then in the enclosing groups, innermost first (leaving the inner
// groups). A segment found nowhere is unexpected and the matcher stays
// where it was.
//
// A Matcher is not safe for concurrent use. Next does not allocate unless
// it reports a problem. For long messages use Fast with NextKey as its
// fallback: a move seen before from the same position costs a few
// nanoseconds.
type Matcher struct {
	msg    *Message
	frames []frame // frames[0] is the message level, then one per open group
	done   bool    // UNT matched
	ended  bool    // End called
	terse  bool    // problems without Message (see SetTerse)
	// memo caches, per current entry (index+1; 0 before UNH), the last
	// clean move the search found: where a tag led and that no mandatory
	// entry was skipped on the way. The frame stack is fully determined by
	// the current entry (each open group is an ancestor of it), so the
	// search result depends only on (current entry, tag) and stays valid
	// for every later message of the same structure.
	// Two moves per entry (most recent first) cover the usual
	// alternation, e.g. a line item that continues or a new one that
	// starts.
	memo [][2]move
	// Compact copies of what Fast reads per entry, so the hot path stays
	// in a few cache lines instead of touching the wide Entry structs.
	keys   []uint32
	maxRep []int32
	kinds  []uint8 // kindGroup, kindEnd
	// saved and trial hold matcher states for NextKeyAhead, allocated
	// once so that resynchronising costs no allocation.
	saved, trial state
}

// state is a copy of the matcher's position.
type state struct {
	frames      []frame
	done, ended bool
}

func (mt *Matcher) save(into *state) {
	into.frames = append(into.frames[:0], mt.frames...)
	into.done, into.ended = mt.done, mt.ended
}

func (mt *Matcher) restore(from *state) {
	mt.frames = append(mt.frames[:0], from.frames...)
	mt.done, mt.ended = from.done, from.ended
}

// Entry kinds for Fast.
const (
	kindGroup uint8 = 1 << iota // a segment group: entering it opens a frame
	kindEnd                     // UNT at message level: the message is done
)

// move is a memoised search result: tag key, target entry, the frame
// level it is found at, and whether it starts a new occurrence of that
// level's group.
type move struct {
	key    uint32
	idx    int32
	level  int16
	newRep bool
	set    bool
}

// frame is an open group (or the message level) and the position in it.
type frame struct {
	group   int32 // entry index of the group; -1 for the message level
	cur     int32 // entry index of the current child; -1 before the first
	reps    int32 // occurrences of the group so far
	count   int32 // occurrences of the current segment so far
	segOver bool  // TooManySegments reported for the current run
	grpOver bool  // TooManyGroups reported for this group
}

// NewMatcher returns a matcher positioned before the first segment (UNH).
func (m *Message) NewMatcher() *Matcher {
	n := len(m.Entries)
	mt := &Matcher{msg: m, frames: make([]frame, 1, m.maxDepth+1), memo: make([][2]move, n+1),
		keys: make([]uint32, n), maxRep: make([]int32, n), kinds: make([]uint8, n),
		saved: state{frames: make([]frame, 0, m.maxDepth+1)}, trial: state{frames: make([]frame, 0, m.maxDepth+1)}}
	for i := range m.Entries {
		e := &m.Entries[i]
		mt.keys[i], mt.maxRep[i] = e.key, int32(e.MaxRepeat)
		switch {
		case e.IsGroup():
			mt.kinds[i] = kindGroup
		case e.Depth == 0 && e.key == keyUNT:
			mt.kinds[i] = kindEnd
		}
	}
	mt.Reset()
	return mt
}

// Reset positions the matcher before UNH again, for the next message of the
// same type, without allocating.
func (mt *Matcher) Reset() {
	mt.frames = mt.frames[:1]
	mt.frames[0] = frame{group: -1, cur: -1}
	mt.done, mt.ended = false, false
}

// SetTerse makes the matcher report problems without their Message text
// (Kind, Tag, Group, Position and SyntaxError are still set), which keeps
// a message with a flood of problems cheap once the caller has shown
// enough of them. Reset does not change it.
func (mt *Matcher) SetTerse(terse bool) { mt.terse = terse }

// Message returns the structure the matcher follows.
func (mt *Matcher) Message() *Message { return mt.msg }

// Next matches the next segment of the message, UNH and UNT included.
func (mt *Matcher) Next(tag string) Step { return mt.next(tagKey(tag), tag) }

// NextKey is Next for a tag packed with PackTag: callers that hold the
// tag as bytes (edi's segment index) skip the string conversion. Keys of
// tags that are not three bytes long never match an entry.
func (mt *Matcher) NextKey(key uint32) Step { return mt.next(key, "") }

// PackTag packs a three-byte segment tag into the key NextKey takes.
func PackTag(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

// next matches one segment. tag is the caller's spelling for problem
// messages; "" means rebuild it from key (only on the problem path).
func (mt *Matcher) next(key uint32, tag string) Step {
	entries := mt.msg.Entries
	if mt.done || mt.ended {
		where := "after the end of the message"
		if mt.done {
			where = "after the message trailer UNT"
		}
		return Step{PathID: NoPath, Problems: []Problem{mt.unexpected(tagOf(key, tag), where)}}
	}
	top := len(mt.frames) - 1
	f := &mt.frames[top]
	// The top frame's current child is always a segment (or none yet).
	same := f.cur >= 0 && entries[f.cur].key == key
	if same && int(f.count) < entries[f.cur].MaxRepeat {
		f.count++
		return mt.step(int(f.cur), nil)
	}
	if m := mt.remembered(f.cur, key); m != nil {
		return mt.apply(int(m.level), int(m.idx), m.newRep, nil)
	}
	if level, idx, newRep, ok := mt.find(key); ok {
		problems := mt.skipped(level, idx, newRep)
		if problems == nil {
			slots := &mt.memo[f.cur+1]
			slots[1] = slots[0]
			slots[0] = move{key: key, idx: int32(idx), level: int16(level), newRep: newRep, set: true}
		}
		return mt.apply(level, idx, newRep, problems)
	}
	if same {
		f.count++
		var problems []Problem
		if !f.segOver {
			f.segOver = true
			problems = append(problems, mt.tooManySegments(int(f.cur), f.count))
		}
		return mt.step(int(f.cur), problems)
	}
	return Step{PathID: NoPath, Problems: []Problem{mt.unexpected(tagOf(key, tag), mt.afterText())}}
}

// aheadProbe is how many following segments NextKeyAhead tries.
const aheadProbe = 3

// NextKeyAhead is NextKey with resynchronisation: ahead holds the keys of
// the segments that follow (up to three are looked at). When the move for
// key skips mandatory entries, which is how one misplaced segment drags
// the matcher past everything that follows (a header MOA matched as the
// MOA after UNS makes every later LIN "unexpected"), the following
// segments are tried from the new position and from the old one; if they
// fit better from the old one, the segment is reported as unexpected
// instead, with the place the structure would have allowed it, and the
// matcher stays where it was. One mistake then gives one finding.
func (mt *Matcher) NextKeyAhead(key uint32, ahead []uint32) Step {
	if len(ahead) == 0 || mt.done || mt.ended {
		return mt.NextKey(key)
	}
	if len(ahead) > aheadProbe {
		ahead = ahead[:aheadProbe]
	}
	mt.save(&mt.saved)
	st := mt.NextKey(key)
	if !skippedMandatory(st.Problems) {
		return st
	}
	target := st.PathID
	mt.save(&mt.trial)
	terse := mt.terse
	mt.terse = true
	after := mt.probe(ahead)
	mt.restore(&mt.saved)
	before := mt.probe(ahead)
	mt.terse = terse
	if before <= after {
		mt.restore(&mt.trial)
		return st
	}
	mt.restore(&mt.saved)
	p := mt.unexpected(tagOf(key, ""), mt.afterText())
	if !mt.terse && target != NoPath {
		e := &mt.msg.Entries[target]
		p.Message = fmt.Sprintf("segment %s not allowed %s; the next place %s allows it is position %04d (%s), past mandatory %s, where the segments that follow do not fit: taken as misplaced",
			termsafe.String(tagOf(key, "")), mt.afterText(), mt.msg.Label, e.Position, e.FullPath, missingList(st.Problems))
	}
	return Step{PathID: NoPath, Problems: []Problem{p}}
}

// skippedMandatory reports whether a step skipped mandatory entries.
func skippedMandatory(ps []Problem) bool {
	for _, p := range ps {
		if p.Kind == MissingSegment || p.Kind == MissingGroup {
			return true
		}
	}
	return false
}

// missingList names the skipped entries of a step: "UNS (position 2090)".
func missingList(ps []Problem) string {
	out := ""
	for _, p := range ps {
		if p.Kind != MissingSegment && p.Kind != MissingGroup {
			continue
		}
		if out != "" {
			out += ", "
		}
		name := p.Tag
		if p.Kind == MissingGroup {
			name = p.Group + " (" + p.Tag + ")"
		}
		out += fmt.Sprintf("%s at %04d", name, p.Position)
	}
	return out
}

// probe counts how many of keys match one after the other without any
// problem, moving the matcher (the caller restores it).
func (mt *Matcher) probe(keys []uint32) int {
	for n, key := range keys {
		if _, ok := mt.Fast(key); ok {
			continue
		}
		if mt.done || mt.ended {
			return n
		}
		f := &mt.frames[len(mt.frames)-1]
		if f.cur >= 0 && mt.keys[f.cur] == key && f.count < mt.maxRep[f.cur] {
			f.count++
			continue
		}
		level, idx, newRep, ok := mt.find(key)
		if !ok || mt.skipped(level, idx, newRep) != nil {
			return n
		}
		if st := mt.apply(level, idx, newRep, nil); st.Problems != nil {
			return n
		}
	}
	return len(keys)
}

// Fast is the cheap path of NextKey for the common case: the segment
// repeats the current one within its limit, or makes a move this matcher
// has already seen from the same position without any problem. It then
// advances and returns the segment's PathID. Otherwise it changes nothing
// and returns false, and the caller must call NextKey, which finds the
// move and reports problems. Fast never allocates.
func (mt *Matcher) Fast(key uint32) (uint16, bool) {
	if mt.done || mt.ended {
		return NoPath, false
	}
	f := &mt.frames[len(mt.frames)-1]
	cur := f.cur
	if cur >= 0 && mt.keys[cur] == key && f.count < mt.maxRep[cur] {
		f.count++
		return uint16(cur), true
	}
	m := mt.remembered(cur, key)
	if m == nil {
		return NoPath, false
	}
	level := int(m.level)
	g := &mt.frames[level]
	if m.newRep {
		if g.reps >= mt.maxRep[g.group] && !g.grpOver {
			return NoPath, false // too many occurrences: NextKey reports it, once
		}
		mt.frames = mt.frames[:level+1]
		g.reps++
		g.cur, g.count, g.segOver = g.group+1, 1, false
		return uint16(g.cur), true
	}
	mt.frames = mt.frames[:level+1]
	idx := m.idx
	g.cur, g.count, g.segOver = idx, 1, false
	switch mt.kinds[idx] {
	case kindGroup:
		mt.frames = append(mt.frames, frame{group: idx, cur: idx + 1, reps: 1, count: 1})
		return uint16(idx + 1), true
	case kindEnd:
		mt.done = true
	}
	return uint16(idx), true
}

// remembered returns the memoised move for key from entry cur, or nil.
func (mt *Matcher) remembered(cur int32, key uint32) *move {
	slots := &mt.memo[cur+1]
	if slots[0].set && slots[0].key == key {
		return &slots[0]
	}
	if slots[1].set && slots[1].key == key {
		return &slots[1]
	}
	return nil
}

// tagOf returns tag, or the tag a key was packed from when tag is "".
func tagOf(key uint32, tag string) string {
	if tag != "" || key == noKey {
		return tag
	}
	return string([]byte{byte(key >> 16), byte(key >> 8), byte(key)})
}

// find looks for tag from the current position outwards without changing
// state: later in the current group, as a new occurrence of the current
// group, then the same in each enclosing group.
func (mt *Matcher) find(key uint32) (level, idx int, newRep, ok bool) {
	entries := mt.msg.Entries
	for level = len(mt.frames) - 1; level >= 0; level-- {
		f := &mt.frames[level]
		start, end := mt.bounds(f)
		for i := start; i < end; i = entries[i].End {
			if entries[i].key == key {
				return level, i, false, true
			}
		}
		if f.group >= 0 && entries[f.group].key == key {
			return level, int(f.group), true, true
		}
	}
	return 0, 0, false, false
}

// bounds returns the entries after the frame's current child and the end
// of the frame's group.
func (mt *Matcher) bounds(f *frame) (start, end int) {
	entries := mt.msg.Entries
	switch {
	case f.cur >= 0:
		start = entries[f.cur].End
	default:
		start = int(f.group) + 1 // first child; 0 at message level
	}
	end = len(entries)
	if f.group >= 0 {
		end = entries[f.group].End
	}
	return start, end
}

// skipped returns the mandatory entries a move found by find passes
// over: the rest of every group it leaves, the rest of the current
// occurrence when it starts a new one, and the entries between the
// current position and the target. It does not change state.
func (mt *Matcher) skipped(level, idx int, newRep bool) []Problem {
	var problems []Problem
	for l := len(mt.frames) - 1; l > level; l-- {
		problems = mt.missingRest(problems, &mt.frames[l], -1)
	}
	if newRep {
		return mt.missingRest(problems, &mt.frames[level], -1)
	}
	return mt.missingRest(problems, &mt.frames[level], idx)
}

// apply performs a move found by find (or remembered from it): leave the
// inner groups, then start a new occurrence of the level's group or step
// to entry idx, entering it when it is a group.
func (mt *Matcher) apply(level, idx int, newRep bool, problems []Problem) Step {
	entries := mt.msg.Entries
	mt.frames = mt.frames[:level+1]
	f := &mt.frames[level]
	if newRep {
		f.reps++
		f.cur, f.count, f.segOver = f.group+1, 1, false
		if int(f.reps) > entries[f.group].MaxRepeat && !f.grpOver {
			f.grpOver = true
			problems = append(problems, mt.tooManyGroups(int(f.group), f.reps))
		}
		return mt.step(int(f.cur), problems)
	}
	f.cur, f.count, f.segOver = int32(idx), 1, false
	e := &entries[idx]
	if !e.IsGroup() {
		if e.Depth == 0 && e.key == keyUNT {
			mt.done = true
		}
		return mt.step(idx, problems)
	}
	mt.frames = append(mt.frames, frame{group: int32(idx), cur: int32(idx + 1), reps: 1, count: 1})
	return mt.step(idx+1, problems)
}

// keyUNT is the packed UNT tag.
var keyUNT = PackTag('U', 'N', 'T')

// missingRest appends a problem for every mandatory entry of the frame's
// group after its current child and before stop (-1: to the group's end).
func (mt *Matcher) missingRest(problems []Problem, f *frame, stop int) []Problem {
	entries := mt.msg.Entries
	start, end := mt.bounds(f)
	if stop >= 0 {
		end = stop
	}
	for i := start; i < end; i = entries[i].End {
		if entries[i].Mandatory {
			problems = append(problems, mt.missingProblem(i))
		}
	}
	return problems
}

func (mt *Matcher) step(i int, problems []Problem) Step {
	return Step{Path: mt.msg.Entries[i].Path, PathID: uint16(i), Problems: problems}
}

// afterText describes the current position for an unexpected segment.
func (mt *Matcher) afterText() string {
	f := &mt.frames[len(mt.frames)-1]
	if f.cur < 0 {
		return "at the start of the message"
	}
	return "after " + mt.msg.Entries[f.cur].FullPath
}

// End closes the message and returns the mandatory entries that never
// came: those after the current position in every open group and at
// message level, including UNT when it was not matched. Call it once, at
// UNT or at the end of the data; later calls return nil.
func (mt *Matcher) End() []Problem {
	if mt.ended {
		return nil
	}
	mt.ended = true
	var problems []Problem
	for l := len(mt.frames) - 1; l >= 0; l-- {
		problems = mt.missingRest(problems, &mt.frames[l], -1)
	}
	return problems
}
