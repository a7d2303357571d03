package dict

import (
	"strings"
	"testing"
)

// fuzzTags is the pool the fuzzer draws from: every tag of every
// structure plus a few that belong nowhere.
var fuzzTags = func() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range Messages() {
		for _, e := range m.Entries {
			if !seen[e.Tag] {
				seen[e.Tag] = true
				out = append(out, e.Tag)
			}
		}
	}
	return append(out, "XYZ", "", "unh", "UN", "\x00\x1b[")
}()

// FuzzMatcher feeds random tag sequences to every structure: the matcher
// never panics, every path it returns is an entry of the message with the
// tag that was fed, problems are well formed, and the nesting never goes
// deeper than the structure.
func FuzzMatcher(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5})
	f.Add([]byte{6, 0, 1, 2, 3, 4, 4, 4, 5, 200, 201})
	f.Add([]byte(strings.Repeat("\x03\x07", 40)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		msgs := Messages()
		m := msgs[int(data[0])%len(msgs)]
		mt := m.NewMatcher()
		// fast follows the same tags through Fast/NextKey, twice (the
		// second run uses the memo the first one filled): both entry
		// points must agree with Next on every path and problem.
		fast := m.NewMatcher()
		for _, b := range data[1:] {
			tag := fuzzTags[int(b)%len(fuzzTags)]
			st := mt.Next(tag)
			checkSameStep(t, fast, tag, st)
			if st.PathID == NoPath {
				if st.Path != "" || len(st.Problems) == 0 {
					t.Fatalf("%s: unmatched %q without a problem or with path %q", m.Label, tag, st.Path)
				}
			} else {
				e, ok := m.PathOf(st.PathID)
				if !ok || e.Path != st.Path || e.Tag != tag || e.IsGroup() {
					t.Fatalf("%s: %q matched to bad entry %d (%+v)", m.Label, tag, st.PathID, e)
				}
			}
			checkProblems(t, m, st.Problems)
			if len(mt.frames) > m.maxDepth+1 {
				t.Fatalf("%s: %d frames for depth %d", m.Label, len(mt.frames), m.maxDepth)
			}
		}
		end := mt.End()
		checkProblems(t, m, end)
		if got := fast.End(); !equalProblems(got, end) {
			t.Fatalf("%s: End differs: %+v vs %+v", m.Label, got, end)
		}
		mt.Reset()
		fast.Reset()
		for _, b := range data[1:] {
			tag := fuzzTags[int(b)%len(fuzzTags)]
			checkSameStep(t, fast, tag, mt.Next(tag))
		}
	})
}

// checkSameStep feeds tag to fast through Fast (falling back to NextKey)
// and requires the step Next gave.
func checkSameStep(t *testing.T, fast *Matcher, tag string, want Step) {
	t.Helper()
	key := tagKey(tag)
	if id, ok := fast.Fast(key); ok {
		if want.PathID != id || want.Problems != nil {
			t.Fatalf("Fast(%q) = %d, Next gave %+v", tag, id, want)
		}
		return
	}
	got := fast.NextKey(key)
	if got.PathID != want.PathID || got.Path != want.Path || !equalProblems(got.Problems, want.Problems) {
		t.Fatalf("NextKey(%q) = %+v, Next gave %+v", tag, got, want)
	}
}

// equalProblems compares problems; tags of unexpected segments are
// rebuilt from the key by NextKey, so only three-byte tags compare.
func equalProblems(a, b []Problem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if len(x.Tag) != 3 || len(y.Tag) != 3 {
			x.Tag, y.Tag, x.Message, y.Message = "", "", "", ""
		}
		if x != y {
			return false
		}
	}
	return true
}

func checkProblems(t *testing.T, m *Message, ps []Problem) {
	t.Helper()
	for _, p := range ps {
		if p.Kind < UnexpectedSegment || p.Kind > TooManyGroups || p.Message == "" || p.SyntaxError == 0 {
			t.Fatalf("%s: malformed problem %+v", m.Label, p)
		}
		if p.Kind != UnexpectedSegment && (p.Position < 10 || p.Position > len(m.Entries)*10) {
			t.Fatalf("%s: problem position %d out of the table", m.Label, p.Position)
		}
	}
}

// BenchmarkMatcher matches ORDERS D.96A messages of 1000 lines (about
// 7000 segments) and reports segments per second.
func BenchmarkMatcher(b *testing.B) {
	tags := strings.Fields("UNH BGM DTM DTM RFF DTM NAD RFF NAD NAD CTA COM CUX")
	for range 1000 {
		tags = append(tags, strings.Fields("LIN PIA IMD QTY DTM PRI RFF")...)
	}
	tags = append(tags, "UNS", "CNT", "UNT")
	mt := msgORDERSD96A.NewMatcher()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		mt.Reset()
		for _, tag := range tags {
			if st := mt.Next(tag); st.Problems != nil {
				b.Fatal(st.Problems[0].Message)
			}
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(tags))/b.Elapsed().Seconds(), "segments/s")
}

// BenchmarkMatcherFast is BenchmarkMatcher through the key entry points
// the edi package uses: Fast, falling back to NextKey.
func BenchmarkMatcherFast(b *testing.B) {
	tags := strings.Fields("UNH BGM DTM DTM RFF DTM NAD RFF NAD NAD CTA COM CUX")
	for range 1000 {
		tags = append(tags, strings.Fields("LIN PIA IMD QTY DTM PRI RFF")...)
	}
	tags = append(tags, "UNS", "CNT", "UNT")
	keys := make([]uint32, len(tags))
	for i, tag := range tags {
		keys[i] = PackTag(tag[0], tag[1], tag[2])
	}
	mt := msgORDERSD96A.NewMatcher()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		mt.Reset()
		for _, k := range keys {
			if _, ok := mt.Fast(k); !ok {
				if st := mt.NextKey(k); st.Problems != nil {
					b.Fatal(st.Problems[0].Message)
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(tags)), "ns/segment")
}
