package drift

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/driftkit/driftkit/llm"
)

// ContextOnly is the offline mode: no LLM, the whole statement as the only
// sub-query (top TopK, as the no-decompose baseline), then the
// illustrations; the result carries the formalization prompt a user can
// paste into any chat model.
type ContextOnly struct {
	Statement string        `json:"statement"`
	Protocol  string        `json:"protocol"`
	Context   *Context      `json:"context"`
	Messages  []llm.Message `json:"messages"`
}

// BuildContextOnly builds the context of statement; self and exclusions as
// in Query.
func (p *Pipeline) BuildContextOnly(ctx context.Context, statement, header, self string) (*ContextOnly, error) {
	c, err := p.BuildContext(ctx, Query{Statement: statement, Self: self}, nil)
	if err != nil {
		return nil, err
	}
	o := p.opts
	o.NoDecompose = !o.NoRetrieval && !o.Oracle
	return &ContextOnly{Statement: statement, Protocol: o.Protocol(), Context: c,
		Messages: p.prompts.FormalizeMessages(FormalizeInput{Statement: statement, Header: header, Premises: c.Premises, Illustrations: c.Illustrations})}, nil
}

// WriteText prints the context: a commented summary (premises with their
// scores, illustrations with what they cover), then the prompt's messages.
func (co *ContextOnly) WriteText(w io.Writer) {
	c := co.Context
	fmt.Fprintf(w, "# DRIFT formalization context (%s)\n", co.Protocol)
	fmt.Fprintf(w, "# statement: %s\n", oneLine(co.Statement))
	fmt.Fprintf(w, "# premises (%d):\n", len(c.Premises))
	for _, p := range c.Premises {
		fmt.Fprintf(w, "#   %2d  %.4f  %-11s %s\n", p.Rank, p.Score, p.Kind, p.Name)
	}
	fmt.Fprintf(w, "# illustrations (%d, greedy over the usage graph):\n", len(c.Illustrations))
	for _, il := range c.Illustrations {
		fmt.Fprintf(w, "#   %s  (covers %s)\n", il.Name, strings.Join(il.Covers, ", "))
	}
	fmt.Fprintf(w, "# retrieval %.1f ms, illustration %.1f ms\n", 1000*c.RetrieveSeconds, 1000*c.IllustrateSeconds)
	fmt.Fprintln(w, "# paste the messages below into any chat model")
	for _, m := range co.Messages {
		fmt.Fprintf(w, "\n===== %s =====\n%s\n", m.Role, strings.TrimRight(m.Content, "\n"))
	}
}
