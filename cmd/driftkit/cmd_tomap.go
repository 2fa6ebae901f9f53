package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/tomap"
)

func init() {
	register(&command{name: "tomap", short: "formalize informal proofs: ToMap, ProofFlow and end-to-end on one runner", run: runToMap})
}

func runToMap(ctx context.Context, env *Env, args []string) error {
	fs := env.newFlags("tomap", "--bench FILE --out DIR --model M [--repl CMD | --kimina URL | --lean CMD] [flags]",
		"Formalizes each benchmark problem (an informal theorem and proof) in Lean 4. ToMap evolves a pool of\n"+
			"decompositions under rubric judges (faithful, provable, Lean-friendly), commits one through a gate,\n"+
			"then a Formalizer states each unit as a lemma and a Prover proves it, with Lean's errors fed back.\n"+
			"--method proofflow executes one decomposition without evolution; --method end2end translates the\n"+
			"whole proof at once. --rounds 0,1,3,5,10 runs the scaling study. Every model call and Lean check is\n"+
			"journalled under DIR; rerunning the same command resumes without repeating them. The summary\n"+
			"(DIR/summary.md, summary.json) has SC, SF, SC∧SF, per-unit formalized and proved rates, wall time\n"+
			"and output tokens per problem, rounds used and Lean calls.")
	bench := fs.String("bench", "", "benchmark file: ProofFlowBench JSON or miniF2F-style JSON lines")
	out := fs.String("out", "", "output folder (journal, Lean files, results, summary)")
	methods := fs.String("method", "tomap", "methods, comma-separated: tomap, proofflow, end2end")
	rounds := fs.String("rounds", "10", "ToMap rounds T; a comma-separated list runs the scaling study (0,1,3,5,10)")
	pool := fs.Int("pool", tomap.DefaultPool, "ToMap pool capacity K")
	seeds := fs.Int("seeds", 1, "ToMap seed decompositions sampled before the rounds")
	gate := fs.Float64("gate", tomap.DefaultGate, "commit a frontier candidate as soon as every rubric score is ≥ this ε")
	decRetries := fs.Int("decompose-retries", tomap.DefaultRetries, "answers after the first when a decomposition is not a valid DAG")
	formRetries := fs.Int("formalizer-retries", tomap.DefaultRetries, "answers after the first when a unit's statement does not typecheck")
	proveRetries := fs.Int("prover-retries", tomap.DefaultRetries, "answers after the first when a unit's proof fails")
	e2eRetries := fs.Int("end2end-retries", tomap.DefaultRetries, "self-repair rounds of the end-to-end baseline")
	limit := fs.Int("limit", 0, "run the first N selected problems (0: all)")
	split := fs.String("split", "all", "all, dev or test: a fixed half of the benchmark by key hash (tune on dev, report test)")
	only := fs.String("only", "", "comma-separated problem keys to run (e.g. \"naturalproofs_stein.json/5\")")
	jobs := fs.Int("jobs", tomap.DefaultJobs, "problems worked on at once (model calls are further bounded by --concurrency)")
	headerFile := fs.String("header", "", "file with the fixed Lean header (default: import Mathlib, Aesop; maxHeartbeats; opens)")
	noLean := fs.Bool("no-lean", false, "run without a Lean backend: verification is recorded as skipped (SC and rates n/a)")
	dry := fs.Bool("dry-run", false, "estimate model calls, Lean checks and tokens; request and write nothing")
	quiet := fs.Bool("quiet", false, "no progress display")
	cfg := llm.ConfigFromEnv()
	cfg.RegisterFlags(fs)
	var agentFlags tomap.AgentFlags
	agentFlags.Register(fs)
	var lo lean.Options
	lo.AddFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *bench == "":
		return usagef(fs, "--bench is required")
	case *out == "" && !*dry:
		return usagef(fs, "--out is required")
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case *split != "all" && *split != "dev" && *split != "test":
		return fmt.Errorf("%w: --split %q: want all, dev or test", errUsage, *split)
	case *gate < 0 || *gate > 1:
		return fmt.Errorf("%w: --gate %v: want a score in [0, 1]", errUsage, *gate)
	case *pool < 1 || *seeds < 1 || *jobs < 1 || *limit < 0:
		return fmt.Errorf("%w: --pool, --seeds and --jobs must be at least 1, --limit at least 0", errUsage)
	case *decRetries < 0 || *formRetries < 0 || *proveRetries < 0 || *e2eRetries < 0:
		return fmt.Errorf("%w: retries must not be negative", errUsage)
	case lo.Configured() && *noLean:
		return fmt.Errorf("%w: --no-lean with a Lean backend flag", errUsage)
	case !lo.Configured() && !*noLean && !*dry:
		return fmt.Errorf("%w: no Lean backend: give --repl CMD, --kimina URL or --lean CMD (or --no-lean to run without verification)", errUsage)
	}
	variants, err := tomap.ParseVariants(*methods, *rounds)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := cfg.Finalize(); err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	agents, models, closeAgents, err := agentFlags.Build(cfg)
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	defer closeAgents()
	problems, err := tomap.ReadProblems(*bench)
	if err != nil {
		return err
	}
	problems, err = selectProblems(problems, *split, *only, *limit)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	retries := func(n int) int {
		if n == 0 {
			return -1 // the package's "none"
		}
		return n
	}
	tc := tomap.Config{
		Agents: agents, Variants: variants, Pool: *pool, Seeds: *seeds, Gate: gate,
		DecomposeRetries: retries(*decRetries), FormalizerRetries: retries(*formRetries), ProverRetries: retries(*proveRetries), E2ERetries: retries(*e2eRetries),
		Jobs: *jobs, Out: *out, Models: models,
		Log:       slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Protocol:  protocol(*bench, *split, *only, *limit, len(problems)),
		LeanLabel: leanLabel(lo),
	}
	if *headerFile != "" {
		b, err := os.ReadFile(*headerFile)
		if err != nil {
			return err
		}
		tc.Header = string(b)
	}
	if *dry {
		tomap.WriteEstimates(env.Stdout, tomap.EstimateRun(tc, problems))
		return nil
	}
	if !*quiet {
		tc.Progress = env.Stderr
	}
	if *noLean {
		fmt.Fprintln(env.Stderr, "driftkit tomap: --no-lean: verification is recorded as skipped (SC and the formalized/proved rates are n/a, never passed)")
	} else {
		ck, err := openLean(ctx, env, lo)
		if err != nil {
			return err
		}
		defer ck.Close()
		tc.Checker = ck
	}
	sum, err := tomap.Run(ctx, tc, problems)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(env.Stderr, "driftkit tomap: interrupted; rerun the same command to resume (the journal is in %s)\n", *out)
			return err
		}
		return fmt.Errorf("%w\n  (what was done is journalled in %s; rerun the same command to resume)", err, *out)
	}
	fmt.Fprint(env.Stdout, sum.Markdown())
	fmt.Fprintf(env.Stdout, "\nwritten: %s/{%s,%s,%s}, Lean files under %s/%s, journals under %s/%s\n", *out,
		tomap.SummaryMD, tomap.SummaryJSON, tomap.ResultsFile, *out, tomap.LeanDir, *out, tomap.JournalDir)
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
