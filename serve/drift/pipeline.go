package drift

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
)

// Options configure a Pipeline. Zero fields take the defaults documented on
// them (the paper's settings).
type Options struct {
	// Prompts default to LoadPrompts(PromptVersion).
	Prompts *Prompts
	// Model is the chat model for formalization; DecomposeModel for
	// decomposition ("" = Model; both "" = the client's default model).
	Model, DecomposeModel string
	// Mode and Weights are the search settings (defaults: the Searcher's,
	// i.e. what `driftkit search` does).
	Mode    retrieval.Mode
	Weights *retrieval.Weights
	// PerQuery is how many top hits of each sub-query join the premise
	// set (default 1: the paper's union of best premises).
	PerQuery int
	// TopK is the whole-statement retrieval depth of NoDecompose and of
	// the context-only mode (default 5: the DPR baseline).
	TopK int
	// Illustrations is m, the most illustrative theorems (default 3);
	// IllustrationKinds the kinds that may illustrate (default theorem).
	Illustrations     int
	IllustrationKinds []string
	// Ablations, as the paper runs them. NoDecompose retrieves with the
	// whole statement (top TopK); NoIllustrate drops the illustrations;
	// NoRetrieval is zero-shot (no premises, no illustrations); Oracle
	// gives the gold premises (and illustrates them).
	NoDecompose, NoIllustrate, NoRetrieval, Oracle bool
	// Samples is n for pass@n (default 1), drawn at Temperature (default
	// 0.7) with seeds Seed, Seed+1, … (default 42). Decomposition runs at
	// temperature 0 with seed Seed.
	Samples     int
	Temperature float32
	Seed        int
	// Repair is the number of rounds that feed Lean's errors (or the
	// reason an answer had no statement) back to the formalizer.
	Repair int
	// MaxTokens bound formalization and decomposition answers (defaults
	// 2048 and 1024).
	MaxTokens, DecomposeMaxTokens int
	// Header is checked before statements of items without their own.
	Header string
	// Exclude names declarations never retrieved nor illustrated for any
	// item (an unseen-theorem protocol), on top of each item's own.
	Exclude []string
}

// Protocol names the ablation a pipeline runs, for records and summaries.
func (o Options) Protocol() string {
	var p string
	switch {
	case o.NoRetrieval:
		return "no-retrieval (zero-shot)"
	case o.Oracle:
		p = "oracle premises"
	case o.NoDecompose:
		p = fmt.Sprintf("no-decompose (top-%d of the whole statement)", o.TopK)
	default:
		p = fmt.Sprintf("drift (union of top-%d per sub-query)", o.PerQuery)
	}
	if o.NoIllustrate {
		return p + ", no illustrations"
	}
	return p + fmt.Sprintf(", up to %d illustrations", o.Illustrations)
}

func (o *Options) defaults() error {
	if o.Prompts == nil {
		p, err := LoadPrompts(PromptVersion)
		if err != nil {
			return err
		}
		o.Prompts = p
	}
	if o.DecomposeModel == "" {
		o.DecomposeModel = o.Model
	}
	if o.PerQuery == 0 {
		o.PerQuery = 1
	}
	if o.TopK == 0 {
		o.TopK = 5
	}
	if o.Illustrations == 0 {
		o.Illustrations = 3
	}
	if len(o.IllustrationKinds) == 0 {
		o.IllustrationKinds = []string{"theorem"}
	}
	if o.Samples == 0 {
		o.Samples = 1
	}
	if o.Temperature == 0 {
		o.Temperature = 0.7
	}
	if o.Seed == 0 {
		o.Seed = 42
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = 2048
	}
	if o.DecomposeMaxTokens == 0 {
		o.DecomposeMaxTokens = 1024
	}
	switch {
	case o.PerQuery < 0 || o.TopK < 0 || o.Illustrations < 0 || o.Samples < 0 || o.Repair < 0:
		return errors.New("per-query, top-k, illustrations, samples and repair must not be negative")
	case o.Temperature < 0:
		return errors.New("temperature must not be negative")
	case o.NoRetrieval && (o.Oracle || o.NoDecompose):
		return errors.New("no-retrieval excludes oracle and no-decompose")
	case o.Oracle && o.NoDecompose:
		return errors.New("oracle excludes no-decompose (the oracle needs no retrieval)")
	}
	return nil
}

