package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/driftkit/driftkit/internal/countflag"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/tomap"
)

func init() {
	register(newCommand("tomap", "formalize informal proofs: ToMap, ProofFlow and end-to-end on one runner", help{"--bench FILE --out DIR --model M [--repl CMD | --kimina URL | --lean CMD] [flags]",
		"Formalizes each benchmark problem (an informal theorem and proof) in Lean 4. ToMap evolves a pool of\n" +
			"decompositions under rubric judges (faithful, provable, Lean-friendly), commits one through a gate,\n" +
			"then a Formalizer states each unit as a lemma and a Prover proves it, with Lean's errors fed back.\n" +
			"--method proofflow executes one decomposition without evolution; --method end2end translates the\n" +
			"whole proof at once. --rounds 0,1,3,5,10 runs the scaling study. Every model call and Lean check is\n" +
			"journalled under DIR; rerunning the same command resumes without repeating them. The summary\n" +
			"(DIR/summary.md, summary.json) has SC, SF, SC∧SF, per-unit formalized and proved rates, wall time\n" +
			"and output tokens per problem, rounds used and Lean calls."}, runToMap))
}

// tomapOptions are the flags of `driftkit tomap`.
type tomapOptions struct {
	stage        stageFlags // --quiet
	Bench        string
	Out          string
	Methods      string
	Rounds       string
	Pool         int
	Seeds        int
	Gate         float64
	DecRetries   int
	FormRetries  int
	ProveRetries int
	E2ERetries   int
	Limit        int
	Split        string
	Only         string
	Jobs         int
	HeaderFile   string
	NoLean       bool
	DryRun       bool
	LLM          llm.Config
	Agents       tomap.AgentFlags
	Lean         lean.Options

	variants []tomap.Variant // --method × --rounds
}

func (o *tomapOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Bench, "bench", "", "benchmark file: ProofFlowBench JSON or miniF2F-style JSON lines")
	fs.StringVar(&o.Out, "out", "", "output folder (journal, Lean files, results, summary)")
	fs.StringVar(&o.Methods, "method", "tomap", "methods, comma-separated: tomap, proofflow, end2end")
	fs.StringVar(&o.Rounds, "rounds", "10", "ToMap rounds T; a comma-separated list runs the scaling study (0,1,3,5,10)")
	fs.IntVar(&o.Pool, "pool", tomap.DefaultPool, "ToMap pool capacity K")
	fs.IntVar(&o.Seeds, "seeds", 1, "ToMap seed decompositions sampled before the rounds")
	fs.Float64Var(&o.Gate, "gate", tomap.DefaultGate, "commit a frontier candidate as soon as every rubric score is ≥ this ε")
	countflag.Var(fs, &o.DecRetries, "decompose-retries", tomap.DefaultRetries, "answers after the first when a decomposition is not a valid DAG")
	countflag.Var(fs, &o.FormRetries, "formalizer-retries", tomap.DefaultRetries, "answers after the first when a unit's statement does not typecheck")
	countflag.Var(fs, &o.ProveRetries, "prover-retries", tomap.DefaultRetries, "answers after the first when a unit's proof fails")
	countflag.Var(fs, &o.E2ERetries, "end2end-retries", tomap.DefaultRetries, "self-repair rounds of the end-to-end baseline")
	fs.IntVar(&o.Limit, "limit", 0, "run the first N selected problems (0: all)")
	fs.StringVar(&o.Split, "split", "all", "all, dev or test: a fixed half of the benchmark by key hash (tune on dev, report test)")
	fs.StringVar(&o.Only, "only", "", "comma-separated problem keys to run (e.g. \"naturalproofs_stein.json/5\")")
	fs.IntVar(&o.Jobs, "jobs", tomap.DefaultJobs, "problems worked on at once (model calls are further bounded by --concurrency)")
	fs.StringVar(&o.HeaderFile, "header", "", "file with the fixed Lean header (default: import Mathlib, Aesop; maxHeartbeats; opens)")
	fs.BoolVar(&o.NoLean, "no-lean", false, "run without a Lean backend: verification is recorded as skipped (SC and rates n/a)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "estimate model calls, Lean checks and tokens; request and write nothing")
	o.stage.AddFlags(fs, withQuiet, "")
	o.LLM = llm.ConfigFromEnv()
	o.LLM.RegisterFlags(fs)
	o.Agents.Register(fs)
	o.Lean.AddFlags(fs)
}

func (o *tomapOptions) Validate(args []string) error {
	switch {
	case o.Bench == "":
		return usagef("--bench is required")
	case o.Out == "" && !o.DryRun:
		return usagef("--out is required")
	case len(args) > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, args[0])
	case o.Split != "all" && o.Split != "dev" && o.Split != "test":
		return fmt.Errorf("%w: --split %q: want all, dev or test", errUsage, o.Split)
	case o.Gate < 0 || o.Gate > 1:
		return fmt.Errorf("%w: --gate %v: want a score in [0, 1]", errUsage, o.Gate)
	case o.Pool < 1 || o.Seeds < 1 || o.Jobs < 1 || o.Limit < 0:
		return fmt.Errorf("%w: --pool, --seeds and --jobs must be at least 1, --limit at least 0", errUsage)
	case o.Lean.Configured() && o.NoLean:
		return fmt.Errorf("%w: --no-lean with a Lean backend flag", errUsage)
	case !o.Lean.Configured() && !o.NoLean && !o.DryRun:
		return fmt.Errorf("%w: no Lean backend: give --repl CMD, --kimina URL or --lean CMD (or --no-lean to run without verification)", errUsage)
	}
	var err error
	if o.variants, err = tomap.ParseVariants(o.Methods, o.Rounds); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := o.LLM.Finalize(); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	return nil
}

