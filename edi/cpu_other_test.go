//go:build !unix

package edi

func cpuTime() int64 { return 0 }