// Pipeline runs DRIFT on one statement at a time. It is safe for
// concurrent use by any number of goroutines (its parts are: the Searcher,
// Corpus, chat client and Lean checkers all promise it). It owns none of
// them: the caller closes them after the last call has returned.
type Pipeline struct {
	opts    Options
	prompts *Prompts
	llm     Chatter
	ret     *retriever
	corpus  retrieval.Corpus
	lean    lean.Checker
	beq     EquivalenceChecker
}

// Parts are what a Pipeline talks to. Search and Corpus are needed unless
// the options make them idle (zero-shot); Chat is needed to formalize
// (not for Context); Lean and BEq are optional: without Lean, verification
// is skipped and recorded as skipped, never as passed.
type Parts struct {
	Search retrieval.Searcher
	Corpus retrieval.Corpus
	Chat   Chatter
	Lean   lean.Checker
	BEq    EquivalenceChecker
}

// New checks the options and returns a pipeline.
func New(parts Parts, o Options) (*Pipeline, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if !o.NoRetrieval && parts.Corpus == nil {
		return nil, errors.New("drift: a corpus (usage graph and entries) is needed unless retrieval is off")
	}
	if !o.NoRetrieval && !o.Oracle && parts.Search == nil {
		return nil, errors.New("drift: a searcher is needed unless retrieval is off or premises are the oracle's")
	}
	return &Pipeline{opts: o, prompts: o.Prompts, llm: parts.Chat, corpus: parts.Corpus, lean: parts.Lean, beq: parts.BEq,
		ret: &retriever{search: parts.Search, corpus: parts.Corpus, mode: o.Mode, w: o.Weights}}, nil
}

// Options returns the effective options (defaults filled in).
func (p *Pipeline) Options() Options { return p.opts }

// Verification says how samples are verified, for records and summaries.
func (p *Pipeline) Verification() string {
	if p.lean == nil {
		return "skipped: no Lean backend (--repl, --kimina or --lean)"
	}
	v := "lean:" + p.lean.Backend()
	if p.beq == nil {
		v += " (typecheck only: no BEq+ checker)"
	}
	return v
}

// Context is the formalization context of one statement.
type Context struct {
	SubQueries    []SubQuery     `json:"sub_queries,omitempty"`
	Premises      []Premise      `json:"premises"`
	Illustrations []Illustration `json:"illustrations"`
	// Seconds spent in each offline stage (retrieval includes the corpus
	// lookups; illustration the greedy selection).
	RetrieveSeconds   float64 `json:"retrieve_seconds"`
	IllustrateSeconds float64 `json:"illustrate_seconds"`
}

// Query is what a context is built for.
type Query struct {
	Statement string
	// Self is the statement's own declaration, never retrieved nor
	// illustrated.
	Self string
	// Gold premises, used only by the Oracle ablation.
	Gold []string
}

func (p *Pipeline) exclude(self string) []string {
	ex := p.opts.Exclude
	if self != "" && !contains(ex, self) {
		ex = append(append([]string{}, ex...), self)
	}
	return ex
}