// config is the tomap.Config of the flags, without the agents, the
// checker and the progress output.
func (o *tomapOptions) config(env *Env, problems []tomap.Problem) (tomap.Config, error) {
	tc := tomap.Config{
		Variants: o.variants, Pool: o.Pool, Seeds: o.Seeds, Gate: &o.Gate,
		DecomposeRetries: o.DecRetries, FormalizerRetries: o.FormRetries, ProverRetries: o.ProveRetries, E2ERetries: o.E2ERetries, // countflag: 0 is None
		Jobs: o.Jobs, Out: o.Out,
		Log:       slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Protocol:  protocol(o.Bench, o.Split, o.Only, o.Limit, len(problems)),
		LeanLabel: leanLabel(o.Lean),
	}
	if o.HeaderFile != "" {
		b, err := os.ReadFile(o.HeaderFile)
		if err != nil {
			return tc, err
		}
		tc.Header = string(b)
	}
	return tc, nil
}

func runToMap(ctx context.Context, o *tomapOptions, env *Env, args []string) error {
	agents, models, closeAgents, err := o.Agents.Build(o.LLM)
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	defer closeAgents()
	problems, err := tomap.ReadProblems(o.Bench)
	if err != nil {
		return err
	}
	problems, err = selectProblems(problems, o.Split, o.Only, o.Limit)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	tc, err := o.config(env, problems)
	if err != nil {
		return err
	}
	tc.Agents, tc.Models = agents, models
	if o.DryRun {
		tomap.WriteEstimates(env.Stdout, tomap.EstimateRun(tc, problems))
		return nil
	}
	if !o.stage.Quiet {
		tc.Progress = env.Stderr
	}
	if o.NoLean {
		fmt.Fprintln(env.Stderr, "driftkit tomap: --no-lean: verification is recorded as skipped (SC and the formalized/proved rates are n/a, never passed)")
	} else {
		ck, err := openLean(ctx, env, o.Lean)
		if err != nil {
			return err
		}
		defer ck.Close()
		tc.Checker = ck
	}
	sum, err := tomap.Run(ctx, tc, problems)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(env.Stderr, "driftkit tomap: interrupted; rerun the same command to resume (the journal is in %s)\n", o.Out)
			return err
		}
		return fmt.Errorf("%w\n  (what was done is journalled in %s; rerun the same command to resume)", err, o.Out)
	}
	fmt.Fprint(env.Stdout, sum.Markdown())
	fmt.Fprintf(env.Stdout, "\nwritten: %s/{%s,%s,%s}, Lean files under %s/%s, journals under %s/%s\n", o.Out,
		tomap.SummaryMD, tomap.SummaryJSON, tomap.ResultsFile, o.Out, tomap.LeanDir, o.Out, tomap.JournalDir)
	for _, v := range sum.Variants {
		if v.Errors > 0 {
			return fmt.Errorf("%d problems of %s failed (model or Lean calls gave up); rerun to retry them", v.Errors, v.Variant)
		}
	}
	return nil
}

// selectProblems applies --split, --only and --limit, in that order.
func selectProblems(ps []tomap.Problem, split, only string, limit int) ([]tomap.Problem, error) {
	keys := map[string]bool{}
	for _, k := range splitList(only) {
		keys[k] = true
	}
	var out []tomap.Problem
	for _, p := range ps {
		if split != "all" && tomap.Split(p.Key) != split {
			continue
		}
		if len(keys) > 0 {
			if !keys[p.Key] {
				continue
			}
			delete(keys, p.Key)
		}
		out = append(out, p)
	}
	if len(keys) > 0 {
		var missing []string
		for k := range keys {
			missing = append(missing, k)
		}
		return nil, fmt.Errorf("--only: no problem %s in the benchmark (or outside --split)", strings.Join(missing, ", "))
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	if len(out) == 0 {
		return nil, errors.New("no problem selected")
	}
	return out, nil
}

// leanLabel names the Lean project that checks (see tomap.Config.LeanLabel).
func leanLabel(o lean.Options) string {
	switch {
	case o.REPL != "":
		return fmt.Sprintf("repl %q in %q", o.REPL, o.REPLDir)
	case o.Kimina != "":
		return "kimina " + o.Kimina
	case o.Lean != "":
		return fmt.Sprintf("lean %q in %q", o.Lean, o.LeanDir)
	}
	return ""
}

func protocol(bench, split, only string, limit, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, split %s", bench, split)
	if only != "" {
		fmt.Fprintf(&b, ", only %s", only)
	}
	if limit > 0 {
		fmt.Fprintf(&b, ", first %d", limit)
	}
	fmt.Fprintf(&b, ": %d problems", n)
	return b.String()
}

// flagNeeds: the rounds, pool, seeds and gate are ToMap's search and the
// self-repair rounds the end-to-end baseline's; with another --method they
// would be ignored.
func (o *tomapOptions) flagNeeds() []flagNeed {
	methods := map[tomap.Method]bool{}
	known := true
	for _, f := range strings.Split(o.Methods, ",") {
		switch m := tomap.Method(strings.TrimSpace(f)); m {
		case tomap.MethodToMap, tomap.MethodProofFlow, tomap.MethodEnd2End:
			methods[m] = true
		case "":
		default:
			known = false // Validate names it
		}
	}
	return []flagNeed{
		{flags: []string{"rounds", "pool", "seeds", "gate"}, holds: methods[tomap.MethodToMap] || !known, needs: "--method tomap"},
		{flags: []string{"end2end-retries"}, holds: methods[tomap.MethodEnd2End] || !known, needs: "--method end2end"},
	}
}
