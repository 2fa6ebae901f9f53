package informalize

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/driftkit/driftkit/internal/journal"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

func strp(s string) *string { return &s }

// synthDecls makes a library of n declarations in 4 modules whose statement
// dependencies form a random DAG (each depends on up to 3 earlier ones) plus
// a 3-cycle and a self-reference, and mentions of names outside the library.
func synthDecls(n int, seed uint64) []workspace.Declaration {
	rng := rand.New(rand.NewPCG(seed, 1))
	kinds := []string{workspace.KindTheorem, workspace.KindDefinition, workspace.KindTheorem, workspace.KindStructure, workspace.KindTheorem}
	var ds []workspace.Declaration
	for i := 0; i < n; i++ {
		mod := fmt.Sprintf("Lib.M%d", i%4)
		name := fmt.Sprintf("Lib.N%d.decl_%03d", i%7, i)
		d := workspace.Declaration{Library: "lib", Revision: "r1", Name: name, Kind: kinds[i%len(kinds)], Keyword: "theorem",
			Module: mod, Path: strings.ReplaceAll(mod, ".", "/") + ".lean", LineStart: int32(i + 1), LineEnd: int32(i + 2),
			Signature: fmt.Sprintf("(x : ℕ) (h : %d ≤ x) : x ∣ %d", i, i*2), Code: fmt.Sprintf("theorem %s : True := trivial", name)}
		if i%3 == 0 {
			d.Docstring = strp(fmt.Sprintf("Docstring of %s.", name))
		}
		for k := 0; k < 3 && i > 0; k++ {
			if rng.IntN(3) > 0 {
				d.StatementDeps = append(d.StatementDeps, ds[rng.IntN(i)].Name)
			}
		}
		d.StatementDeps = append(d.StatementDeps, "Nat.le") // outside the library
		ds = append(ds, d)
	}
	if n >= 6 {
		// A cycle a → b → c → a and a self loop.
		ds[3].StatementDeps = append(ds[3].StatementDeps, ds[5].Name)
		ds[4].StatementDeps = append(ds[4].StatementDeps, ds[3].Name)
		ds[5].StatementDeps = append(ds[5].StatementDeps, ds[4].Name)
		ds[2].StatementDeps = append(ds[2].StatementDeps, ds[2].Name)
	}
	return ds
}

func writeFixture(t testing.TB, dir string, ds []workspace.Declaration) {
	t.Helper()
	if err := workspace.WriteTable(filepath.Join(dir, workspace.DeclarationsFile), ds); err != nil {
		t.Fatal(err)
	}
	mods := map[string]bool{}
	var ms []workspace.Module
	for _, d := range ds {
		if !mods[d.Module] {
			mods[d.Module] = true
			ms = append(ms, workspace.Module{Library: "lib", Revision: "r1", Name: d.Module, Path: d.Path, Docstring: strp("# Module " + d.Module)})
		}
	}
	if err := workspace.WriteTable(filepath.Join(dir, workspace.ModulesFile), ms); err != nil {
		t.Fatal(err)
	}
}

// fakeAnswer answers with text naming the declaration, so that dependents'
// prompts can be checked for their dependencies' statements.
func fakeAnswer(r fakeopenai.Request) string {
	b, _ := json.Marshal(map[string]string{"informal_name": "Name of " + r.Key, "informal_statement": "Statement of " + r.Key + "."})
	return string(b)
}

var keyFn = fakeopenai.KeyFromLine("Declaration: ")

func newFake(opts fakeopenai.Options) *fakeopenai.Server {
	if opts.Key == nil {
		opts.Key = keyFn
	}
	if opts.Answer == nil {
		opts.Answer = fakeAnswer
	}
	return fakeopenai.New(opts)
}

func llmProvider(t testing.TB, url string, conc int) *LLM {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURLs: []string{url}, APIKey: "k", Model: "fake", Concurrency: conc,
		MaxRetries: 8, RequestTimeout: 500 * 1e6, BackoffBase: 1e6, BackoffMax: 20 * 1e6, Prices: llm.Prices{Prompt: 0.5, Completion: 1.5}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p, err := NewLLM(c, "fake")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func quietOpts(p Provider) Options {
	return Options{Provider: p, Out: io.Discard, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func readInformal(t testing.TB, dir string) []workspace.Informal {
	t.Helper()
	rows, err := workspace.ReadTable[workspace.Informal](filepath.Join(dir, workspace.InformalFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func journalNames(t testing.TB, dir string) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, workspace.InformalJournalFile))
	if os.IsNotExist(err) {
		return map[string]bool{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := journal.Read(f.Name(), f, journalOptions)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range rep.Records {
		if e.Status == StatusOK {
			out[e.Name] = true
		}
	}
	return out
}

var _ = openai.ChatMessageRoleUser