// BuildContext retrieves and illustrates for the sub-queries given (nil:
// the whole statement as the only sub-query, top TopK, the offline
// context-only mode and the no-decompose baseline).
func (p *Pipeline) BuildContext(ctx context.Context, q Query, sq []SubQuery) (*Context, error) {
	c := &Context{Premises: []Premise{}, Illustrations: []Illustration{}}
	if p.opts.NoRetrieval {
		return c, nil
	}
	exclude := p.exclude(q.Self)
	start := time.Now()
	if p.opts.Oracle {
		for _, g := range retrieval.GoldPremises(q.Gold, q.Self) {
			if !contains(exclude, g) {
				c.Premises = append(c.Premises, Premise{Name: g})
			}
		}
	} else {
		k := p.opts.PerQuery
		if sq == nil {
			sq, k = []SubQuery{{Informal: q.Statement}}, p.opts.TopK
		}
		if err := p.ret.subQueries(ctx, sq, k, exclude); err != nil {
			return nil, err
		}
		c.SubQueries = sq
		c.Premises = Union(sq)
	}
	p.ret.describe(c.Premises)
	c.RetrieveSeconds = time.Since(start).Seconds()
	if !p.opts.NoIllustrate {
		start = time.Now()
		names := make([]string, 0, len(c.Premises))
		for _, pr := range c.Premises {
			if !pr.Missing {
				names = append(names, pr.Name)
			}
		}
		c.Illustrations = Illustrate(p.corpus, names, IllustrateOptions{Max: p.opts.Illustrations, Kinds: p.opts.IllustrationKinds, Exclude: exclude})
		if c.Illustrations == nil {
			c.Illustrations = []Illustration{}
		}
		c.IllustrateSeconds = time.Since(start).Seconds()
	}
	return c, nil
}

// Attempt is one answer of a sample: the first (round 0) or a repair.
type Attempt struct {
	Round        int    `json:"round"`
	Call         Call   `json:"call"`
	Statement    string `json:"statement,omitempty"`
	ExtractError string `json:"extract_error,omitempty"`
	// Typecheck is nil when nothing was checked (no Lean backend, or no
	// statement in the answer).
	Typecheck *Check `json:"typecheck,omitempty"`
}

// Sample is one of the n formalizations of an item.
type Sample struct {
	Index    int       `json:"index"`
	Seed     int       `json:"seed"`
	Attempts []Attempt `json:"attempts"`
	// Statement is the last attempt's statement ("" when it had none).
	Statement string `json:"statement,omitempty"`
	// Typechecks: the last attempt's statement elaborated. Always false
	// when verification was skipped (see Record.Verification).
	Typechecks bool `json:"typechecks"`
	// BEq is the BEq+ judgement against the reference, for a statement
	// that typechecks when the item has a reference and a checker exists.
	BEq *Equivalence `json:"beq,omitempty"`
}

// Equivalent reports whether BEq+ proved both directions.
func (s *Sample) Equivalent() bool { return s.BEq != nil && s.BEq.Verdict == Equivalent }

// Failure stages of a record.
const (
	StageDecompose = "decompose"
	StageRetrieve  = "retrieve"
	StageFormalize = "formalize"
	StageVerify    = "verify"
)

// Record is the outcome of one benchmark item: one line of the journal.
type Record struct {
	Key  string `json:"key"`
	Line int    `json:"line"`
	// Self is the item's own declaration (full_name), held out of
	// retrieval, illustration and the gold.
	Self   string `json:"self,omitempty"`
	Status string `json:"status"` // "ok" or "failed"
	// Stage, Error and Retryable describe a failure: Retryable failures
	// (the endpoint or Lean gave up) are redone by the next run; others
	// (an unusable decomposition) only with RunOptions.RetryFailed.
	Stage     string `json:"failed_stage,omitempty"`
	Error     string `json:"error,omitempty"`
	Retryable bool   `json:"retryable,omitempty"`

	Protocol     string   `json:"protocol"`
	Informal     string   `json:"informal"`
	Reference    string   `json:"reference,omitempty"`
	Header       string   `json:"header,omitempty"`
	Gold         []string `json:"gold,omitempty"`
	Verification string   `json:"verification"`

	Decompose     []Call         `json:"decompose,omitempty"`
	SubQueries    []SubQuery     `json:"sub_queries,omitempty"`
	Premises      []Premise      `json:"premises"`
	Illustrations []Illustration `json:"illustrations"`
	Samples       []Sample       `json:"samples"`

	Usage             Usage   `json:"usage"`
	RetrieveSeconds   float64 `json:"retrieve_seconds"`
	IllustrateSeconds float64 `json:"illustrate_seconds"`
	Seconds           float64 `json:"seconds"`
	FinishedAt        string  `json:"finished_at"`

	err error // the failure, for the runner (not recorded)
}

