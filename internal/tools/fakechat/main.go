// Command fakechat serves internal/testkit/fakeopenai as a separate process, for
// measuring a driftkit command against an OpenAI-compatible endpoint that
// answers at once (informalize/scripts/bench_bump.sh). It prints the base URL
// on the first line of stdout, serves until stdin closes or it gets SIGINT or
// SIGTERM, then writes what it was asked to -stats as JSON: the number of
// chat requests, of distinct declarations (the prompt's "Declaration:" line)
// and of declarations asked more than once, and the embeddings requests
// (requests, texts, distinct texts, texts sent more than once).
//
// It is a test fixture, not a model: every answer is the text
// "<label> statement of <declaration>", every embedding a deterministic
// unit vector of the text's sha256 (fakeopenai.Vector), -embed-dim long.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
)

// Stats is the -stats file.
type Stats struct {
	Label        string   `json:"label"`
	Requests     int64    `json:"requests"`
	Declarations int      `json:"declarations"`
	AskedTwice   int      `json:"asked_more_than_once"`
	Examples     []string `json:"asked_more_than_once_examples,omitempty"`
	// Embeddings counts the /v1/embeddings requests.
	Embeddings fakeopenai.EmbedStats `json:"embeddings"`
}

func main() {
	label := flag.String("label", "fake", "prefix of every answer, so that runs are told apart")
	latency := flag.Duration("latency", 0, "added to every answer")
	stats := flag.String("stats", "", "write request counts here as JSON on exit")
	dim := flag.Int("embed-dim", 16, "length of the embeddings it answers (1024 for BGE-M3)")
	flag.Parse()
	s := fakeopenai.New(fakeopenai.Options{
		Latency:  *latency,
		EmbedDim: *dim,
		Key:      fakeopenai.KeyFromLine("Declaration: "),
		Answer: func(r fakeopenai.Request) string {
			b, _ := json.Marshal(map[string]string{"informal_name": *label + " name of " + r.Key,
				"informal_statement": *label + " statement of " + r.Key + "."})
			return string(b)
		},
	})
	defer s.Close()
	fmt.Println(s.BaseURL())
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	if *stats == "" {
		return
	}
	st := Stats{Label: *label, Requests: s.Requests(), Embeddings: s.EmbedStats()}
	for k, ks := range s.Stats() {
		if ks.Requests == 0 {
			continue
		}
		st.Declarations++
		if ks.Requests > 1 {
			st.AskedTwice++
			st.Examples = append(st.Examples, k)
		}
	}
	slices.Sort(st.Examples)
	st.Examples = st.Examples[:min(len(st.Examples), 20)]
	b, _ := json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(*stats, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fakechat:", err)
		os.Exit(1)
	}
}
