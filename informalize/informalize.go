// Package informalize writes an informal name and statement for every
// declaration of a workspace (informal.parquet), as LeanSearch and
// RAutoformalizer do: dependencies first, so that each prompt carries the
// informal statements of the declarations its statement uses.
//
// A run is crash-safe and resumable: every answer is appended to
// informal.journal.jsonl as it arrives; a rerun skips what is done. At the
// end the journal is compacted into informal.parquet atomically. Providers:
// an OpenAI-compatible model (LLM) or the offline Template fallback; large
// jobs can go through Batch API files instead.
//
// # Reuse rule
//
// After the library changed (a Mathlib bump), a rerun redoes a declaration
// when
//   - its own prompt inputs changed: kind, name, module or the module's
//     documentation, signature, docstring, definition body, the names of its
//     statement dependencies, the provider and model, the prompt version or
//     prompt files (ClassChanged); or
//   - the formal inputs of one of its statement dependencies changed: that
//     dependency's kind, name or signature, its statement as the prompt
//     shows it (ClassDepChanged); or
//   - it has no row yet (ClassNew).
//
// It does not redo a declaration because a dependency was merely re-worded
// by the model: the dependencies' informal text is context in the prompt,
// not part of the reuse key (input_sha256). Nor because of anything else
// about a dependency that its statement does not show (docstring, body,
// module, how the names in its signature resolve): that redoes the
// dependency, whose new wording is again only context. So a bump costs the
// changed declarations plus the direct dependents of changed statements,
// instead of a cascade down the whole dependency graph.
//
// Each row records which dependency texts its prompt carried (the context
// column, by informal_sha256), so a curator can list the rows whose context
// is stale; Options.RefreshDependents (--refresh-dependents) restores the
// full cascade, redoing every row whose context differs from the
// dependencies' current text.
//
// Rows written by the older rule (whose key covered the dependencies' text;
// they have no own_input_sha256) are read and, on the first run of this
// rule, kept when the older key recomputed over the current library, with
// the table's dependency texts, still matches and none of their selected
// dependencies' rows fails that test; the row is then re-keyed. Otherwise
// they are redone: the older key cannot say which input changed, so that
// one run may redo one level of dependents more than later runs. Journal
// lines of the older rule (an interrupted run of an older driftkit) are not
// reused.
package informalize