// Done reports whether a rerun should skip the item.
func (r *Record) Done(retryFailed bool) bool {
	return r.Status == "ok" || (r.Status == "failed" && !r.Retryable && !retryFailed)
}

// retryable classifies a failure: the endpoint or the Lean backend gave
// up (worth another run) rather than the model's content being unusable.
func retryable(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) || errors.Is(err, lean.ErrUnavailable) || errors.Is(err, errLeanCheck) ||
		errors.Is(err, context.DeadlineExceeded)
}

var errLeanCheck = errors.New("lean could not check")

// Formalize runs the whole pipeline on one item and returns its record. A
// failure of the item is in the record (Status "failed"); the error is
// only for the caller's context being cancelled, in which case the record
// is incomplete and must not be kept.
func (p *Pipeline) Formalize(ctx context.Context, it Item) (*Record, error) {
	start := time.Now()
	header := it.Header
	if strings.TrimSpace(header) == "" {
		header = p.opts.Header
	}
	rec := &Record{Key: it.Key, Line: it.Line, Self: it.Self, Status: "ok", Protocol: p.opts.Protocol(), Informal: it.Informal,
		Reference: it.Reference, Header: header, Gold: it.Gold, Verification: p.Verification(),
		Premises: []Premise{}, Illustrations: []Illustration{}, Samples: []Sample{}}
	fail := func(stage string, err error) (*Record, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rec.Status, rec.Stage, rec.Error, rec.Retryable, rec.err = "failed", stage, err.Error(), retryable(err), err
		rec.Seconds = time.Since(start).Seconds()
		rec.FinishedAt = time.Now().UTC().Format(time.RFC3339)
		return rec, nil
	}
	if p.llm == nil {
		return nil, errors.New("drift: no chat client")
	}
	var sq []SubQuery
	if !p.opts.NoRetrieval && !p.opts.Oracle && !p.opts.NoDecompose {
		var calls []Call
		var err error
		sq, calls, err = p.decompose(ctx, it.Informal)
		rec.Decompose = calls
		for _, c := range calls {
			rec.Usage.plus(c.Usage)
		}
		if err != nil {
			return fail(StageDecompose, err)
		}
		observe(ctx, "sub_queries", sq)
	}
	c, err := p.BuildContext(ctx, Query{Statement: it.Informal, Self: it.Self, Gold: it.Gold}, sq)
	if err != nil {
		rec.SubQueries = sq
		return fail(StageRetrieve, err)
	}
	rec.SubQueries, rec.Premises, rec.Illustrations = c.SubQueries, c.Premises, c.Illustrations
	if len(c.SubQueries) > 0 {
		observe(ctx, "retrieved", c.SubQueries)
	}
	observe(ctx, "premises", c.Premises)
	observe(ctx, "illustrations", c.Illustrations)
	rec.RetrieveSeconds, rec.IllustrateSeconds = c.RetrieveSeconds, c.IllustrateSeconds

	msgs := p.prompts.FormalizeMessages(FormalizeInput{Statement: it.Informal, Header: header, Premises: c.Premises, Illustrations: c.Illustrations})
	samples := make([]Sample, p.opts.Samples)
	errs := make([]error, p.opts.Samples)
	var wg sync.WaitGroup
	for i := range samples {
		wg.Add(1)
		go func() {
			defer wg.Done()
			samples[i], errs[i] = p.sample(ctx, it, header, msgs, i)
		}()
	}
	wg.Wait()
	rec.Samples = samples
	for _, s := range samples {
		for _, a := range s.Attempts {
			rec.Usage.plus(a.Call.Usage)
		}
	}
	for _, err := range errs {
		if err != nil {
			stage := StageFormalize
			if errors.Is(err, errLeanCheck) || errors.Is(err, lean.ErrUnavailable) {
				stage = StageVerify
			}
			return fail(stage, err)
		}
	}
	rec.Seconds = time.Since(start).Seconds()
	rec.FinishedAt = time.Now().UTC().Format(time.RFC3339)
	return rec, nil
}

