package informalize

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/driftkit/driftkit/llm"
)

// Result is a provider's informal text for one declaration, with what it cost.
type Result struct {
	InformalName      string
	InformalStatement string
	PromptTokens      int64
	CompletionTokens  int64
	Attempts          int
}

// FailedError is a declaration a provider gave up on; Reason goes into the
// journal. Other errors (cancellation, a broken journal) stop the run.
type FailedError struct {
	Name   string
	Reason string
	Result Result // tokens spent on the failed attempts
	Err    error
}

func (e *FailedError) Error() string { return fmt.Sprintf("%s: %s", e.Name, e.Reason) }
func (e *FailedError) Unwrap() error { return e.Err }

// Provider writes informal text. Implementations must be safe for concurrent
// use: the scheduler calls Informalize from many goroutines (up to
// Options.Concurrency at once). Name, PromptVersion and UsesDeps must return
// the same values for the whole run (they key the journal and input_sha256).
//
// Lifetime: Informalize must not keep or modify *in after it returns. Run
// does not close a provider; the caller that created it (and any llm.Client
// behind it) releases it after Run returns.
type Provider interface {
	// Name is recorded in the provider column: "template", "openai:<model>".
	Name() string
	// PromptVersion is recorded in the prompt_version column.
	PromptVersion() string
	// UsesDeps reports whether prompts carry the dependencies' informal
	// text (and so must wait for them).
	UsesDeps() bool
	// Informalize returns the informal text of in, a *FailedError for a
	// declaration that cannot be done, or the context's error.
	Informalize(ctx context.Context, in *Input) (Result, error)
}

// LLM informalizes through an OpenAI-compatible chat endpoint, asking for a
// JSON object, parsing it strictly and, for a bad answer, retrying with a
// repair instruction up to Repairs times.
type LLM struct {
	Client      *llm.Client
	Model       string
	Prompts     *Prompts
	Repairs     int // default 2
	MaxTokens   int // default 512
	Temperature *float32

	placeholders atomic.Int64
}

// Placeholders counts the answers rejected as the prompt's placeholders
// copied back or as too short (ErrPlaceholder), repaired ones included.
func (p *LLM) Placeholders() int64 { return p.placeholders.Load() }

// NewLLM returns an LLM provider for client's model with the prompts of
// version PromptVersion.
func NewLLM(client *llm.Client, model string) (*LLM, error) {
	p, err := LoadPrompts(PromptVersion)
	if err != nil {
		return nil, err
	}
	if model == "" {
		model = client.Config().Model
	}
	if model == "" {
		return nil, errors.New("informalize: no model (--model)")
	}
	t := float32(0)
	return &LLM{Client: client, Model: model, Prompts: p, Repairs: 2, MaxTokens: 512, Temperature: &t}, nil
}

func (p *LLM) Name() string          { return "openai:" + p.Model }
func (p *LLM) PromptVersion() string { return p.Prompts.Version }
func (p *LLM) UsesDeps() bool        { return true }

// AnswerSchema is the JSON schema of an answer, sent with each request
// (ParseAnswer still checks every answer).
var AnswerSchema = llm.StringObjectSchema("informal_answer", "informal_name", "informal_statement")

// Request is the chat request for in (also written to batch files).
func (p *LLM) Request(in *Input) llm.ChatRequest {
	return llm.ChatRequest{Model: p.Model, Messages: p.Prompts.Messages(in), JSON: true, Schema: AnswerSchema, MaxTokens: p.MaxTokens, Temperature: p.Temperature}
}

func (p *LLM) Informalize(ctx context.Context, in *Input) (Result, error) {
	req := p.Request(in)
	var res Result
	var problem error
	for try := 0; try <= p.Repairs; try++ {
		resp, err := p.Client.Chat(ctx, req)
		res.Attempts += int(resp.Usage.Attempts)
		res.PromptTokens += resp.Usage.PromptTokens
		res.CompletionTokens += resp.Usage.CompletionTokens
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, &FailedError{Name: in.Name, Reason: err.Error(), Result: res, Err: err}
		}
		a, perr := ParseAnswer(resp.Content)
		if perr == nil {
			res.InformalName, res.InformalStatement = a.InformalName, a.InformalStatement
			return res, nil
		}
		problem = perr
		if errors.Is(perr, ErrPlaceholder) {
			p.placeholders.Add(1)
		}
		if resp.Content == "" {
			// Nothing to repair: ask the same question again.
			continue
		}
		req.Messages = append(req.Messages[:2:2],
			llm.Message{Role: "assistant", Content: truncate(resp.Content, 2000)},
			llm.Message{Role: "user", Content: p.Prompts.Repair(perr.Error())})
	}
	return res, &FailedError{Name: in.Name, Reason: fmt.Sprintf("%v (after %d answers)", problem, p.Repairs+1), Result: res, Err: problem}
}

// FilesHash identifies the prompt files' bytes (part of the input hash).
func (p *LLM) FilesHash() string { return p.Prompts.hash }
