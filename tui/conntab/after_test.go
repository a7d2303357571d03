package conntab

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/upload"
)

// TestLeavingTheUploadScreenLinksAgain: the upload screen hands the tab
// upload.Left when it leaves (q here); the tab reads its uploads and
// answers again, so an upload made meanwhile shows. Only then: a screen
// with nothing to hand back (the viewer, help) reads nothing.
func TestLeavingTheUploadScreenLinksAgain(t *testing.T) {
	e := newAnswerEnv(t)
	m := e.tab(t)
	require.NotNil(t, m.links.cur)
	require.Empty(t, m.links.cur.Uploads)

	m, _ = pressAll(t, m, "u")
	_, onUpload := upload.FromScreen(m.stack.Top()) // a test may look; the tab does not
	require.True(t, onUpload)
	e.upload(t, "orders_d96a.edi", 2) // sent meanwhile (the screen's own send, in effect)
	require.Empty(t, m.links.cur.Uploads, "nothing read while the screen is open")

	m, _ = pressAll(t, m, "q")
	require.Zero(t, m.stack.Len())
	require.Len(t, m.links.cur.Uploads, 1, "the upload screen left: the links were read again")
}

// TestAfterScreenActsOnMessagesOnly: what the stack hands back decides;
// a plain Left (a viewer, a diff) starts no load, upload.Left does.
func TestAfterScreenActsOnMessagesOnly(t *testing.T) {
	e := newAnswerEnv(t)
	m := e.tab(t)
	m2, cmd := m.afterScreen(common.Left{Title: "segment viewer"}, nil)
	require.Nil(t, cmd)
	require.Zero(t, m2.links.req, "nothing to read again")
	m2, cmd = m.afterScreen(upload.Left{}, nil)
	require.NotNil(t, cmd)
	require.NotZero(t, m2.links.req, "a load of the links started")
	m2, _ = m.afterScreen(filterMsg{"aperak"}, nil)
	require.Equal(t, "aperak", m2.table.Filter())
}
