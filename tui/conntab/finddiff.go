package conntab

import (
	"context"
	"fmt"

	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/tui/common"
)

// DiffOpened prepares the diff screen of the ORDRSP at ordrsp against the
// ORDERS at orders for owner's stack (a timeline step's diff); run it in
// a tea.Cmd (it reads both files).
func DiffOpened(ctx context.Context, c *common.Common, owner common.TabID, req uint64, orders, ordrsp string) common.Opened {
	diffs, err := up.ComparePaths(ctx, orders, ordrsp)
	if err != nil {
		return common.Opened{Tab: owner, Req: req, Err: fmt.Errorf("no diff: %w", err)}
	}
	return common.Opened{Tab: owner, Req: req, Screen: newDiffScreen(c, "ORDRSP against the ORDERS sent", diffs)}
}
