package index

import (
	"context"
	"errors"
)

// OpenAIEncoder placeholder (filled in below).
type OpenAIEncoder struct {
	model, baseURL string
	dim, maxChars  int
}

func (o *OpenAIEncoder) Name() string    { return EncoderOpenAI + ":" + o.model }
func (o *OpenAIEncoder) Dim() int        { return o.dim }
func (o *OpenAIEncoder) Model() string   { return o.model }
func (o *OpenAIEncoder) BaseURL() string { return o.baseURL }
func (o *OpenAIEncoder) MaxChars() int   { return o.maxChars }
func (o *OpenAIEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	return nil, errors.New("not implemented")
}

func NewOpenAIEncoderFromEnv(model string, dim int) (*OpenAIEncoder, error) {
	return nil, errors.New("not implemented")
}

type OpenAIConfig struct {
	BaseURL, APIKey, Model                string
	BatchSize, Concurrency, MaxChars, Dim int
}

func OpenAIConfigFromEnv() OpenAIConfig { return OpenAIConfig{} }
func NewOpenAIEncoder(ctx context.Context, c OpenAIConfig) (*OpenAIEncoder, error) {
	return nil, errors.New("not implemented")
}
