package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/track"
)

// countingWriter counts the writes that reach it (each a system call on
// a terminal or pipe).
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestFindOutputIsBuffered: find's table reaches stdout in a few large
// writes, not one per cell (30 % of a big answer's time, issue 24 §1).
func TestFindOutputIsBuffered(t *testing.T) {
	at := time.Date(2026, 3, 12, 10, 30, 0, 0, time.UTC)
	var res track.Result
	res.Query.Text = "gln:4012345000009"
	for i := range 200 {
		c := track.Conversation{Key: fmt.Sprintf("po:po-%d", i), Label: fmt.Sprintf("order PO-%d", i), Conns: []string{"conn-a"}}
		for j := range 3 {
			c.Items = append(c.Items, track.Item{Conn: "conn-a", Kind: track.KindDelivery, Ref: fmt.Sprintf("d-%d-%d", i, j), Type: "ORDRSP",
				At: at, State: "stored", Status: "ORDRSP: accepted", Part: j})
		}
		res.Conversations = append(res.Conversations, c)
	}
	var out countingWriter
	e := &env{stdout: &out, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	printConversations(e, &track.Machine{Names: map[string]string{"conn-a": "acme"}}, res, false)
	lines := strings.Count(out.String(), "\n")
	require.Greater(t, lines, 800)
	require.LessOrEqual(t, out.writes, 1+out.Len()/(64<<10), "%d writes for %d lines", out.writes, lines)
	require.Contains(t, out.String(), "d-0-2 part 2", "a delivery's part says which")
}

// TestFindShowsContractFindings: a delivery's contract findings are a
// line under its conversation's table and a "contract" list in --json.
func TestFindShowsContractFindings(t *testing.T) {
	at := time.Date(2026, 3, 12, 10, 30, 0, 0, time.UTC)
	text := "ORDRSP \"R1\" is in directory D.25A, but this connection's profile revision is D.96A\x1b[2J"
	res := track.Result{Query: track.Query{Text: "po:PO-1"}, Conversations: []track.Conversation{{Key: "po:po-1", Label: "order PO-1", Conns: []string{"conn-a"},
		Items: []track.Item{{Conn: "conn-a", Kind: track.KindDelivery, Ref: "d-1", Type: "ORDRSP", At: at, State: "stored", Contract: []string{text}}}}}}
	var out bytes.Buffer
	e := &env{stdout: &out, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	printConversations(e, &track.Machine{Names: map[string]string{"conn-a": "acme"}}, res, false)
	require.Contains(t, out.String(), "  ! contract finding, delivery d-1: ORDRSP \"R1\" is in directory D.25A, but this connection's profile revision is D.96A^[[2J\n")
	b, err := json.Marshal(conversationJSON{Conversation: res.Conversations[0]})
	require.NoError(t, err)
	require.Contains(t, string(b), `"contract":["ORDRSP \"R1\" is in directory D.25A`)
}
