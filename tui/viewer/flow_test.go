package viewer

import (
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/nutrab2b/b2bx/tui/common"
)

// startFlow runs the standalone viewer over a fixture in a 120x40 test
// terminal.
func startFlow(t *testing.T, name string) *teatest.TestModel {
	t.Helper()
	src, err := Open(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return teatest.NewTestModel(t, NewStandalone(testCommon(), src, Options{}), teatest.WithInitialTermSize(120, 40))
}

// waitFor waits until the output shows every string (commontest.WaitFor).
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	commontest.WaitFor(t, tm.Output(), want...)
}

func finalView(t *testing.T, tm *teatest.TestModel) standalone {
	t.Helper()
	return standalone{tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(common.Standalone)}
}

// standalone is the program's final model with its viewer.
type standalone struct{ common.Standalone }

func (s standalone) Viewer() Model {
	v, _ := FromScreen(s.Screen())
	return v
}

// TestFlowRejectingContrl: b2bx view on a rejecting CONTRL shows the
// verdict and the error count first; keys read together each count, and
// q quits.
func TestFlowRejectingContrl(t *testing.T) {
	tm := startFlow(t, "contrl_22_rejected.edi")
	waitFor(t, tm, "REJECTED, 2 errors", "? all keys")
	// Runes read together arrive as one message: each is its own key.
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jjq")})
	s := finalView(t, tm)
	if c := s.Viewer().Cursor(); c != 2 {
		t.Fatalf("cursor %d after jjq, want 2", c)
	}
	v := s.View()
	for _, want := range []string{"CONTRL for interchange ICR0009: REJECTED, 2 errors", "File check  ✓ VALID", "> "} {
		if !strings.Contains(v, want) {
			t.Fatalf("final view lacks %q:\n%s", want, v)
		}
	}
}

// TestFlowSearchAndJump: / finds a tag, n the next one, the issues list
// jumps to a segment; ? shows every key; ctrl+c quits even while typing.
func TestFlowSearchAndJump(t *testing.T) {
	tm := startFlow(t, "structure/unexpected_segment.edi")
	waitFor(t, tm, "ORDERS PO-S1")
	tm.Type("/qty")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "Segment 7 QTY Quantity")
	tm.Type("g")
	tm.Type("i")
	waitFor(t, tm, "SEGMENT_UNEXPECTED")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "Segment 5 FTX Free text")
	tm.Type("?")
	waitFor(t, tm, "search tags, values")
	tm.Type("?/un")
	// The search runs in steps (a Cmd each), so wait for it to land on
	// UNS before ctrl+c: a ctrl+c that overtakes the last step quits with
	// the cursor still on FTX (the test failed 1 run in 10 that way).
	waitFor(t, tm, "Segment 8 UNS")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	s := finalView(t, tm)
	if c := s.Viewer().Cursor(); c != 8 { // UNS, the first after FTX with "un" in it
		t.Fatalf("cursor %d, want 8 (UNS)", c)
	}
	if !s.Viewer().Capturing() {
		t.Fatal("ctrl+c should quit from the search input")
	}
}