import (
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/driftkit/driftkit/internal/journal"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

// FailedFile lists the declarations of the last compaction that have no
// informal text, with the reason (JSON lines).
const FailedFile = "informal.failed.jsonl"

// Options select what to informalize and how.
type Options struct {
	Provider Provider
	// Kinds keeps only declarations of these kinds (empty: all).
	Kinds []string
	// Modules keeps only declarations whose module starts with one of these
	// prefixes (empty: all).
	Modules []string
	// Limit keeps the first Limit selected declarations (0: all).
	Limit int
	// Concurrency is the number of declarations worked on at once
	// (default: the LLM client's concurrency, else GOMAXPROCS).
	Concurrency int
	// DryRun computes prompts and prints token and cost estimates; nothing
	// is requested or written.
	DryRun bool
	// Prices and EstCompletionTokens (default 120) drive dry-run estimates.
	Prices              llm.Prices
	EstCompletionTokens int
	// Force replaces an informal.parquet the manifest does not know.
	Force bool
	// RefreshDependents also redoes every declaration whose prompt would
	// carry a dependency text other than the one its row was made with (the
	// full cascade down the dependency graph). The default reuses a row
	// whose own and dependencies' formal inputs are unchanged.
	RefreshDependents bool
	// Out receives the summary (default os.Stdout); Log structured logs.
	Out io.Writer
	Log *slog.Logger
	// Params are recorded in the manifest.
	Params map[string]any
}

// Failure is a declaration left without informal text.
type Failure struct {
	Name     string `json:"name"`
	Reason   string `json:"reason"`
	Attempts int    `json:"attempts,omitempty"`
	Provider string `json:"provider"`
	// Kept says what informal.parquet holds for the declaration instead:
	// KeptPrevious, KeptJournal or KeptTemplate ("" before compaction).
	Kept string `json:"kept,omitempty"`
}

// What a failed declaration keeps in informal.parquet: nothing is lost.
const (
	KeptPrevious = "previous row"      // its row from the last finished run
	KeptJournal  = "earlier answer"    // an ok answer of an interrupted run
	KeptTemplate = "template fallback" // the offline template's text, provider=template
)

// Report says what a run did.
type Report struct {
	Declarations int // rows of declarations.parquet (distinct names)
	Selected     int
	// The selected declarations by the reuse rule's verdict (see Class):
	// Reused+Changed+DepChanged+New = Selected, once every one was decided.
	Reused     int // rows whose inputs are unchanged
	Changed    int // redone: own prompt inputs changed
	DepChanged int // redone: a statement dependency's formal inputs (or, refreshing, text) changed
	New        int // no row before
	// How the redone ones were answered: requested this run, found in the
	// journal of an interrupted run, failed, or left for a batch wave.
	Requested int
	Resumed   int
	Failed    int
	Deferred  int
	// RefreshDependents reports the rule used.
	RefreshDependents bool
	// LegacyJournal counts journal answers of the older rule (not reused).
	LegacyJournal int
	Rows          int64
	// TornLines and BadLines are journal lines dropped on replay.
	TornLines, BadLines     int
	CycleEdges, CyclicNodes int
	Depth                   int // longest dependency chain in the selection
	Provider                string
	PromptTokens            int64
	CompletionTokens        int64
	CostUSD                 float64
	Usage                   llm.Usage
	Failures                []Failure
	Compacted               bool
	EstPromptTokens         int64 // dry run
	EstCompletionTokens     int64 // dry run
	EstCostUSD              float64
	// Alt* estimate the other rule in a dry run: how many declarations it
	// would redo and what they would cost.
	AltRedo                int
	AltEstPromptTokens     int64
	AltEstCompletionTokens int64
	AltEstCostUSD          float64
	Elapsed                time.Duration
	BatchFiles             []string
	BatchRequests          int
	// Placeholders counts model answers rejected as the prompt's template
	// copied back or too short (each was repaired or the declaration failed).
	Placeholders int64
}

// ErrBusy is wrapped when another run holds a lock informalize needs (another
// informalize, or a stage that writes the declarations or reads the informal
// table). It is workspace.ErrBusy, which every stage's lock error wraps.
var ErrBusy = workspace.ErrBusy

// state is one run's view of the workspace.
type state struct {
	ws         *workspace.Workspace
	opts       Options
	prov       Provider
	promptHash string
	log        *slog.Logger

	decls  []workspace.Declaration
	byName map[string]int32
	modDoc map[string]string
	sel    []int32 // node → declaration index
	nodeOf []int32 // declaration index → node, -1 if not selected
	graph  *Graph
	// table is informal.parquet as the last finished run left it: the
	// reference of every verdict; fallback holds its rows that a failed
	// answer kept as the template's text (no input_sha256): they are not
	// answers, so a verdict sees no row, but they stay until replaced.
	table    map[string]workspace.Informal
	fallback map[string]workspace.Informal
	// byKey holds the journal's ok answers of this rule by reuse key
	// (oldest first); latest the newest ok answer of each name, any rule.
	byKey  map[string][]Entry
	latest map[string]Entry
	// formal is the formal hash by declaration index ("" until needed);
	// modDocSum the stand-in for each module's documentation.
	formal    []string
	modDocSum map[string]string
	plan      []nodePlan // by node
	results   []Entry    // by node; Status "" while not done
	textSHA   []string   // by node: informal_sha256 of an ok result
	// altRedone marks, in a dry run, the nodes the other rule would redo.
	altRedone []bool
	journal   *journal.Journal[Entry]
	rep       *Report
	unlock    func()
}

type outcomeKind int

const (
	outDone outcomeKind = iota
	outReused
	outResumed
	outFailed
	outDeferred
	outCancelled
	outFatal
)

type outcome struct {
	v     int32
	kind  outcomeKind
	class Class
	entry Entry
	err   error
	est   [2]int64 // dry run: prompt and completion token estimates
	// alt: a dry run's verdict that the other rule would redo v; altEst its
	// token estimate when this rule does not.
	alt    bool
	altEst [2]int64
}

// keyed is what a new answer for a node is recorded with.
type keyed struct {
	Key, Own string
	Context  []workspace.InformalContext
}

// handler decides a node that the reuse rule sends to be redone.
type handler func(ctx context.Context, v int32, in *Input, k *keyed) outcome

// Run informalizes the workspace.
func Run(ctx context.Context, ws *workspace.Workspace, opts Options) (*Report, error) {
	st, err := prepare(ws, opts)
	if err != nil {
		return nil, err
	}
	defer st.close()
	if opts.DryRun {
		return st.dryRun(ctx)
	}
	rec := ws.StartRun("informalize", opts.Params)
	if err := st.recordInputs(rec); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := st.schedule(ctx, st.provide); err != nil {
		return st.rep, err
	}
	st.rep.Elapsed = time.Since(start)
	rec.Phase("informalize", st.rep.Elapsed)
	if err := ctx.Err(); err != nil {
		return st.rep, fmt.Errorf("interrupted; the journal keeps %d new answers, rerun to continue: %w", st.rep.Requested, err)
	}
	return st.rep, st.finish(rec)
}

func (opts Options) withDefaults() Options {
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.EstCompletionTokens <= 0 {
		opts.EstCompletionTokens = 120
	}
	return opts
}

func prepare(ws *workspace.Workspace, opts Options) (*state, error) {
	if opts.Provider == nil {
		return nil, errors.New("informalize: no provider")
	}
	opts = opts.withDefaults()
	prov := opts.Provider.Name()
	if prov == "template" {
		prov = "template, the offline fallback"
	}
	st := &state{ws: ws, opts: opts, prov: opts.Provider, log: opts.Log, rep: &Report{Provider: prov}}
	if h, ok := opts.Provider.(interface{ FilesHash() string }); ok {
		st.promptHash = h.FilesHash()
	}
	st.rep.RefreshDependents = opts.RefreshDependents
	if !opts.DryRun {
		unlock, err := ws.Lock("informalize")
		if err != nil {
			return nil, err
		}
		st.unlock = unlock
		if err := ws.GuardOutputs(opts.Force, workspace.InformalFile); err != nil {
			st.close()
			return nil, err
		}
	}
	if err := st.load(); err != nil {
		st.close()
		return nil, err
	}
	st.selectNodes()
	st.makePlan()
	return st, nil
}

func (st *state) close() {
	if st.journal != nil {
		if err := st.journal.Close(); err != nil {
			st.log.Error("closing journal", "err", err)
		}
		st.journal = nil
	}
	if st.unlock != nil {
		st.unlock()
		st.unlock = nil
	}
}

func (st *state) load() error {
	// Keep only what prompts use: at Mathlib scale the proofs and the code
	// of theorems are most of the table.
	st.byName = map[string]int32{}
	dups := 0
	interned := map[string]string{}
	intern := func(s string) string {
		if v, ok := interned[s]; ok {
			return v
		}
		v := strings.Clone(s)
		interned[v] = v
		return v
	}
	err := workspace.EachRow(st.ws.Path(workspace.DeclarationsFile), func(d *workspace.Declaration) error {
		if _, dup := st.byName[d.Name]; dup {
			dups++
			return nil
		}
		// Clone: the reader's strings may share its page buffers.
		slim := workspace.Declaration{Name: strings.Clone(d.Name), Kind: intern(d.Kind), Module: intern(d.Module),
			Signature: strings.Clone(truncate(d.Signature, maxSignature))}
		if d.Docstring != nil {
			doc := strings.Clone(truncate(*d.Docstring, maxDocstring))
			slim.Docstring = &doc
		}
		if len(d.StatementDeps) > 0 {
			slim.StatementDeps = make([]string, len(d.StatementDeps))
			for i, dep := range d.StatementDeps {
				slim.StatementDeps[i] = strings.Clone(dep)
			}
		}
		if bodyKinds[d.Kind] {
			slim.Code = strings.Clone(truncate(d.Code, maxBody))
		}
		st.byName[d.Name] = int32(len(st.decls))
		st.decls = append(st.decls, slim)
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return st.ws.Missing(workspace.DeclarationsFile, "declarations")
	}
	if err != nil {
		// A *workspace.FileError names the file (and row); rerunning extract
		// replaces a damaged table.
		return fmt.Errorf("reading declarations: %w", err)
	}
	if dups > 0 {
		st.log.Warn("declarations with a repeated name are informalized once", "repeats", dups)
	}
	st.rep.Declarations = len(st.decls)
	st.modDoc = map[string]string{}
	if st.ws.Has(workspace.ModulesFile) {
		err := workspace.EachRow(st.ws.Path(workspace.ModulesFile), func(m *workspace.Module) error {
			if m.Docstring != nil {
				st.modDoc[m.Name] = *m.Docstring
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	st.byKey = map[string][]Entry{}
	st.latest = map[string]Entry{}
	st.table = map[string]workspace.Informal{}
	st.fallback = map[string]workspace.Informal{}
	if st.ws.Has(workspace.InformalFile) {
		err := workspace.EachRow(st.ws.Path(workspace.InformalFile), func(r *workspace.Informal) error {
			// Clone: the reader's strings may share its page buffers.
			c := workspace.Informal{Name: strings.Clone(r.Name), InformalName: strings.Clone(r.InformalName),
				InformalStatement: strings.Clone(r.InformalStatement), Provider: intern(r.Provider), PromptVersion: intern(r.PromptVersion),
				InputSHA256: strings.Clone(r.InputSHA256), OwnInputSHA256: strings.Clone(r.OwnInputSHA256),
				PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, CreatedAt: intern(r.CreatedAt),
				InformalSHA256: strings.Clone(r.InformalSHA256)}
			if len(r.Context) > 0 {
				c.Context = make([]workspace.InformalContext, len(r.Context))
				for i, x := range r.Context {
					c.Context[i] = workspace.InformalContext{Name: strings.Clone(x.Name), InformalSHA256: strings.Clone(x.InformalSHA256)}
				}
			}
			if c.InputSHA256 == "" {
				st.fallback[c.Name] = c
			} else {
				st.table[c.Name] = c
			}
			return nil
		})
		if err != nil {
			if !st.opts.Force {
				return fmt.Errorf("%w (the run can start over without it and ask again)", err)
			}
			st.log.Warn("ignoring unreadable informal table", "err", err)
			st.table = map[string]workspace.Informal{}
		}
	}
	var rep *journal.Replay[Entry]
	path := st.ws.Path(workspace.InformalJournalFile)
	if st.opts.DryRun {
		f, err := os.Open(path)
		if err == nil {
			rep, err = journal.Read(path, f, journalOptions)
			f.Close()
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	} else {
		opts := journalOptions
		opts.BeforeCut = func(line, bytes int) { st.reportTorn(path, line, bytes) }
		j, r, err := journal.Open(path, opts)
		if err != nil {
			return err
		}
		st.journal, rep = j, r
	}
	if rep != nil {
		for _, e := range rep.Records {
			if e.Status != StatusOK {
				continue
			}
			st.latest[e.Name] = e
			if e.OwnInputSHA256 == "" {
				st.rep.LegacyJournal++
				continue
			}
			st.byKey[e.InputSHA256] = append(st.byKey[e.InputSHA256], e)
		}
		if st.rep.LegacyJournal > 0 {
			st.log.Warn("journal answers written by an older driftkit (whose keys covered dependencies' informal text) are not reused",
				"count", st.rep.LegacyJournal)
		}
		for _, b := range rep.Bad {
			st.log.Warn("skipping unusable journal line", "err", b)
		}
		st.rep.BadLines = len(rep.Bad)
		if rep.TornBytes > 0 && st.rep.TornLines == 0 {
			st.reportTorn(path, rep.TornLine, rep.TornBytes) // a dry run reads, cuts nothing
		}
	}
	return nil
}

// reportTorn reports a torn last line of the journal, before Open cuts it
// (journal.Options.BeforeCut): a run killed right after the cut would
// otherwise leave no run to report it.
func (st *state) reportTorn(path string, line, bytes int) {
	st.rep.TornLines = 1
	st.log.Warn("journal ended in a torn line (a crash mid-write); dropped it, the declaration will be redone",
		"path", path, "line", line, "bytes", bytes)
	fmt.Fprintf(st.opts.Out, "journal: dropped a torn last line (line %d, %d bytes) left by a crash\n", line, bytes)
}

func (st *state) selectNodes() {
	kinds := map[string]bool{}
	for _, k := range st.opts.Kinds {
		kinds[k] = true
	}
	st.nodeOf = make([]int32, len(st.decls))
	for i := range st.nodeOf {
		st.nodeOf[i] = -1
	}
	for i := range st.decls {
		d := &st.decls[i]
		if len(kinds) > 0 && !kinds[d.Kind] {
			continue
		}
		if len(st.opts.Modules) > 0 && !slices.ContainsFunc(st.opts.Modules, func(p string) bool { return strings.HasPrefix(d.Module, p) }) {
			continue
		}
		if st.opts.Limit > 0 && len(st.sel) >= st.opts.Limit {
			break
		}
		st.nodeOf[i] = int32(len(st.sel))
		st.sel = append(st.sel, int32(i))
	}
	names := make([]string, len(st.sel))
	adj := make([][]int32, len(st.sel))
	for v, di := range st.sel {
		d := &st.decls[di]
		names[v] = d.Name
		if !st.prov.UsesDeps() {
			continue
		}
		for _, dep := range d.StatementDeps {
			if j, ok := st.byName[dep]; ok && st.nodeOf[j] >= 0 {
				adj[v] = append(adj[v], st.nodeOf[j])
			}
		}
	}
	st.graph = BuildGraph(names, adj)
	st.results = make([]Entry, len(st.sel))
	st.textSHA = make([]string, len(st.sel))
	st.altRedone = make([]bool, len(st.sel))
	st.rep.Selected = len(st.sel)
	st.rep.CycleEdges, st.rep.CyclicNodes = st.graph.Dropped, st.graph.Cyclic
	st.rep.Depth = st.graph.Depth
}

// bodyKinds get their source text in the prompt.
var bodyKinds = map[string]bool{
	workspace.KindDefinition: true, workspace.KindAbbrev: true, workspace.KindInstance: true,
	workspace.KindStructure: true, workspace.KindClass: true, workspace.KindInductive: true,
}

// input builds the prompt input of node v and the context it carries: the
// informal text of the kept (ordered) in-selection dependencies that
// succeeded, so the input is the same whatever the timing.
func (st *state) input(v int32) (*Input, []workspace.InformalContext) {
	in := st.formalInput(st.sel[v])
	if !st.prov.UsesDeps() {
		return in, nil
	}
	var ctx []workspace.InformalContext
	st.keptDeps(v, in, func(dep *Dep, w int32) {
		if st.results[w].Status == StatusOK {
			dep.InformalName = st.results[w].InformalName
			dep.InformalStatement = st.results[w].InformalStatement
			ctx = append(ctx, workspace.InformalContext{Name: dep.Name, InformalSHA256: st.textSHA[w]})
		}
	})
	return in, ctx
}

// keptDeps calls fn, in the input's order, with each dependency of in that
// is a kept (ordered) in-selection dependency of node v and with its node:
// the dependencies whose informal text a prompt may carry.
func (st *state) keptDeps(v int32, in *Input, fn func(dep *Dep, w int32)) {
	kept := st.graph.Deps[v]
	for i := range in.Deps {
		dep := &in.Deps[i]
		j, ok := st.byName[dep.Name]
		if !ok {
			continue
		}
		if w := st.nodeOf[j]; w >= 0 && slices.Contains(kept, w) {
			fn(dep, w)
		}
	}
}

func (st *state) concurrency() int {
	if st.opts.Concurrency > 0 {
		return st.opts.Concurrency
	}
	if p, ok := st.prov.(*LLM); ok {
		// A few more workers than the client lets through: their prompts are
		// ready and waiting when a request slot frees up.
		c := p.Client.Config().Concurrency
		return c + max(2, c/4)
	}
	return runtime.GOMAXPROCS(0)
}

// schedule runs every selected node through h in dependency order: a node is
// handed to a worker as soon as all its kept dependencies are finished, so
// the workers stay busy. Results are journalled by this goroutine only.
func (st *state) schedule(ctx context.Context, h handler) error {
	n := len(st.sel)
	pending := make([]int32, n)
	ready := &readyQueue{height: st.graph.Height}
	for v := 0; v < n; v++ {
		pending[v] = int32(len(st.graph.Deps[v]))
		if pending[v] == 0 {
			heap.Push(ready, int32(v))
		}
	}
	conc := st.concurrency()
	work := make(chan int32)
	outs := make(chan outcome, conc)
	for i := 0; i < conc; i++ {
		go func() {
			for v := range work {
				outs <- st.work(ctx, v, h)
			}
		}()
	}
	defer close(work)
	name := "informalize"
	if st.opts.DryRun {
		name = "informalize (dry run)"
	}
	bar := progress.Start(ctx, name, int64(n))
	defer bar.Finish()
	var fatal error
	inflight, remaining := 0, n
	var sum llm.Usage
	for remaining > 0 {
		var send chan int32
		var next int32
		if ready.Len() > 0 && fatal == nil && ctx.Err() == nil {
			send, next = work, ready.peek()
		}
		if send == nil && inflight == 0 {
			break
		}
		select {
		case send <- next:
			heap.Pop(ready)
			inflight++
		case o := <-outs:
			inflight--
			remaining--
			release := true
			if o.kind != outCancelled && o.kind != outFatal {
				st.count(o)
			}
			switch o.kind {
			case outReused, outResumed:
				st.setResult(o.v, o.entry)
				if o.kind == outResumed {
					st.rep.Resumed++
				}
			case outDone, outFailed:
				if st.journal != nil {
					if err := st.journal.Append(o.entry); err != nil && fatal == nil {
						fatal = err
					}
				}
				st.setResult(o.v, o.entry)
				st.rep.PromptTokens += o.entry.PromptTokens
				st.rep.CompletionTokens += o.entry.CompletionTokens
				if o.kind == outDone {
					st.rep.Requested++
				} else {
					st.rep.Failed++
					st.rep.Failures = append(st.rep.Failures, Failure{Name: o.entry.Name, Reason: o.entry.Error, Attempts: o.entry.Attempts, Provider: o.entry.Provider})
				}
				if st.opts.DryRun {
					st.rep.EstPromptTokens += o.est[0]
					st.rep.EstCompletionTokens += o.est[1]
				}
			case outDeferred:
				st.rep.Deferred++
				release = false
			case outCancelled:
				release = false
			case outFatal:
				release = false
				if fatal == nil {
					fatal = o.err
				}
			}
			bar.Add(1)
			if p, ok := st.prov.(*LLM); ok && !st.opts.DryRun {
				sum = p.Client.Usage()
				bar.Describe(fmt.Sprintf("asked=%d reused=%d failed=%d retries=%d tok=%d+%d $%.4f",
					st.rep.Requested, st.rep.Reused, st.rep.Failed, sum.Retries, sum.PromptTokens, sum.CompletionTokens, sum.CostUSD))
			} else {
				bar.Describe(fmt.Sprintf("asked=%d reused=%d failed=%d", st.rep.Requested, st.rep.Reused, st.rep.Failed))
			}
			if release {
				for _, w := range st.graph.Dependents[o.v] {
					pending[w]--
					if pending[w] == 0 {
						heap.Push(ready, w)
					}
				}
			}
		}
	}
	if p, ok := st.prov.(*LLM); ok {
		st.rep.Usage = p.Client.Usage()
		st.rep.CostUSD = st.rep.Usage.CostUSD
		st.rep.Placeholders = p.Placeholders()
	}
	return fatal
}

// readyQueue holds the nodes whose dependencies are done, longest remaining
// chain first (critical-path scheduling), then selection order.
type readyQueue struct {
	height []int32
	items  []int32
}

func (q *readyQueue) Len() int { return len(q.items) }
func (q *readyQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if q.height[a] != q.height[b] {
		return q.height[a] > q.height[b]
	}
	return a < b
}
func (q *readyQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *readyQueue) Push(x any)    { q.items = append(q.items, x.(int32)) }
func (q *readyQueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}
func (q *readyQueue) peek() int32 { return q.items[0] }

// setResult records node v's answer (schedule's goroutine only, before v's
// dependents are released).
func (st *state) setResult(v int32, e Entry) {
	st.results[v] = e
	if e.Status == StatusOK {
		st.textSHA[v] = workspace.InformalTextSHA256(e.InformalName, e.InformalStatement)
	}
}

// count tallies a decided node's verdict.
func (st *state) count(o outcome) {
	switch o.class {
	case ClassReused:
		st.rep.Reused++
	case ClassChanged:
		st.rep.Changed++
	case ClassDepChanged:
		st.rep.DepChanged++
	case ClassNew:
		st.rep.New++
	}
	if o.alt {
		st.rep.AltRedo++
		st.altRedone[o.v] = true
	}
	st.rep.AltEstPromptTokens += o.altEst[0]
	st.rep.AltEstCompletionTokens += o.altEst[1]
}

func (st *state) work(ctx context.Context, v int32, h handler) outcome {
	if ctx.Err() != nil {
		return outcome{v: v, kind: outCancelled}
	}
	in, inCtx := st.input(v)
	p := &st.plan[v]
	class, answer, fromJournal := p.class, p.answer, p.fromJournal
	if st.opts.RefreshDependents {
		class, answer, fromJournal = st.decideRefresh(v, in, inCtx)
	}
	var o outcome
	switch {
	case answer != nil && fromJournal:
		o = outcome{kind: outResumed, entry: *answer}
	case answer != nil:
		o = outcome{kind: outReused, entry: *answer}
	default:
		o = h(ctx, v, in, &keyed{Key: p.key, Own: p.own, Context: inCtx})
	}
	o.v, o.class = v, class
	if st.opts.DryRun {
		st.dryRunAlt(&o, v, in, inCtx)
	}
	return o
}

func (st *state) entry(name string, k *keyed, res Result) Entry {
	return Entry{Name: name, Status: StatusOK, InputSHA256: k.Key, OwnInputSHA256: k.Own, Context: k.Context,
		InformalName: res.InformalName, InformalStatement: res.InformalStatement,
		Provider: st.prov.Name(), PromptVersion: st.prov.PromptVersion(), PromptTokens: res.PromptTokens,
		CompletionTokens: res.CompletionTokens, Attempts: res.Attempts, CreatedAt: time.Now().UTC().Format(time.RFC3339)}
}

// provide asks the provider.
func (st *state) provide(ctx context.Context, v int32, in *Input, k *keyed) outcome {
	res, err := st.prov.Informalize(ctx, in)
	return st.resultOutcome(ctx, in, k, res, err)
}

func (st *state) resultOutcome(ctx context.Context, in *Input, k *keyed, res Result, err error) outcome {
	var fe *FailedError
	switch {
	case err == nil:
		return outcome{kind: outDone, entry: st.entry(in.Name, k, res)}
	case errors.As(err, &fe):
		e := st.entry(in.Name, k, fe.Result)
		e.Status, e.InformalName, e.InformalStatement, e.Error, e.Context = StatusFailed, "", "", fe.Reason, nil
		return outcome{kind: outFailed, entry: e}
	case ctx.Err() != nil:
		return outcome{kind: outCancelled}
	default:
		return outcome{kind: outFatal, err: fmt.Errorf("%s: %w", in.Name, err)}
	}
}

func (st *state) recordInputs(rec *workspace.RunRecorder) error {
	if err := rec.Input(st.ws.Path(workspace.DeclarationsFile)); err != nil {
		return err
	}
	if st.ws.Has(workspace.ModulesFile) {
		return rec.Input(st.ws.Path(workspace.ModulesFile))
	}
	return nil
}

// finish compacts the journal into informal.parquet and records the run.
func (st *state) finish(rec *workspace.RunRecorder) error {
	start := time.Now()
	if st.rep.Deferred > 0 {
		fmt.Fprintf(st.opts.Out, "informalize: %d declarations wait for batch results; not compacting yet\n", st.rep.Deferred)
		return nil
	}
	tx := st.ws.Begin("informalize")
	defer tx.Abort()
	if err := st.compact(tx); err != nil {
		return err
	}
	rec.Phase("compact", time.Since(start))
	tx.Output(workspace.InformalFile, st.rep.Rows)
	for k, n := range map[string]int64{
		"declarations": int64(st.rep.Declarations), "selected": int64(st.rep.Selected), "requested": int64(st.rep.Requested),
		"reused": int64(st.rep.Reused), "redone_changed": int64(st.rep.Changed), "redone_dependency_changed": int64(st.rep.DepChanged),
		"new": int64(st.rep.New), "resumed_from_journal": int64(st.rep.Resumed), "failed": int64(st.rep.Failed), "rows": st.rep.Rows,
		"prompt_tokens": st.rep.PromptTokens, "completion_tokens": st.rep.CompletionTokens,
		"journal_torn_lines": int64(st.rep.TornLines), "journal_bad_lines": int64(st.rep.BadLines),
		"cycle_edges_dropped": int64(st.rep.CycleEdges), "retries": st.rep.Usage.Retries, "rate_limited": st.rep.Usage.RateLimited,
	} {
		rec.Count(k, n)
	}
	if st.opts.RefreshDependents {
		rec.Note("reuse rule: refresh dependents (a row is redone when a dependency's informal text changed, too)")
	} else {
		rec.Note("reuse rule: formal inputs (a row is redone when its own or a statement dependency's formal inputs changed)")
	}
	if st.prov.Name() == "template" {
		rec.Note("informal text from the offline template fallback (provider=template), not from a model")
	}
	if st.rep.CostUSD > 0 {
		rec.Note(fmt.Sprintf("cost %.4f USD", st.rep.CostUSD))
	}
	if st.rep.Failed > 0 {
		rec.Note(fmt.Sprintf("%d declarations failed; see %s", st.rep.Failed, FailedFile))
	}
	// The table, the journal's removal, the failure list and the manifest
	// entry take effect together: a crash leaves the journal beside the old
	// table (rerun to compact) or the new table without it, never a table
	// without its entry.
	if err := tx.Commit(rec); err != nil {
		return err
	}
	st.rep.Compacted = true
	return nil
}

// compact stages informal.parquet in tx: for every declaration, this run's
// answer, else (outside the selection) the newest earlier answer; selected
// declarations that failed keep a row (see keep) and are listed in
// FailedFile with what they kept. The
// journal is removed by the same commit: its content is in the table.
func (st *state) compact(tx *workspace.Txn) error {
	w, err := workspace.NewStagedWriter[workspace.Informal](tx, workspace.InformalFile)
	if err != nil {
		return err
	}
	toRow := entryRow
	kept := map[string]string{}
	for i := range st.decls {
		name := st.decls[i].Name
		var row workspace.Informal
		if v := st.nodeOf[i]; v >= 0 && st.results[v].Status == StatusOK {
			row = toRow(st.results[v])
		} else if v >= 0 {
			row, kept[name] = st.keep(v)
		} else if e, ok := st.latest[name]; ok {
			row = toRow(e)
		} else if r, ok := st.table[name]; ok {
			row = r
			row.InformalSHA256 = workspace.InformalTextSHA256(r.InformalName, r.InformalStatement)
		} else if r, ok := st.fallback[name]; ok {
			row = r
		} else {
			continue
		}
		if err := w.Write(row); err != nil {
			w.Abort()
			return err
		}
	}
	st.rep.Rows = w.Rows()
	if err := w.Close(); err != nil {
		return err
	}
	// The journal's answers are all in the table.
	if st.journal != nil {
		if err := st.journal.Close(); err != nil {
			return err
		}
		st.journal = nil
	}
	if err := tx.Remove(workspace.InformalJournalFile); err != nil {
		return err
	}
	if len(st.rep.Failures) == 0 {
		return tx.Remove(FailedFile)
	}
	var b strings.Builder
	for i := range st.rep.Failures {
		f := &st.rep.Failures[i]
		f.Kept = kept[f.Name]
		line, _ := json.Marshal(f)
		b.Write(line)
		b.WriteByte('\n')
	}
	return tx.WriteFile(FailedFile, []byte(b.String()))
}

// keep is the row of a selected declaration whose answer failed: its row
// from the last finished run, else an earlier ok answer from the journal,
// else the template fallback's text (provider=template, so labelled
// everywhere, with an empty input_sha256 so the next run asks again). A
// failed answer never deletes a row.
func (st *state) keep(v int32) (workspace.Informal, string) {
	name := st.decls[st.sel[v]].Name
	if r, ok := st.table[name]; ok {
		r.InformalSHA256 = workspace.InformalTextSHA256(r.InformalName, r.InformalStatement)
		return r, KeptPrevious
	}
	if e, ok := st.latest[name]; ok {
		return entryRow(e), KeptJournal
	}
	if r, ok := st.fallback[name]; ok {
		return r, KeptTemplate
	}
	in, _ := st.input(v)
	t := Template{}
	res, _ := t.Informalize(context.Background(), in) // the template never fails
	return workspace.Informal{Name: name, InformalName: res.InformalName, InformalStatement: res.InformalStatement,
		Provider: t.Name(), PromptVersion: t.PromptVersion(), CreatedAt: time.Now().UTC().Format(time.RFC3339),
		InformalSHA256: workspace.InformalTextSHA256(res.InformalName, res.InformalStatement)}, KeptTemplate
}

// estimate is a dry run's token estimate for the prompt of in.
func (st *state) estimate(in *Input) [2]int64 {
	var prompt int64
	if p, ok := st.prov.(*LLM); ok {
		for _, m := range p.Prompts.Messages(in) {
			prompt += int64(llm.EstimateTokens(m.Content) + 4)
		}
	}
	compl := int64(st.opts.EstCompletionTokens)
	if st.prov.Name() == "template" {
		compl = 0
	}
	return [2]int64{prompt, compl}
}

// dryRunAlt judges node v by the rule this run does not use: o.alt says it
// would be redone, o.altEst what it would cost.
func (st *state) dryRunAlt(o *outcome, v int32, in *Input, inCtx []workspace.InformalContext) {
	p := &st.plan[v]
	if st.opts.RefreshDependents {
		o.alt = p.class != ClassReused
		if o.alt && o.kind == outDone {
			o.altEst = o.est
		}
		return
	}
	if o.class != ClassReused {
		o.alt, o.altEst = true, o.est
		return
	}
	// Refreshing redoes v when its context differs from its row's, which
	// includes any dependency refreshing would redo (and so re-word).
	r := st.table[st.decls[st.sel[v]].Name]
	if p.legacy {
		o.alt = st.legacyKey(in) != r.InputSHA256
	} else {
		o.alt = !contextEqual(r.Context, inCtx)
	}
	for _, c := range inCtx {
		if o.alt {
			break
		}
		o.alt = st.altRedone[st.nodeOf[st.byName[c.Name]]]
	}
	if o.alt {
		o.altEst = st.estimate(in)
	}
}

// dryRun walks the selection as a run would, with stand-in answers for what
// it would redo, and prints what a real run would request and cost under
// each reuse rule.
func (st *state) dryRun(ctx context.Context) (*Report, error) {
	est := func(ctx context.Context, v int32, in *Input, k *keyed) outcome {
		e := st.entry(in.Name, k, Result{InformalName: "(dry run)", InformalStatement: "(dry run)"})
		return outcome{kind: outDone, entry: e, est: st.estimate(in)}
	}
	if err := st.schedule(ctx, est); err != nil {
		return st.rep, err
	}
	r := st.rep
	r.EstCostUSD = st.opts.Prices.Cost(r.EstPromptTokens, r.EstCompletionTokens)
	r.AltEstCostUSD = st.opts.Prices.Cost(r.AltEstPromptTokens, r.AltEstCompletionTokens)
	rule, alt := "formal inputs (default)", "--refresh-dependents (full cascade)"
	if r.RefreshDependents {
		rule, alt = "refresh dependents", "the default rule (formal inputs)"
	}
	out := st.opts.Out
	fmt.Fprintf(out, "dry run (%s, prompt %s, reuse rule: %s): %d declarations, %d selected\n",
		st.prov.Name(), st.prov.PromptVersion(), rule, r.Declarations, r.Selected)
	fmt.Fprintf(out, "  reused, inputs unchanged:                   %8d\n", r.Reused)
	fmt.Fprintf(out, "  redo, own inputs changed:                   %8d\n", r.Changed)
	if r.RefreshDependents {
		fmt.Fprintf(out, "  redo, a dependency changed (formal or text):%8d\n", r.DepChanged)
	} else {
		fmt.Fprintf(out, "  redo, a dependency's formal inputs changed: %8d\n", r.DepChanged)
	}
	fmt.Fprintf(out, "  new (no row yet):                           %8d\n", r.New)
	if r.Resumed > 0 {
		fmt.Fprintf(out, "  of those, answered in the journal already:  %8d\n", r.Resumed)
	}
	fmt.Fprintf(out, "to request: %d\n", r.Requested)
	fmt.Fprintf(out, "estimated tokens: %d prompt + %d completion; estimated cost: $%.4f (at $%g/$%g per million tokens; repairs and retries extra)\n",
		r.EstPromptTokens, r.EstCompletionTokens, r.EstCostUSD, st.opts.Prices.Prompt, st.opts.Prices.Completion)
	fmt.Fprintf(out, "with %s: %d to redo, estimated cost $%.4f\n", alt, r.AltRedo, r.AltEstCostUSD)
	fmt.Fprintf(out, "longest dependency chain: %d declarations (the least number of sequential request rounds)\n", r.Depth)
	if r.CycleEdges > 0 {
		fmt.Fprintf(out, "dependency cycles: %d declarations, %d edges ignored\n", r.CyclicNodes, r.CycleEdges)
	}
	return r, nil
}

// Summary is a one-paragraph account of the run.
func (r *Report) Summary() string {
	var b strings.Builder
	rule := "formal inputs"
	if r.RefreshDependents {
		rule = "refresh dependents"
	}
	fmt.Fprintf(&b, "informalize (%s, reuse rule: %s): %d selected of %d declarations: %d reused, %d redone because they changed, %d because a dependency changed, %d new",
		r.Provider, rule, r.Selected, r.Declarations, r.Reused, r.Changed, r.DepChanged, r.New)
	fmt.Fprintf(&b, "\nanswers: %d requested, %d from the journal of an interrupted run, %d failed", r.Requested, r.Resumed, r.Failed)
	if r.Placeholders > 0 {
		fmt.Fprintf(&b, " (%d placeholder answers rejected)", r.Placeholders)
	}
	if r.Deferred > 0 {
		fmt.Fprintf(&b, ", %d waiting for batch results", r.Deferred)
	}
	if r.Compacted {
		fmt.Fprintf(&b, "; informal.parquet has %d rows", r.Rows)
	}
	if r.Usage.Attempts > 0 {
		fmt.Fprintf(&b, "\nrequests: %d answered, %d retries (%d rate-limited), %d gave up; tokens %d prompt + %d completion; cost $%.4f",
			r.Usage.Requests, r.Usage.Retries, r.Usage.RateLimited, r.Usage.Failures, r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.CostUSD)
	}
	if r.TornLines+r.BadLines > 0 {
		fmt.Fprintf(&b, "\njournal: %d torn and %d unusable lines dropped", r.TornLines, r.BadLines)
	}
	if r.LegacyJournal > 0 {
		fmt.Fprintf(&b, "\njournal: %d answers of an older driftkit not reused", r.LegacyJournal)
	}
	if len(r.BatchFiles) > 0 {
		fmt.Fprintf(&b, "\nbatch: %d requests in %s", r.BatchRequests, strings.Join(r.BatchFiles, ", "))
	}
	for i, f := range r.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "\n  … and %d more (see %s)", len(r.Failures)-5, FailedFile)
			break
		}
		fmt.Fprintf(&b, "\n  failed %s: %s", f.Name, f.Reason)
		if f.Kept != "" {
			fmt.Fprintf(&b, " (kept: %s)", f.Kept)
		}
	}
	return b.String()
}
