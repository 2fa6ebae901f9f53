package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/llm"
)

// TestNewEncoderFromRegistry: the encoder comes from the registry by kind;
// an unknown kind or parameter is a configuration error naming what
// exists; the fallback label is the spec's.
func TestNewEncoderFromRegistry(t *testing.T) {
	ctx := context.Background()
	enc, closeEnc, err := NewEncoder(ctx, EncoderOptions{Kind: index.EncoderHash, Model: "bge-m3", LLM: llm.Config{BaseURLs: []string{"ftp://never-used"}}})
	if err != nil {
		t.Fatalf("hash with an unusable endpoint it never needs: %v", err)
	}
	closeEnc()
	if s := enc.Spec(); s.Kind != index.EncoderHash || s.Dims != index.DefaultHashDim || !s.Fallback {
		t.Errorf("hash spec %+v: want the default dimension and the fallback mark", s)
	}
	if enc, _, err := NewEncoder(ctx, EncoderOptions{Kind: index.EncoderHash, Dims: 32}); err != nil || enc.Dim() != 32 {
		t.Errorf("--dim 32: %v", err)
	}
	_, _, err = NewEncoder(ctx, EncoderOptions{Kind: "bert"})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "hash or openai") && !strings.Contains(err.Error(), ", hash") {
		t.Errorf("unknown kind: %v", err)
	}
	_, _, err = NewEncoder(ctx, EncoderOptions{Kind: index.EncoderHash, Params: map[string]string{"ngram": "3"}})
	if !errors.Is(err, ErrConfig) || !errors.Is(err, index.ErrEncoderParam) || !strings.Contains(err.Error(), `"ngram"`) {
		t.Errorf("unknown parameter: %v", err)
	}
	// A remote model's endpoint is checked when the encoder needs it.
	_, _, err = NewEncoder(ctx, EncoderOptions{Kind: index.EncoderOpenAI, Model: "bge-m3", LLM: llm.Config{BaseURLs: []string{"ftp://x"}}})
	if !errors.Is(err, ErrConfig) {
		t.Errorf("openai with a malformed base URL: %v", err)
	}
}
