package tomap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driftkit/driftkit/internal/journal"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/workspace"
)

// Config configures a run. Zero numeric fields take the defaults noted.
type Config struct {
	Agents Agents
	// Checker verifies Lean code; nil means verification is skipped and
	// recorded as such in every outcome (SC and the rates are then null).
	Checker lean.Checker
	// defaulted is set by WithDefaults, which then returns the config as it
	// is: applying it again must not turn a "none" (0 retries, stored as 0
	// after defaulting) back into the default.
	defaulted bool
	// Variants to run on every problem, in order (default: ToMap with 10
	// rounds).
	Variants []Variant
	// Pool is K, the pool capacity (default 4); Seeds the number of seed
	// decompositions (default 1).
	Pool, Seeds int
	// Gate is ε in [0, 1]: a frontier candidate with every score ≥ ε is
	// committed at once (nil: DefaultGate; 0 commits the first judged seed).
	Gate *float64
	// Retries: answers after the first one in each conversation (default 3
	// each; negative: none).
	DecomposeRetries, FormalizerRetries, ProverRetries, E2ERetries int
	// Header is the fixed Lean header (default: the prompts' header.lean).
	Header string
	// Jobs is the number of problems worked on at once (default 4). Model
	// calls are further bounded by each llm.Client's limits.
	Jobs int
	// Out is the output folder: journal/, lean/, results.jsonl,
	// summary.json, summary.md.
	Out string
	// Prompts default to the current version.
	Prompts *Prompts
	// Log receives warnings (default: discard); Progress the progress
	// display (nil: none).
	Log      *slog.Logger
	Progress io.Writer
	// Protocol describes the run for the summary (benchmark, split, limit).
	Protocol string
	// Models names the model of each role for the summary.
	Models map[string]string
	// LeanLabel says which Lean project the Checker runs (for example the
	// REPL command and folder). It is part of every Lean check's journal
	// key and of the settings fingerprint, so a run against another
	// Mathlib does not reuse old verdicts.
	LeanLabel string
}

// Defaults.
const (
	DefaultRounds  = 10
	DefaultPool    = 4
	DefaultGate    = 1.0
	DefaultRetries = 3
	DefaultJobs    = 4
)

func retries(n int) int {
	if n == 0 {
		return DefaultRetries
	}
	return max(n, 0)
}

