// Package drift is the DRIFT runner (Decompose, Retrieve, Illustrate,
// Formalize, then Verify): given an informal statement, it asks a chat model
// to decompose it into sub-queries, retrieves one premise set for all of
// them through a retrieval.Searcher (retrieval.SearchAll: when the searcher
// is an index, one SearchMany — one encoder call and one dense pass), picks
// illustrative theorems that use those premises
// (Illustrate, greedy coverage over the usage graph), asks the model for
// Lean formalizations and checks them with a lean.Checker (typecheck, BEq+).
//
// Who calls it: `driftkit drift` runs a benchmark (Run: a crash-safe
// records journal per item, resumed after a kill, summary with P/R/F1 by
// the same scorer as `eval retrieval`); `driftkit drift --context-only`,
// `make run` and the server's /api/drift/context build the offline context
// (BuildContextOnly) without a model; the server's /api/drift runs one
// statement in its run registry. The runner lives under serve/ because the
// server is its richest caller, but it imports nothing of the server: the
// command line drives the same Pipeline.
//
// Concurrency: a Pipeline is safe for concurrent use once built (New); it
// holds no per-item state. Run works on RunOptions.Jobs items at once; an
// item's n formalization samples run concurrently, each with its own seed.
// Records go to the journal (internal/journal: appends are serialised and the
// file is flocked, so a second run on one folder is refused) as each item
// finishes. Model calls are bounded by the llm.Client's limits, Lean checks
// by the Checker's workers. A cancelled context stops new items; an item
// cut short is not journalled, so a resumed run redoes it. A failure every
// item would share (a bad setting) cancels the run with its cause.
package drift
