// Package cpu measures the CPU time of this process, for benchmarks that
// report CPU per operation beside wall time (a shared machine makes wall time
// noisy; CPU time is what a deployment pays for).
package cpu

import (
	"syscall"
	"time"
)

// Time returns the user plus system CPU time this process has used.
func Time() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