// sample draws formalization i (seed Seed+i) and verifies it, with up to
// Repair repair rounds.
func (p *Pipeline) sample(ctx context.Context, it Item, header string, base []llm.Message, i int) (Sample, error) {
	s := Sample{Index: i, Seed: p.opts.Seed + i, Attempts: []Attempt{}}
	temp := p.opts.Temperature
	seed := s.Seed
	msgs := base
	for round := 0; round <= p.opts.Repair; round++ {
		stage := "formalize"
		if round > 0 {
			stage = "formalize-repair"
		}
		req := llm.ChatRequest{Model: p.opts.Model, Messages: msgs, MaxTokens: p.opts.MaxTokens, Temperature: &temp, Seed: &seed}
		call, resp, err := chat(ctx, p.llm, stage, req)
		a := Attempt{Round: round, Call: call}
		if err != nil {
			s.Attempts = append(s.Attempts, a)
			observe(ctx, "attempt", AttemptEvent{Sample: i, Attempt: a})
			return s, fmt.Errorf("sample %d: %w", i, err)
		}
		stmt, xerr := ExtractStatement(resp.Content)
		if xerr != nil {
			a.ExtractError = xerr.Error()
			s.Attempts = append(s.Attempts, a)
			observe(ctx, "attempt", AttemptEvent{Sample: i, Attempt: a})
			msgs = append(append([]llm.Message{}, msgs...), llm.Message{Role: "assistant", Content: resp.Content},
				p.prompts.FormalizeRepair("", nil, xerr.Error()))
			continue
		}
		a.Statement = stmt
		if p.lean != nil {
			ck, err := typecheck(ctx, p.lean, it.Key+"#"+strconv.Itoa(i)+"."+strconv.Itoa(round), header, stmt)
			if err != nil {
				s.Attempts = append(s.Attempts, a)
				observe(ctx, "attempt", AttemptEvent{Sample: i, Attempt: a})
				return s, fmt.Errorf("sample %d: %w", i, err)
			}
			a.Typecheck = ck
			if ck.Error != "" {
				s.Attempts = append(s.Attempts, a)
				observe(ctx, "attempt", AttemptEvent{Sample: i, Attempt: a})
				return s, fmt.Errorf("sample %d: %w: %s", i, errLeanCheck, ck.Error)
			}
		}
		s.Attempts = append(s.Attempts, a)
		observe(ctx, "attempt", AttemptEvent{Sample: i, Attempt: a})
		if a.Typecheck == nil || a.Typecheck.Pass {
			break
		}
		msgs = append(append([]llm.Message{}, msgs...), llm.Message{Role: "assistant", Content: resp.Content},
			p.prompts.FormalizeRepair(stmt, a.Typecheck.errorLines(), ""))
	}
	last := s.Attempts[len(s.Attempts)-1]
	s.Statement = last.Statement
	s.Typechecks = last.Typecheck != nil && last.Typecheck.Pass
	if s.Typechecks && it.Reference != "" && p.beq != nil {
		eq, err := p.beq.Equivalent(ctx, header, it.Reference, s.Statement)
		if err != nil {
			return s, fmt.Errorf("sample %d: BEq+: %w", i, err)
		}
		s.BEq = &eq
		if eq.Error != "" {
			return s, fmt.Errorf("sample %d: BEq+: %w: %s", i, errLeanCheck, eq.Error)
		}
	}
	return s, nil
}
