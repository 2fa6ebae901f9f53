package app

import (
	"fmt"

	"github.com/driftkit/driftkit/informalize"
	"github.com/driftkit/driftkit/llm"
)

// Informalization providers by name.
const (
	ProviderOpenAI   = "openai"
	ProviderTemplate = "template"
)

// InformalOptions choose how declarations are informalized: the chat model
// of an OpenAI-compatible endpoint, or the offline template fallback.
type InformalOptions struct {
	// Provider is ProviderOpenAI, ProviderTemplate or "" (openai when
	// Chat.Model is set, else the template).
	Provider string
	// Chat configures the endpoint (Finalize already called).
	Chat llm.Config
	// Vocabulary is the template's JSON vocabulary file ("" for Mathlib's).
	Vocabulary string
	// Repairs and MaxTokens tune the openai provider: repair attempts per
	// bad answer (0: none) and the completion token limit (0: the
	// provider's default, 512).
	Repairs, MaxTokens int
	// Batch is set for the Batch API modes, which need the openai provider.
	Batch bool
}

// ResolveProvider returns the provider name o selects.
func (o InformalOptions) ResolveProvider() string {
	if o.Provider != "" {
		return o.Provider
	}
	if o.Chat.Model != "" {
		return ProviderOpenAI
	}
	return ProviderTemplate
}

// OpenInformalizer makes the provider o selects. Contradictory choices (a
// vocabulary for the chat model, openai without a model, batch mode with
// the template) wrap ErrConfig. The returned function closes the chat
// client; call it when the run is over.
func OpenInformalizer(o InformalOptions) (informalize.Provider, func(), error) {
	switch name := o.ResolveProvider(); name {
	case ProviderTemplate:
		if o.Batch {
			return nil, nil, fmt.Errorf("%w: batch mode needs --provider openai and --model", ErrConfig)
		}
		tp := informalize.Template{}
		if o.Vocabulary != "" {
			v, err := informalize.LoadVocabulary(o.Vocabulary)
			if err != nil {
				return nil, nil, err
			}
			tp.Vocabulary = v
		}
		return tp, func() {}, nil
	case ProviderOpenAI:
		if o.Vocabulary != "" {
			return nil, nil, fmt.Errorf("%w: --vocabulary is the template provider's", ErrConfig)
		}
		if o.Chat.Model == "" {
			return nil, nil, fmt.Errorf("%w: --provider openai needs --model", ErrConfig)
		}
		client, err := llm.New(o.Chat)
		if err != nil {
			return nil, nil, err
		}
		p, err := informalize.NewLLM(client, o.Chat.Model)
		if err != nil {
			client.Close()
			return nil, nil, err
		}
		p.Repairs = o.Repairs
		if o.MaxTokens != 0 {
			p.MaxTokens = o.MaxTokens
		}
		return p, client.Close, nil
	default:
		return nil, nil, fmt.Errorf("%w: unknown --provider %q (openai or template)", ErrConfig, name)
	}
}
