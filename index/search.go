package index

import (
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// The search vocabulary lives in package retrieval; these aliases keep the
// index's own API readable.
type (
	Mode     = retrieval.Mode
	Query    = retrieval.Query
	Hit      = retrieval.Hit
	Weights  = retrieval.Weights
	Searcher = retrieval.Searcher
)

// Retrieval modes (see retrieval.Mode).
const (
	ModeDense  = retrieval.ModeDense
	ModeBM25   = retrieval.ModeBM25
	ModeHybrid = retrieval.ModeHybrid
	ModeBest   = retrieval.ModeBest
)

// ParseMode checks a --mode value.
func ParseMode(s string) (Mode, error) { return retrieval.ParseMode(s) }

// ErrEmptyQuery is returned for a query with no text.
var ErrEmptyQuery = retrieval.ErrEmptyQuery

// IsCandidateKind is the default candidate filter (workspace.IsPremiseKind).
func IsCandidateKind(kind string) bool { return workspace.IsPremiseKind(kind) }
