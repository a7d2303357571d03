//go:build !unix

package edi

// oNonblock is not needed where there are no FIFOs to open by path.
const oNonblock = 0
