package main

import (
	"bytes"
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
