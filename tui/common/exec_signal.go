package common

import (
	"os"
	"syscall"
)

// stopSignal asks a command to end (SIGTERM; where the system has no
// such signal, Go maps it to a kill).
var stopSignal os.Signal = syscall.SIGTERM
