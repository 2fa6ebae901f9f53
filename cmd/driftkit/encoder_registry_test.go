package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/index"
)

// vowelEncoder is a registered kind that marks itself a fallback: the
// commands must label it from its spec, not from its kind's name.
type vowelEncoder struct{}

func (vowelEncoder) Name() string { return "test-vowels" }
func (vowelEncoder) Dim() int     { return 5 }
func (vowelEncoder) Spec() index.EncoderSpec {
	return index.EncoderSpec{Kind: "test-vowels", Dims: 5, Normalize: "l2", Fallback: true}
}
func (vowelEncoder) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 5)
		for j, c := range "aeiou" {
			v[j] = float32(strings.Count(strings.ToLower(t), string(c))) + 0.1
		}
		var n float32
		for _, x := range v {
			n += x * x
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(float64(n)))
		}
		out[i] = v
	}
	return out, nil
}

func init() {
	index.RegisterEncoder("test-vowels", func(context.Context, index.EncoderSpec, index.EncoderEnv) (index.Encoder, error) {
		return vowelEncoder{}, nil
	})
}

// TestEncoderFromRegistry: `index --encoder` takes any registered kind;
// the fallback label of index and search comes from the encoder's spec;
// an unknown kind or parameter is a usage error naming what exists.
func TestEncoderFromRegistry(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	lib := filepath.Join("..", "..", "extract", "rauto", "testdata", "small.jsonl")
	if code := run([]string{"import", "rauto", "--library", lib, "--ws", ws}, io.Discard, io.Discard); code != 0 {
		t.Fatal("import")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"index", "--ws", ws, "--encoder", "test-vowels", "--quiet", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("index --encoder test-vowels: exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Encoder  string `json:"encoder"`
		Fallback bool   `json:"encoder_fallback"`
		Dims     int    `json:"dims"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.Encoder != "test-vowels" || !rep.Fallback || rep.Dims != 5 {
		t.Errorf("index --json: %+v (%v)", rep, err)
	}
	stdout.Reset()
	if code := run([]string{"index", "--ws", ws, "--encoder", "test-vowels", "--quiet"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "encoder test-vowels (offline fallback encoder), 5 dims") {
		t.Errorf("index: exit %d, %q", code, stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"search", "--ws", ws, "--mode", "dense", "a cloud"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "# dense vectors from the offline test-vowels encoder (fallback)") {
		t.Errorf("search: exit %d, %q", code, stdout.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "--ws", ws, "--encoder", "bert"}, `--encoder "bert" (hash, openai or test-vowels)`},
		{[]string{"index", "--ws", ws, "--encoder-param", "x=1"}, `unknown encoder parameter "x" for encoder hash`},
		{[]string{"index", "--ws", ws, "--encoder-param", "novalue"}, `want key=value`},
		{[]string{"train", "head", "--ws", ws, "--encoder", "bert"}, `--encoder "bert" (hash, openai or test-vowels)`},
	} {
		stderr.Reset()
		if code := run(c.args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}
