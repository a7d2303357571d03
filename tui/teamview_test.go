package tui

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/tui/common"
)

// A timeline step of a delivery only a colleague fetched names a path of
// the team index (no file here): the viewer opens it from the team
// store's bytes, read-only, and its header says who fetched it
// (sanitised). Without team data it says it cannot open it, as before.
func TestViewerOpensAColleaguesDeliveryFromTheTeamStore(t *testing.T) {
	m, _ := newTestModel(t)
	data := []byte("UNB+UNOA:3+4098765000003:14+4012345000009:14+260312:1031+CTL1'UNH+C1+CONTRL:2:2:UN'UCI+ICR0001+4012345000009:14+4098765000003:14+7'UNT+3+C1'UNZ+1+CTL1'")
	sum := sha256.Sum256(data)
	path := "team:conn-a/deliveries/d-contrl-1.edi"
	m.teamData = &fakeTeam{deliveries: map[string]fakeDelivery{path: {
		meta:    spool.Meta{ConnectionID: "conn-a", DeliveryAttemptID: "d-contrl-1", MessageType: "CONTRL", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])},
		payload: data, by: "alice on host-3\x1b]0;x\x07"}}}
	msg := m.openers().Viewer(common.RootOwner, path)()
	o, ok := msg.(common.Opened)
	require.True(t, ok, "%T", msg)
	require.NoError(t, o.Err)
	require.NotNil(t, o.Screen)
	s := o.Screen.SetSize(120, 30)
	v := s.View()
	require.Contains(t, v, "from the team store, fetched by alice on host-3")
	require.NotContains(t, v, "\x1b]0;")
	require.Contains(t, v, "UCI")

	m.teamData = nil
	o = m.openers().Viewer(common.RootOwner, path)().(common.Opened)
	require.Error(t, o.Err, "this machine has no such file")
	m.teamData = &fakeTeam{}
	o = m.openers().Viewer(common.RootOwner, path)().(common.Opened)
	require.Error(t, o.Err, "nor has the team")
}
