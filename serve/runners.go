package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/serve/tomap"
)

// observedChecker reports every Lean check of a run as a "lean" event:
// the snippet id, pass/complete, the first error and the time. It owns
// nothing: Close is a no-op (the server closes the real checker).
type observedChecker struct {
	lean.Checker
	emit Emit
}

func (c observedChecker) Check(ctx context.Context, snippets []lean.Snippet) ([]lean.Result, error) {
	res, err := c.Checker.Check(ctx, snippets)
	for _, r := range res {
		ev := map[string]any{"id": r.ID, "pass": r.Pass, "complete": r.Complete, "seconds": r.Time.Seconds(), "backend": r.Backend}
		for _, m := range r.Messages {
			if m.Severity == "error" {
				ev["error"] = truncate(m.Data, 2000)
				break
			}
		}
		c.emit("lean", "verify", ev)
	}
	if err != nil {
		c.emit("lean", "verify", map[string]any{"error": err.Error()})
	}
	return res, err
}

func (c observedChecker) Close() error { return nil }

// ToMapRunners makes RunConfig.ToMap from the settings of `driftkit
// tomap`: base carries the agents (chat clients and models), the Lean
// checker (nil: verification skipped and recorded so), the header and the
// ToMap settings; each request runs one problem with the method and rounds
// it asks for, in the run's own folder.
func ToMapRunners(base tomap.Config) func(ws *Workspace, req *ToMapRequest) (Runner, error) {
	return func(ws *Workspace, req *ToMapRequest) (Runner, error) {
		method := req.Method
		if method == "" {
			method = string(tomap.MethodToMap)
		}
		rounds := req.Rounds
		if rounds == 0 {
			rounds = tomap.DefaultRounds
		}
		variants, err := tomap.ParseVariants(method, strconv.Itoa(rounds))
		if err != nil {
			return nil, badField("method", "%v", err)
		}
		theorem, _ := tomap.RestoreLaTeX(req.Theorem)
		proof, _ := tomap.RestoreLaTeX(req.Proof)
		p := tomap.Problem{Key: "request", Theorem: theorem, Proof: proof, FormalStatement: req.FormalStatement, Line: 1}
		return RunnerFunc(func(ctx context.Context, rc *RunContext) (any, error) {
			out, err := rc.Dir()
			if err != nil {
				return nil, err
			}
			c := base
			c.Out, c.Variants, c.Jobs, c.Progress = filepath.Join(out, "tomap"), variants, 1, nil
			c.Protocol = "one problem posted to driftkit serve"
			if c.Checker != nil {
				c.Checker = observedChecker{c.Checker, rc.Emit}
			}
			rc.Emit("stage_started", "tomap", map[string]any{"variant": variants[0].Name(), "verification": verification(c.Checker)})
			sum, err := tomap.Run(ctx, c, []tomap.Problem{p})
			if err != nil {
				return nil, err
			}
			outcomes, err := readOutcomes(filepath.Join(c.Out, tomap.ResultsFile))
			if err != nil {
				return nil, err
			}
			rc.Emit("stage_finished", "tomap", map[string]any{"outcomes": len(outcomes)})
			res := map[string]any{"summary": sum, "outcomes": outcomes}
			for _, o := range outcomes {
				if o.Status != "done" {
					return res, fmt.Errorf("%s: %s", o.Variant, o.Error)
				}
			}
			return res, nil
		}), nil
	}
}

func verification(c lean.Checker) string {
	if c == nil {
		return "skipped: no Lean backend (--repl, --kimina or --lean)"
	}
	return "lean:" + c.Backend()
}

func readOutcomes(path string) ([]tomap.Outcome, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []tomap.Outcome
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var o tomap.Outcome
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			return nil, errors.New("tomap results: " + err.Error())
		}
		out = append(out, o)
	}
	return out, nil
}
