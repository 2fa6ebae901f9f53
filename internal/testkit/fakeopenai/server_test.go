package fakeopenai

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func client(s *Server) *openai.Client {
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = s.BaseURL()
	return openai.NewClientWithConfig(cfg)
}

func TestChatWireFormatAndFaults(t *testing.T) {
	s := New(Options{Key: KeyFromLine("Declaration: "), Fault: func(r Request) Fault {
		if r.Key == "bad" {
			return BadRequest
		}
		return OK
	}})
	defer s.Close()
	c := client(s)
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{
		{Role: "user", Content: "Declaration: A.b\nmore"}, {Role: "assistant", Content: "x"}, {Role: "user", Content: "fix it"}}}
	resp, err := c.CreateChatCompletion(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var a map[string]string
	if err := json.Unmarshal([]byte(resp.Choices[0].Message.Content), &a); err != nil || !strings.Contains(a["informal_statement"], "A.b") {
		t.Errorf("content %q", resp.Choices[0].Message.Content)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
		t.Errorf("usage %+v", resp.Usage)
	}
	req.Messages[0].Content = "Declaration: bad"
	_, err = c.CreateChatCompletion(context.Background(), req)
	var ae *openai.APIError
	if !errorsAs(err, &ae) || ae.HTTPStatusCode != 400 {
		t.Errorf("err %v, want API error 400", err)
	}
	st := s.Stats()
	if st["A.b"].Requests != 1 || st["A.b"].Completed != 1 || st["bad"].Completed != 0 || s.Faults()[BadRequest] != 1 {
		t.Errorf("stats %+v faults %v", st, s.Faults())
	}
}

func errorsAs(err error, target **openai.APIError) bool {
	ae, ok := err.(*openai.APIError)
	if ok {
		*target = ae
	}
	return ok
}

func TestEmbeddingsSingleStringInput(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	resp, err := http.Post(s.BaseURL()+"/embeddings", "application/json", strings.NewReader(`{"model":"m","input":"hello","dimensions":4}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var er openai.EmbeddingResponse
	json.NewDecoder(resp.Body).Decode(&er)
	if len(er.Data) != 1 || len(er.Data[0].Embedding) != 4 || er.Data[0].Embedding[0] != Vector("hello", 4)[0] {
		t.Errorf("response %+v", er)
	}
	resp2, _ := http.Post(s.BaseURL()+"/embeddings", "application/json", strings.NewReader(`{"model":"m","input":3}`))
	if resp2.StatusCode != 400 {
		t.Errorf("numeric input: status %d", resp2.StatusCode)
	}
	resp2.Body.Close()
}

func TestFilesAndBatches(t *testing.T) {
	s := New(Options{Key: KeyFromLine("Declaration: "), BatchPolls: 1})
	defer s.Close()
	c := client(s)
	ctx := context.Background()
	var up openai.UploadBatchFileRequest
	up.AddChatCompletion("A.b", openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Declaration: A.b"}}})
	up.AddChatCompletion("A.c", openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Declaration: A.c"}}})
	f, err := c.UploadBatchFile(ctx, up)
	if err != nil || f.Purpose != "batch" {
		t.Fatalf("upload: %+v %v", f, err)
	}
	b, err := c.CreateBatch(ctx, openai.CreateBatchRequest{InputFileID: f.ID, Endpoint: openai.BatchEndpointChatCompletions})
	if err != nil || b.Status != "validating" || b.RequestCounts.Total != 2 {
		t.Fatalf("create: %+v %v", b, err)
	}
	if b, _ = c.RetrieveBatch(ctx, b.ID); b.Status != "in_progress" {
		t.Fatalf("first poll: %s", b.Status)
	}
	if b, _ = c.RetrieveBatch(ctx, b.ID); b.Status != "completed" || b.OutputFileID == nil {
		t.Fatalf("second poll: %+v", b)
	}
	raw, err := c.GetFileContent(ctx, *b.OutputFileID)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(raw)
	raw.Close()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("output %q", buf.String())
	}
	var line struct {
		CustomID string `json:"custom_id"`
		Response struct {
			StatusCode int                           `json:"status_code"`
			Body       openai.ChatCompletionResponse `json:"body"`
		} `json:"response"`
	}
	json.Unmarshal([]byte(lines[0]), &line)
	if line.CustomID != "A.b" || line.Response.StatusCode != 200 || !strings.Contains(line.Response.Body.Choices[0].Message.Content, "A.b") {
		t.Errorf("line %+v", line)
	}
	if s.Stats()["A.b"].Batched != 1 {
		t.Errorf("batched count %+v", s.Stats())
	}
	if _, err := c.CreateBatch(ctx, openai.CreateBatchRequest{InputFileID: "nope", Endpoint: openai.BatchEndpointChatCompletions}); err == nil {
		t.Error("batch with a missing file accepted")
	}
}
