// Package leakcheck finds goroutines that a test leaves running: a server,
// a run, a Lean pool or a client must stop every goroutine it started by
// the time it is closed (#24). It wraps go.uber.org/goleak, which retries
// with a settle loop before it reports, and prints the leaked goroutines'
// stacks.
package leakcheck

import (
	"testing"

	"go.uber.org/goleak"
)

// ignored are goroutines that outlive every test by design, none of
// driftkit's own: bleve's package-level analysis queue (started by its
// init, one worker per CPU).
func ignored() []goleak.Option {
	return []goleak.Option{goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker")}
}

// Main runs a package's tests (from TestMain) and fails the run when
// goroutines are left after all of them.
func Main(m *testing.M) {
	goleak.VerifyTestMain(m, ignored()...)
}
