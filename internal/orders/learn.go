package orders

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// LearnMIG writes what the partner accepted before as a partner rules
// file (edi/mig) to start from: every segment (with its qualifier) that
// all accepted uploads had is required (min = 1), and every one that
// only rejected uploads had is forbidden (max = 0). The operator reviews
// it: a pattern of the history is not yet a rule of the partner.
func LearnMIG(h *Accepted, connection string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Partner rules learned by 'b2bx mig learn' from connection %s:\n", strconv.Quote(connection))
	fmt.Fprintf(&b, "# %d accepted and %d rejected ORDERS. Review before use: what every\n", h.Accepted, h.Rejected)
	b.WriteString("# accepted upload had is required, what only rejected ones had is forbidden.\n")
	fmt.Fprintf(&b, "partner = %s\n", strconv.Quote(connection))
	for _, f := range h.Features() {
		if h.accepted[f] == h.Accepted && h.Accepted > 0 {
			fmt.Fprintf(&b, "\n[[rule]]\nsegment = %s\nmin = 1\nwhy = \"in all %d accepted ORDERS\"\n", strconv.Quote(f), h.Accepted)
		}
	}
	var only []string
	for f := range h.rejected {
		if h.accepted[f] == 0 {
			only = append(only, f)
		}
	}
	slices.Sort(only)
	for _, f := range only {
		fmt.Fprintf(&b, "\n[[rule]]\nsegment = %s\nmax = 0\nwhy = \"in %d of the %d rejected ORDERS, in none of the %d accepted\"\n", strconv.Quote(f), h.rejected[f], h.Rejected, h.Accepted)
	}
	return b.Bytes()
}
