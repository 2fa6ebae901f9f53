// Package retrieval is the neutral vocabulary of search that every consumer
// (eval, mine, train, the DRIFT runner, the server) speaks, so that a second
// backend — an external vector store, a sharded index — plugs in without
// editing them. It holds no engine: package index implements these
// interfaces over the workspace's files.
//
// Below the vocabulary it holds the engine-neutral parts of search: the
// DenseBackend and LexicalBackend interfaces (backend.go), the corpus Table,
// the signals and fusion as functions over ranked lists (signals.go), the
// per-profile choice of signals and weights (profile.go), and Engine, which
// combines them into a Searcher (engine.go).
//
// Layering: retrieval imports only the standard library and dataset; the
// stages and runners import retrieval, never the other way round.
package retrieval

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Mode selects the retrieval method.
type Mode string

// Retrieval modes. ModeBest is the tuned offline default: hybrid fusion of
// BM25, dense, neighbour voting, mentions, concept words and the usage prior.
const (
	ModeDense  Mode = "dense"
	ModeBM25   Mode = "bm25"
	ModeHybrid Mode = "hybrid" // RRF of BM25 and dense only
	ModeBest   Mode = "best"   // hybrid + neighbours + mentions + concepts + usage prior
)

// ParseMode checks a --mode value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeDense, ModeBM25, ModeHybrid, ModeBest:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (dense, bm25, hybrid, best)", s)
}

// Profile says what the searcher is looking for, which decides the signals
// of ModeBest. Premise retrieval (a formalizer needs the definitions a
// statement uses) rewards popular premises and the votes of similar
// declarations; theorem search (a mathematician wants *the* result) must not.
type Profile string

// Ranking profiles. ProfileAuto picks ProfileTheorem whenever theorems are
// candidates (Filter.AllKinds, or Filter.Kinds naming theorem) and
// ProfilePremise otherwise.
const (
	ProfileAuto    Profile = ""
	ProfilePremise Profile = "premise"
	ProfileTheorem Profile = "theorem"
)

// ParseProfile checks a --profile value ("" and "auto" are ProfileAuto).
func ParseProfile(s string) (Profile, error) {
	switch s {
	case "", "auto":
		return ProfileAuto, nil
	case string(ProfilePremise), string(ProfileTheorem):
		return Profile(s), nil
	}
	return "", fmt.Errorf("unknown profile %q (premise, theorem or auto)", s)
}

// Filter says which documents may be returned. It is a description, not a
// per-document mask, so that any backend can translate it into its own
// query language.
type Filter struct {
	// Kinds, when non-empty, restricts candidates to these declaration kinds
	// (workspace.Kinds()). Empty means the default: premise kinds
	// (workspace.IsPremiseKind) unless AllKinds.
	Kinds []string `json:"kinds,omitempty"`
	// AllKinds makes every declaration a candidate.
	AllKinds bool `json:"all_kinds,omitempty"`
	// Library, when set, restricts candidates to one library of the corpus
	// (declarations.parquet's library column), and the declarations that
	// vote for them to the same library.
	Library string `json:"library,omitempty"`
	// Exclude lists names never returned, never used as neighbours and not
	// counted in the usage prior: for a benchmark, the query's own
	// declaration; for an unseen-theorem protocol, every benchmark theorem.
	Exclude []string `json:"exclude,omitempty"`
}

// Query is one retrieval request.
type Query struct {
	// Text is the informal statement (what a user has at query time).
	Text string
	// Formal is an optional formal statement; used only when non-empty.
	Formal string
	// K is the number of hits wanted (default 10).
	K       int
	Mode    Mode    // default ModeBest
	Profile Profile // default ProfileAuto
	Filter  Filter
	// Weights overrides the profile's default weights for ModeBest (nil:
	// defaults).
	Weights *Weights
	// Vocabulary, when set, expands the query for theorem search (opt-in,
	// --vocabulary; nil: none).
	Vocabulary *Vocabulary
}

