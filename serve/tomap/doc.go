// Package tomap runs proof autoformalization methods on one runner, so that
// their numbers are comparable: ToMap (test-time optimization for
// multi-agent proof autoformalization), the ProofFlow protocol and an
// end-to-end baseline.
//
// ToMap spends test-time compute on the Decomposer only. A decomposition is
// an ordered list of proof units whose dependencies form a DAG ending in the
// theorem (Decomposition.Validate). Candidates are scored by LLM rubric
// judges on three dimensions (faithful, provable, Lean-friendly) and evolve
// for T rounds: the pool keeps only non-dominated candidates, at most K
// (Admit); the parent is the frontier member ordered first by Better; a
// reflective rewriter revises it from its scores and critiques. As soon as
// a frontier member has every score ≥ ε it is committed (Gate); otherwise
// the best frontier member is committed after T rounds. Only the committed
// decomposition reaches the expensive path: per unit, the Formalizer states
// it as `lemma <id> … := by sorry` and Lean must accept it; the Prover
// replaces `sorry` and Lean must accept the proof; the units are assembled
// under a fixed header (Assemble) and the file is checked.
//
// Tie rule (Better), used for the parent, the final commit and, reversed,
// for eviction when the pool exceeds K: higher score sum; then higher
// minimum score; then the newer candidate. Preferring the newer keeps the
// search moving when a revision ties its parent.
//
// Bookkeeping. Every model call and Lean check is appended to the problem's
// journal (Record) as soon as it returns, keyed by the hash of the exact
// request. A run replays the journal first: a journalled request is
// answered from it, so a crash, an interruption or an error costs no paid
// call twice, and methods that make the same request share one answer —
// ProofFlow's decomposition is ToMap's first seed, so the two are paired,
// and two variants that commit the same decomposition share its execution.
// Each method's metrics count the calls it used, shared or not, with their
// recorded tokens and durations.
//
// Who calls it: `driftkit tomap` runs a benchmark (ProofFlowBench or
// miniF2F-style lines) with every method and round budget asked for, the
// summary in its --out folder, and resumes from the journals; the server's
// POST /api/tomap (serve.ToMapRunners) runs one posted problem with one
// method in the run's own folder, its Lean checks reported as run events.
// Both build the agents from the same flags (AgentFlags). The runner lives
// under serve/ beside DRIFT's, but imports nothing of the server.
//
// Verification. Without a lean.Checker the run records verification as
// "skipped": SC and the formalized/proved rates are null, never true.
//
// Concurrency: Run works on Config.Jobs problems at once; a problem's
// methods run in order on one goroutine, which alone writes its journal.
// Model calls are bounded by each llm.Client's limits, Lean checks by the
// Checker's workers.
package tomap
