package track

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// TestFindContractFindings: an ORDRSP in D.25A and a CONTRL 4:1 under
// syntax 3 are contract findings of their delivery in find's result, for
// the directory of the item's connection (issue 21 §1): on a D.96A
// connection the ORDRSP is one, on a D.25A connection it is not; the
// CONTRL is one either way.
func TestFindContractFindings(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	uploaded(t, s, "conn-a", "ICR0001", "PO-4711", ordersIC("ICR0001", "PO-4711"), t0, spool.OutcomeAccepted)
	d25 := strings.Replace(string(ordrsp("RSP1", "PO-4711")), "ORDRSP:D:96A:UN", "ORDRSP:D:25A:UN", 1)
	store(t, s, "conn-a", "d-ordrsp-25", "ORDRSP", []byte(d25), t0.Add(time.Hour), true)
	c41 := strings.Replace(string(contrl("CTL1", "ICR0001", false)), "CONTRL:2:2:UN", "CONTRL:4:1:UN", 1)
	store(t, s, "conn-a", "d-contrl-41", "CONTRL", []byte(c41), t0.Add(2*time.Minute), true)

	x := openIndex(t, dir, &clock{t: t0.Add(2 * time.Hour)}, nil)
	_, err = x.Sync(t.Context())
	require.NoError(t, err)

	findings := func(directory string) map[string][]string {
		r := mustFind(t, x, "po:PO-4711")
		r.AddContractFindings(func(conn string) string {
			require.Equal(t, "conn-a", conn)
			return directory
		})
		out := map[string][]string{}
		for _, c := range r.Conversations {
			for _, it := range c.Items {
				if len(it.Contract) > 0 {
					out[it.Ref] = it.Contract
				}
			}
		}
		return out
	}
	got := findings("D.96A")
	require.Len(t, got, 2, "%v", got)
	require.Equal(t, []string{`ORDRSP "R1" is in directory D.25A, but this connection's profile revision is D.96A (the profile's directory): the partner expects ORDRSP in D.96A`}, got["d-ordrsp-25"])
	require.Equal(t, []string{`CONTRL "C1" is version 4:1 under syntax version 3; the contract's CONTRL is 2:2 under syntax version 3`}, got["d-contrl-41"])

	got = findings("D.25A")
	require.Len(t, got, 1, "%v", got)
	require.Contains(t, got, "d-contrl-41")
}

// TestMachineDirectory: find's directory per connection is its profile's
// (D.96A when the profile names none), "" for a connection no profile has.
func TestMachineDirectory(t *testing.T) {
	m := &Machine{Profiles: []credentials.Profile{{Name: "a", ConnectionID: "conn-a", Directory: "D.25A"}, {Name: "b", ConnectionID: "conn-b"}}}
	require.Equal(t, "D.25A", m.Directory("conn-a"))
	require.Equal(t, "D.96A", m.Directory("conn-b"))
	require.Equal(t, "", m.Directory("conn-c"))
}
