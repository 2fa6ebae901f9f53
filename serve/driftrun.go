package serve

import (
	"context"
	"errors"
	"sync"

	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/serve/drift"
)

// DriftConfig is what DRIFT runs use besides a workspace's index: the
// chat client and model (nil Chat: only the offline context), and the Lean
// backend (nil: verification skipped and recorded so).
type DriftConfig struct {
	Chat  drift.Chatter
	Model string
	Lean  lean.Checker
	// Header is the default Lean header of statements ("" : the runner's).
	Header string
}

var (
	driftPromptsOnce sync.Once
	driftPrompts     *drift.Prompts
	driftPromptsErr  error
)

func driftOptions(req *DriftRequest, model string) (drift.Options, error) {
	driftPromptsOnce.Do(func() { driftPrompts, driftPromptsErr = drift.LoadPrompts(drift.PromptVersion) })
	if driftPromptsErr != nil {
		return drift.Options{}, driftPromptsErr
	}
	return drift.Options{Prompts: driftPrompts, Model: model, PerQuery: req.PerQuery, TopK: req.TopK, Illustrations: req.Illustrations,
		NoDecompose: req.NoDecompose, NoIllustrate: req.NoIllustrate, Samples: req.Samples, Repair: req.Repair, Exclude: req.Exclude}, nil
}

// DriftContext makes RunConfig.Context: DRIFT's offline retrieve +
// illustrate over the workspace's index, with the prompt.
func DriftContext() func(ctx context.Context, ws *Workspace, req *DriftRequest) (any, error) {
	return func(ctx context.Context, ws *Workspace, req *DriftRequest) (any, error) {
		o, err := driftOptions(req, "")
		if err != nil {
			return nil, err
		}
		v, release := ws.Index.Pin() // one generation for the retrieval and the lookups
		defer release()
		p, err := drift.New(drift.Parts{Search: v, Corpus: v}, o)
		if err != nil {
			return nil, badField("body", "%v", err)
		}
		return p.BuildContextOnly(ctx, req.Statement, req.Header, req.Self)
	}
}

// DriftRunners makes RunConfig.Drift: one DRIFT item per request, through
// the configured model and Lean backend, reporting each stage as events.
func DriftRunners(dc DriftConfig) func(ws *Workspace, req *DriftRequest) (Runner, error) {
	return func(ws *Workspace, req *DriftRequest) (Runner, error) {
		o, err := driftOptions(req, dc.Model)
		if err != nil {
			return nil, err
		}
		if o.Header == "" {
			o.Header = dc.Header
		}
		if _, err := drift.New(drift.Parts{Search: ws.Index, Corpus: ws.Index, Chat: dc.Chat}, o); err != nil {
			return nil, badField("body", "%v", err)
		}
		item := drift.Item{Key: "request", Line: 1, Informal: req.Statement, Reference: req.Reference, Header: req.Header, Self: req.Self}
		return RunnerFunc(func(ctx context.Context, rc *RunContext) (any, error) {
			v, release := ws.Index.Pin() // the run reads one generation throughout
			defer release()
			parts := drift.Parts{Search: v, Corpus: v, Chat: dc.Chat}
			if dc.Lean != nil {
				ck := observedChecker{dc.Lean, rc.Emit}
				parts.Lean, parts.BEq = ck, drift.LeanBEq{Checker: ck}
			}
			p, err := drift.New(parts, o)
			if err != nil {
				return nil, err
			}
			rc.Emit("stage_started", "drift", map[string]any{"protocol": p.Options().Protocol(), "verification": p.Verification()})
			ctx = drift.WithObserver(ctx, func(kind string, data any) {
				switch kind {
				case "sub_queries":
					rc.Emit("sub_queries", "decompose", map[string]any{"sub_queries": data})
				case "retrieved":
					rc.Emit("sub_queries", "retrieve", map[string]any{"sub_queries": data})
				case "premises":
					rc.Emit("premises", "retrieve", map[string]any{"premises": data})
				case "illustrations":
					rc.Emit("illustrations", "illustrate", map[string]any{"illustrations": data})
				case "attempt":
					ev := data.(drift.AttemptEvent)
					d := map[string]any{"sample": ev.Sample, "round": ev.Attempt.Round, "statement": ev.Attempt.Statement}
					if ev.Attempt.ExtractError != "" {
						d["extract_error"] = ev.Attempt.ExtractError
					}
					if tc := ev.Attempt.Typecheck; tc != nil {
						d["pass"], d["typecheck"] = tc.Pass, tc
					}
					rc.Emit("attempt", "formalize", d)
				default:
					rc.Emit(kind, "formalize", data)
				}
			})
			rec, err := p.Formalize(ctx, item)
			if err != nil {
				return nil, err
			}
			if rec.Status != "ok" {
				return rec, errors.New(rec.Stage + ": " + rec.Error)
			}
			return rec, nil
		}), nil
	}
}