// Hit is one ranked document.
type Hit struct {
	Rank   int     `json:"rank"`
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`
	Module string  `json:"module,omitempty"`
	Score  float64 `json:"score"`
	// Signals gives the 1-based rank of the hit in each fused list
	// (bm25, dense, neighbors, mention, concept, prior, assoc); absent when
	// not ranked there.
	Signals map[string]int `json:"signals,omitempty"`
}

// Weights of the lists fused by weighted reciprocal-rank fusion in ModeBest:
// score(d) = Σ_list w_list / (RRFK + rank_list(d)). A Weights is a value:
// copying it copies everything, so no caller can change another's defaults.
type Weights struct {
	BM25      float64 `json:"bm25"`
	Dense     float64 `json:"dense"`
	Neighbors float64 `json:"neighbors"`
	Mention   float64 `json:"mention"`
	Prior     float64 `json:"prior"`
	RRFK      float64 `json:"rrf_k"`
	// Depth is how many hits each list contributes.
	Depth int `json:"depth"`
	// NeighborDocs is how many similar non-candidate declarations vote.
	NeighborDocs int `json:"neighbor_docs"`
	// Assoc weights the term–premise association list: every document that
	// contains a query term votes for its statement dependencies with
	// idf(term)/(df(term)+AssocSmooth), i.e. how strongly the corpus ties
	// the query's words to each premise. AssocBeta > 0 divides by
	// (uses+1)^AssocBeta (PMI-like, favours specific premises).
	Assoc       float64 `json:"assoc,omitempty"`
	AssocBeta   float64 `json:"assoc_beta,omitempty"`
	AssocSmooth float64 `json:"assoc_smooth,omitempty"`
	// AssocMaxDF skips terms in more than this fraction of documents (default 0.2).
	AssocMaxDF float64 `json:"assoc_max_df,omitempty"`
	// Concept weights the concept list: plain words of the query matched,
	// case-insensitively, to the last component of premise names ("group" →
	// Group, "open" → IsOpen, "primes" → Prime, Nat.Prime), most used first.
	Concept float64 `json:"concept,omitempty"`
	// ConceptTop is how many premises one word may match (default 3).
	ConceptTop int `json:"concept_top,omitempty"`
	// NeighborDecay is c in a neighbour's vote weight 1/(rank+c) (default 5).
	NeighborDecay float64 `json:"neighbor_decay,omitempty"`
	// CandidateVotes scales the votes of the top NeighborDocs candidate hits
	// for their own statement dependencies (0: only non-candidates vote).
	CandidateVotes float64 `json:"candidate_votes,omitempty"`

	// The weights below are theorem search's (ProfileTheorem).

	// Name weights the name list: the query's words and their vocabulary
	// (Expand) matched to the components of declaration names, each
	// weighing its inverse document frequency among names, times the
	// covered share of the name's own weight to the power NameBeta (a name
	// the query spells out entirely beats a long one it touches).
	Name     float64 `json:"name,omitempty"`
	NameBeta float64 `json:"name_beta,omitempty"`
	// ExpandLexical and ExpandDense add the query's vocabulary (Expand) to
	// the text given to BM25 and to the dense encoder.
	ExpandLexical bool `json:"expand_lexical,omitempty"`
	ExpandDense   bool `json:"expand_dense,omitempty"`
	// NonTheorem, in [0, 1), lowers the fused score of every candidate that
	// is not a theorem by that fraction: a mathematician searching for a
	// result wants the theorem before the definitions it mentions.
	NonTheorem float64 `json:"non_theorem,omitempty"`
	// Symbols reads the query's notation (symbols.go): LaTeX commands as
	// Lean's characters (NormalizeLaTeX), then each symbol as the words
	// Mathlib's names use for it (SymbolWords), added to the name signal
	// only (not BM25: see engine.go).
	Symbols bool `json:"symbols,omitempty"`
	// WordNames adds the name tokens the library's docstrings associate
	// with the query's words (wordnames.go: "divides" → dvd) to the name
	// signal's words.
	WordNames bool `json:"word_names,omitempty"`
	// Notations reads the query's symbols through the library's notation
	// table (notations.go; the index's, when it has one): the names of the
	// constants behind them join the name signal's words.
	Notations bool `json:"notations,omitempty"`
	// Notation weights the notation list: those constants themselves.
	Notation float64 `json:"notation,omitempty"`
	// Formula weights the formula list (theorem search): the statements
	// whose layout matches the formula the query writes (formula.go).
	Formula float64 `json:"formula,omitempty"`
	// UsagePrior scales each fused score by 1 + UsagePrior times the
	// candidate's log-normalised usage count (usageprior.go).
	UsagePrior float64 `json:"usage_prior,omitempty"`
	// Rerank rescores the fused top hits with the embedded second-stage
	// model (rerank.go).
	Rerank bool `json:"rerank,omitempty"`
	// FuzzyName lets a one-identifier query that names no declaration
	// exactly or by suffix name the ones whose components it spells in
	// another joining (Table.FuzzyName: is_compact_image → IsCompact.image).
	FuzzyName bool `json:"fuzzy_name,omitempty"`
}

// DefaultWeights are the tuned offline defaults of premise retrieval (see
// index/README.md for how they were tuned). It returns a fresh value.
func DefaultWeights() Weights {
	return Weights{BM25: 0.5, Dense: 0.5, Neighbors: 3, Mention: 2, Prior: 0.25, Concept: 1, ConceptTop: 2, RRFK: 10, Depth: 200, NeighborDocs: 20}
}

// ErrEmptyQuery is returned for a query with no text.
var ErrEmptyQuery = errors.New("empty query")

// Searcher answers retrieval queries. Implementations are safe for
// concurrent use by any number of goroutines; the returned hits belong to
// the caller. A Searcher backed by files must not be used after it is
// closed. ctx reaches remote parts (a query encoder endpoint), so
// cancelling it stops them.
type Searcher interface {
	Search(ctx context.Context, q Query) ([]Hit, error)
}

// MultiSearcher is a Searcher that answers several queries in one call
// more cheaply than one by one (a dense scan visits each vector once for
// all of them). SearchMany returns each query's hits exactly as Search
// would, in order; it fails as a whole when one query cannot run. Safe for
// concurrent use, like Searcher.
type MultiSearcher interface {
	Searcher
	SearchMany(ctx context.Context, qs []Query) ([][]Hit, error)
}

// SearchAll answers every query: in one SearchMany call when s is a
// MultiSearcher, otherwise with one Search per query, concurrently (remote
// searchers gain from the overlap). The first error in query order wins.
func SearchAll(ctx context.Context, s Searcher, qs []Query) ([][]Hit, error) {
	if ms, ok := s.(MultiSearcher); ok {
		return ms.SearchMany(ctx, qs)
	}
	out := make([][]Hit, len(qs))
	errs := make([]error, len(qs))
	var wg sync.WaitGroup
	for i := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = s.Search(ctx, qs[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, &QueryError{Query: i, Err: err}
		}
	}
	return out, nil
}

// QueryError is the failure of one query of a SearchMany or SearchAll call.
type QueryError struct {
	Query int // its index in the call's queries
	Err   error
}

func (e *QueryError) Error() string { return fmt.Sprintf("query %d: %v", e.Query, e.Err) }

// Unwrap returns the query's error.
func (e *QueryError) Unwrap() error { return e.Err }

// SearcherFunc adapts a function to Searcher.
type SearcherFunc func(ctx context.Context, q Query) ([]Hit, error)

// Search implements Searcher.
func (f SearcherFunc) Search(ctx context.Context, q Query) ([]Hit, error) { return f(ctx, q) }

// Entry is what a corpus knows about one declaration: enough to show it in a
// result list and to put it in a prompt (DRIFT's formalization context).
// The full source text and proof dependencies live in the workspace tables
// (workspace.Declaration).
type Entry struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Module string `json:"module,omitempty"`
	// Library is the declaration's library (declarations.parquet), "" when
	// the corpus does not record it.
	Library string `json:"library,omitempty"`
	// Signature is the formal statement without the proof.
	Signature string `json:"signature,omitempty"`
	// InformalName and InformalStatement come from informal.parquet, or the
	// docstring when there is no informal row (InformalSource says which:
	// a provider such as "template", "openai:<model>", "rauto", or
	// "docstring"; "" for none).
	InformalName      string `json:"informal_name,omitempty"`
	InformalStatement string `json:"informal_statement,omitempty"`
	InformalSource    string `json:"informal_source,omitempty"`
	// StatementDeps are the declaration's statement dependencies, in order
	// of first use.
	StatementDeps []string `json:"statement_deps,omitempty"`
}

// Corpus is the read-only view of the documents a Searcher ranks and of the
// premise-usage graph. Implementations are safe for concurrent use and
// return values the caller must not modify (slices are shared).
type Corpus interface {
	// Len is the number of documents.
	Len() int
	// Lookup returns a declaration by full name.
	Lookup(name string) (Entry, bool)
	// UsedBy lists, sorted by name, the declarations whose statement uses
	// premise (the usage graph, index/usage.parquet).
	UsedBy(premise string) []string
}
