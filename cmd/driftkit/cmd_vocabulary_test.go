package main

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftkit/driftkit/internal/testkit/lockedbuf"
	"github.com/driftkit/driftkit/retrieval"
)

// TestServeAndMCPVocabulary: `serve --vocabulary` and `mcp --vocabulary`
// expand theorem searches with the phrase table, as `search --vocabulary`
// does: a made-up word the table maps to "prime" finds the primes, which
// the word alone does not reach lexically.
func TestServeAndMCPVocabulary(t *testing.T) {
	ws := buildRunWorkspace(t)
	vocab := filepath.Join(t.TempDir(), "vocab.json")
	if err := os.WriteFile(vocab, []byte(`{"about": "test", "phrases": {"zorblax": ["prime"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lexical := func(hits []retrieval.Hit) bool {
		for _, h := range hits {
			if h.Signals["bm25"] > 0 || h.Signals["name"] > 0 {
				return true
			}
		}
		return false
	}
	var out, errOut lockedbuf.Buffer
	base := startServe(t, &out, &errOut, "--ws", ws, "--vocabulary", vocab)
	code, body := get(t, base+"/api/search?all_kinds=1&k=5&q="+url.QueryEscape("zorblax"))
	var got struct {
		Hits []retrieval.Hit `json:"hits"`
	}
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
		t.Fatalf("/api/search: %d %v %s", code, err, body)
	}
	if len(got.Hits) == 0 || !strings.Contains(strings.ToLower(got.Hits[0].Name), "prime") || !lexical(got.Hits) {
		t.Errorf("serve --vocabulary: %+v, want a prime found by its words first", got.Hits)
	}
	var out2, errOut2 lockedbuf.Buffer
	base = startServe(t, &out2, &errOut2, "--ws", ws)
	_, body = get(t, base+"/api/search?all_kinds=1&k=5&q="+url.QueryEscape("zorblax"))
	got.Hits = nil
	json.Unmarshal([]byte(body), &got)
	if lexical(got.Hits) {
		t.Errorf("serve without the vocabulary: %+v, want nothing found by words", got.Hits)
	}

	// mcp over stdio: the search tool.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- commands["mcp"].run(ctx, &Env{Stdin: inR, Stdout: outW, Stderr: io.Discard}, []string{"--ws", ws, "--vocabulary", vocab})
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "zorblax", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("mcp search: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var hits struct {
		Hits []struct{ Name string } `json:"hits"`
	}
	json.Unmarshal(b, &hits)
	if len(hits.Hits) == 0 || !strings.Contains(strings.ToLower(hits.Hits[0].Name), "prime") {
		t.Errorf("mcp --vocabulary: %s, want a prime first", b)
	}
	cs.Close()
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("mcp: %v", err)
	}
	if err := commands["mcp"].run(ctx, &Env{Stdout: io.Discard, Stderr: io.Discard}, []string{"--ws", ws, "--vocabulary", filepath.Join(t.TempDir(), "none.json")}); err == nil {
		t.Error("mcp with a missing vocabulary file: no error")
	}
}