// WithDefaults fills zero fields, once: a defaulted config is returned
// unchanged (Run, Fingerprint, EstimateRun and the summary each call it).
func (c Config) WithDefaults() Config {
	if c.defaulted {
		return c
	}
	c.defaulted = true
	if len(c.Variants) == 0 {
		c.Variants = []Variant{{Method: MethodToMap, Rounds: DefaultRounds}}
	}
	if c.Pool <= 0 {
		c.Pool = DefaultPool
	}
	if c.Seeds <= 0 {
		c.Seeds = 1
	}
	if c.Gate == nil {
		c.Gate = ptr(DefaultGate)
	}
	c.DecomposeRetries = retries(c.DecomposeRetries)
	c.FormalizerRetries = retries(c.FormalizerRetries)
	c.ProverRetries = retries(c.ProverRetries)
	c.E2ERetries = retries(c.E2ERetries)
	if c.Jobs <= 0 {
		c.Jobs = DefaultJobs
	}
	if c.Prompts == nil {
		c.Prompts = MustPrompts()
	}
	if c.Header == "" {
		c.Header = c.Prompts.Header
	}
	if c.Log == nil {
		c.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c
}

// Validate reports a configuration that cannot run.
func (c Config) Validate() error {
	var errs []error
	if c.Out == "" {
		errs = append(errs, errors.New("no output folder"))
	}
	a := c.Agents
	for name, ag := range map[string]*Agent{"decomposer": a.Decomposer, "formalizer": a.Formalizer, "prover": a.Prover, "judge": a.Judge, "sf": a.SF} {
		if ag == nil || ag.Client == nil || ag.Model == "" {
			errs = append(errs, fmt.Errorf("no %s model", name))
		}
	}
	seen := map[string]bool{}
	for _, v := range c.Variants {
		switch v.Method {
		case MethodToMap, MethodProofFlow, MethodEnd2End:
		default:
			errs = append(errs, fmt.Errorf("unknown method %q", v.Method))
		}
		if v.Rounds < 0 {
			errs = append(errs, fmt.Errorf("negative rounds %d", v.Rounds))
		}
		if seen[v.Name()] {
			errs = append(errs, fmt.Errorf("variant %s given twice", v.Name()))
		}
		seen[v.Name()] = true
	}
	if c.Gate != nil && (*c.Gate < 0 || *c.Gate > 1) {
		errs = append(errs, fmt.Errorf("gate %v: want a score in [0, 1]", *c.Gate))
	}
	return errors.Join(errs...)
}

type runner struct {
	errs        atomic.Int64
	cfg         Config
	prompts     *Prompts
	header      string
	leanLabel   string
	fingerprint string
}

// Fingerprint hashes the settings that shape a method's outcome: pool,
// seeds, gate, retries, header, prompts, each agent's model and sampling,
// and the Lean backend. Outcomes journalled under another fingerprint are
// recomputed (their journalled requests are still reused where identical).
func (c Config) Fingerprint() string {
	c = c.WithDefaults()
	agent := func(a *Agent) string {
		if a == nil {
			return ""
		}
		return fmt.Sprintf("%s/%g/%d", a.Model, a.Temperature, a.MaxTokens)
	}
	verification := "skipped"
	if c.Checker != nil {
		verification = c.Checker.Backend() + ":" + c.LeanLabel
	}
	a := c.Agents
	h := sha256.New()
	fmt.Fprintf(h, "%d|%d|%g|%d|%d|%d|%d|%s|%s|%s|%s|%s|%s|%s|%s", c.Pool, c.Seeds, *c.Gate, c.DecomposeRetries, c.FormalizerRetries,
		c.ProverRetries, c.E2ERetries, strings.TrimSpace(c.Header), c.Prompts.Hash(), agent(a.Decomposer), agent(a.Formalizer),
		agent(a.Prover), agent(a.Judge), agent(a.SF), verification)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Output file names inside Config.Out.
const (
	JournalDir  = "journal"
	LeanDir     = "lean"
	ResultsFile = "results.jsonl"
	SummaryJSON = "summary.json"
	SummaryMD   = "summary.md"
)

// Run runs every variant on every problem and writes the outputs. Problems
// run concurrently (Jobs at once); each problem's variants run in order on
// its own journal. A problem whose variant already has a result in the
// journal is not run again; one whose calls failed is recorded with status
// "error" and retried by the next run, replaying what it had journalled.
// One failing problem never stops the others; a Lean backend that stops
// working (lean.ErrUnavailable) stops the run, since no problem could be
// checked. On ctx cancellation or such a stop Run returns the error after
// the problems in flight stop; what they journalled is kept, and no summary
// is written.
func Run(ctx context.Context, cfg Config, problems []Problem) (*Summary, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, prompts: cfg.Prompts, header: strings.TrimSpace(cfg.Header), leanLabel: cfg.LeanLabel, fingerprint: cfg.Fingerprint()}
	if err := os.MkdirAll(filepath.Join(cfg.Out, JournalDir), 0o755); err != nil {
		return nil, err
	}
	total := int64(len(problems) * len(cfg.Variants))
	var bar *progress.Bar
	if cfg.Progress != nil {
		bar = progress.NewTo(cfg.Progress, "tomap", total)
		defer bar.Finish()
	}
	// A fatal error (our own files, or a Lean backend that stopped working)
	// stops every problem: rctx is cancelled, problems in flight record
	// nothing, and the journals keep what was done.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fatal error
	for w := 0; w < min(cfg.Jobs, len(problems)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				err := r.problem(rctx, &problems[i], bar)
				if err != nil && (rctx.Err() == nil || errors.Is(err, lean.ErrUnavailable)) {
					mu.Lock()
					fatal = errors.Join(fatal, err)
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for i := range problems {
		select {
		case jobs <- i:
		case <-rctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if fatal != nil {
		return nil, fatal
	}
	return r.finish(problems)
}

func (r *runner) journalPath(p *Problem) string {
	return filepath.Join(r.cfg.Out, JournalDir, FileName(p.Key)+".jsonl")
}

// openSession replays a problem's journal.
func (r *runner) openSession(p *Problem) (*session, error) {
	path := r.journalPath(p)
	j, rep, err := journal.Open(path, journal.Options[Record]{Validate: validateRecord,
		// Said before the cut: a run killed between the cut and a later
		// report would leave the next run nothing to report.
		BeforeCut: func(line, bytes int) {
			r.cfg.Log.Warn("journal: dropped a torn last line (a write cut by a crash); that step will be redone", "file", path, "line", line, "bytes", bytes)
		},
	})
	if err != nil {
		return nil, err
	}
	for _, b := range rep.Bad {
		r.cfg.Log.Warn("journal: skipped an unusable line", "err", b)
	}
	s := &session{r: r, p: p, j: j, chats: map[string]*Record{}, checks: map[string]*Record{}, results: map[string]*Outcome{}}
	for i := range rep.Records {
		rec := &rep.Records[i]
		switch rec.Kind {
		case KindChat:
			if rec.Error == "" {
				s.chats[rec.Key] = rec
			}
		case KindLean:
			if rec.Lean.Error == "" {
				s.checks[rec.Key] = rec
			}
		case KindResult:
			s.results[rec.Variant] = rec.Outcome
		}
	}
	return s, nil
}

// problem runs the variants of one problem that have no finished result.
// Its error is for our own files only; failed calls become "error" outcomes.
func (r *runner) problem(ctx context.Context, p *Problem, bar *progress.Bar) error {
	s, err := r.openSession(p)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Key, err)
	}
	defer s.j.Close()
	for _, v := range r.cfg.Variants {
		if o := s.results[v.Name()]; o != nil && o.Status == "done" && o.Fingerprint == r.fingerprint {
			r.tick(bar, false)
			continue
		}
		o, err := s.runVariant(ctx, v)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, lean.ErrUnavailable) {
			return fmt.Errorf("%s: %w", p.Key, err) // the backend is gone: stop the run
		}
		if err != nil {
			o = &Outcome{Problem: p.Key, Variant: v.Name(), Method: v.Method, Status: "error", Error: err.Error(), Fingerprint: r.fingerprint,
				Verification: "skipped", Spend: *s.t, Finished: time.Now().UTC()}
			if v.Method == MethodToMap {
				o.Rounds = v.Rounds
			}
			r.cfg.Log.Warn("problem failed; a rerun retries it", "problem", p.Key, "variant", v.Name(), "err", err)
		}
		if err := s.j.Append(Record{Kind: KindResult, Variant: v.Name(), Outcome: o, At: time.Now().UTC()}); err != nil {
			return err
		}
		if err := s.j.Sync(); err != nil {
			return err
		}
		s.results[v.Name()] = o
		if o.Code != "" {
			path := filepath.Join(r.cfg.Out, LeanDir, v.Name(), FileName(p.Key)+".lean")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := workspace.WriteFileAtomic(path, []byte(o.Code)); err != nil {
				return err
			}
		}
		r.tick(bar, o.Status != "done")
	}
	return nil
}

// tick advances the progress display by one finished variant.
func (r *runner) tick(bar *progress.Bar, failed bool) {
	if failed {
		r.errs.Add(1)
	}
	if bar == nil {
		return
	}
	bar.Describe(fmt.Sprintf("%d errors", r.errs.Load()))
	bar.Add(1)
}

// finish reads every selected problem's results back from the journals and
// writes results.jsonl, summary.json and summary.md atomically.
func (r *runner) finish(problems []Problem) (*Summary, error) {
	var outcomes []*Outcome
	var spend Spend
	for i := range problems {
		p := &problems[i]
		rep, err := readJournal(r.journalPath(p))
		if err != nil {
			return nil, err
		}
		latest := map[string]*Outcome{}
		for k := range rep.Records {
			rec := &rep.Records[k]
			switch rec.Kind {
			case KindResult:
				if rec.Outcome.Fingerprint == r.fingerprint {
					latest[rec.Variant] = rec.Outcome
				}
			case KindChat:
				spend.FreshCalls++
				spend.PromptTokens += rec.PromptTokens
				spend.CompletionTokens += rec.CompletionTokens
				spend.CostUSD += rec.CostUSD
				spend.ModelSeconds += rec.Seconds
			case KindLean:
				spend.FreshLeanCalls++
				spend.LeanSeconds += rec.Seconds
			}
		}
		for _, v := range r.cfg.Variants {
			if o := latest[v.Name()]; o != nil {
				outcomes = append(outcomes, o)
			}
		}
	}
	sum := Summarize(r.cfg, len(problems), outcomes)
	sum.Spend = spend
	var lines []byte
	for _, o := range outcomes {
		b, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		lines = append(append(lines, b...), '\n')
	}
	if err := workspace.WriteFileAtomic(filepath.Join(r.cfg.Out, ResultsFile), lines); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := workspace.WriteFileAtomic(filepath.Join(r.cfg.Out, SummaryJSON), append(b, '\n')); err != nil {
		return nil, err
	}
	if err := workspace.WriteFileAtomic(filepath.Join(r.cfg.Out, SummaryMD), []byte(sum.Markdown())); err != nil {
		return nil, err
	}
	return sum, nil
}

func readJournal(path string) (*journal.Replay[Record], error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &journal.Replay[Record]{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return journal.Read(path, f, journal.Options[Record]{Validate: validateRecord})
}

// SortVariants orders variants as the tables show them: baselines first,
// then ToMap by rounds.
func SortVariants(vs []Variant) {
	rank := map[Method]int{MethodEnd2End: 0, MethodProofFlow: 1, MethodToMap: 2}
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].Method != vs[j].Method {
			return rank[vs[i].Method] < rank[vs[j].Method]
		}
		return vs[i].Rounds < vs[j].Rounds
	})
}
