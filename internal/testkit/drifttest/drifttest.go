// Package drifttest serves DRIFT's prompts from a fake OpenAI endpoint
// (internal/testkit/fakeopenai) with plausible answers, for tests and benchmarks of
// anything that runs the DRIFT pipeline (the runner, the command, the
// server): decompositions of the statement's content words into several
// sub-queries, and a fenced Lean statement.
package drifttest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/serve/drift"
)

// Answer returns a fakeopenai answer function for the prompts p: a
// decomposition request gets up to SubQueries sub-queries made of the
// statement's longer words (a sub-query per word, its capitalised form as
// the formal guess); a formalization request gets a statement in a lean
// block.
func Answer(p *drift.Prompts, subQueries int) func(fakeopenai.Request) string {
	return func(r fakeopenai.Request) string {
		msgs := r.Chat.Messages
		last := ""
		for _, m := range msgs {
			if m.Role == "user" {
				last = m.Content
			}
		}
		if len(msgs) == 0 || msgs[0].Content != p.DecomposeSystem {
			return "```lean\ntheorem fake_statement (n : ℕ) : n = n := by\n  rfl\n```"
		}
		stmt := last[strings.LastIndex(last, "Informal statement:\n")+len("Informal statement:\n"):]
		type sq struct {
			Informal string `json:"informal"`
			Formal   string `json:"formal"`
		}
		var out []sq
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(stmt, func(r rune) bool { return !unicode.IsLetter(r) }) {
			w = strings.ToLower(w)
			if len(w) < 5 || seen[w] || len(out) == subQueries {
				continue
			}
			seen[w] = true
			out = append(out, sq{Informal: w, Formal: strings.ToUpper(w[:1]) + w[1:]})
		}
		if len(out) == 0 {
			out = append(out, sq{Informal: strings.TrimSpace(stmt), Formal: "Statement"})
		}
		b, _ := json.Marshal(map[string]any{"sub_queries": out})
		return string(b)
	}
}

const serveEnv = "DRIFTTEST_SERVE_LATENCY"

// ServeIfChild turns the current process into a fake DRIFT endpoint when
// StartProcess started it: call it first thing in TestMain.
func ServeIfChild() {
	if os.Getenv(serveEnv) == "" {
		return
	}
	p, err := drift.LoadPrompts(drift.PromptVersion)
	if err != nil {
		fmt.Fprintln(os.Stderr, "drifttest:", err)
		os.Exit(2)
	}
	fakeopenai.ServeChild(serveEnv, func(lat time.Duration) fakeopenai.Options {
		return fakeopenai.Options{Latency: lat, Answer: Answer(p, 6)}
	})
}

// StartProcess runs the fake endpoint in a child copy of the test binary,
// so that a benchmark measures the runner's CPU alone. stop ends it.
func StartProcess(latency time.Duration) (baseURL string, stop func(), err error) {
	return fakeopenai.StartChild(serveEnv, latency)
}
