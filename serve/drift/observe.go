package drift

import "context"

// Observer receives the progress of one Formalize call as it happens, so
// that a server can show a run live:
//
//   - "sub_queries": []SubQuery, after decomposition (before retrieval);
//   - "premises": []Premise and "illustrations": []Illustration, once the
//     context is built (the sub-queries then carry their hits:
//     "retrieved", []SubQuery);
//   - "attempt": AttemptEvent, after each formalization answer (and its
//     Lean check, when there is a backend).
//
// It is called from the call's goroutines (samples run concurrently), so
// it must be safe for concurrent use, return quickly, and not keep or
// modify what it is given past the call (copy or encode it).
type Observer func(kind string, data any)

// AttemptEvent is one formalization attempt of a sample.
type AttemptEvent struct {
	Sample  int     `json:"sample"`
	Attempt Attempt `json:"attempt"`
}

type observerKey struct{}

// WithObserver returns a context whose Formalize calls report to o.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observe(ctx context.Context, kind string, data any) {
	if o, _ := ctx.Value(observerKey{}).(Observer); o != nil {
		o(kind, data)
	}
}
