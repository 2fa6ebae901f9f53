package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/informalize"
	"github.com/driftkit/driftkit/llm"
)

// TestOpenInformalizer: the provider the command and a server get from the
// same options, and the contradictions refused as configuration errors.
func TestOpenInformalizer(t *testing.T) {
	chat := llm.Config{BaseURLs: []string{"http://127.0.0.1:1/v1"}, Model: "m", Concurrency: 1}
	vocab := filepath.Join(t.TempDir(), "vocab.json")
	if err := os.WriteFile(vocab, []byte(`{"words": {"foo": "foozle"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    InformalOptions
		want string // provider name; "" = ErrConfig
	}{
		{"default without a model", InformalOptions{}, "template"},
		{"default with a model", InformalOptions{Chat: chat, Repairs: 0, MaxTokens: 64}, "openai:m"},
		{"template beside a model", InformalOptions{Provider: "template", Chat: chat}, "template"},
		{"openai without a model", InformalOptions{Provider: "openai"}, ""},
		{"vocabulary for the chat model", InformalOptions{Chat: chat, Vocabulary: vocab}, ""},
		{"batch with the template", InformalOptions{Batch: true}, ""},
		{"unknown provider", InformalOptions{Provider: "gpt"}, ""},
	} {
		p, closeFn, err := OpenInformalizer(c.o)
		if c.want == "" {
			if !errors.Is(err, ErrConfig) {
				t.Errorf("%s: err = %v, want ErrConfig", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Name() != c.want {
			t.Errorf("%s: provider %s, want %s", c.name, p.Name(), c.want)
		}
		if l, ok := p.(*informalize.LLM); ok && (l.Repairs != c.o.Repairs || l.MaxTokens != c.o.MaxTokens) {
			t.Errorf("%s: repairs %d, max tokens %d; want %d, %d", c.name, l.Repairs, l.MaxTokens, c.o.Repairs, c.o.MaxTokens)
		}
		closeFn()
	}
	// A vocabulary file reaches the template; a bad one is an error naming it.
	p, _, err := OpenInformalizer(InformalOptions{Vocabulary: vocab})
	if err != nil {
		t.Fatal(err)
	}
	if tp := p.(informalize.Template); tp.Vocabulary == nil {
		t.Error("the vocabulary file was not loaded")
	}
	if _, _, err := OpenInformalizer(InformalOptions{Vocabulary: filepath.Join(t.TempDir(), "none.json")}); err == nil || errors.Is(err, ErrConfig) {
		t.Errorf("missing vocabulary file: err = %v", err)
	}
}
