package informalize

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
)

// runBatchFileLikeVLLM answers a batch input file the way `vllm run-batch`
// (or the OpenAI Batch API) writes its output.
func runBatchFileLikeVLLM(t *testing.T, in, out string, breakOne bool) int {
	t.Helper()
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var req openai.BatchChatCompletionRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatalf("%s: not a batch request line: %v", in, err)
		}
		if req.Method != "POST" || req.URL != openai.BatchEndpointChatCompletions || req.Body.Model != "fake" ||
			req.Body.ResponseFormat == nil || req.Body.ResponseFormat.Type != "json_schema" || req.Body.ResponseFormat.JSONSchema == nil || req.Body.ResponseFormat.JSONSchema.Name != "informal_answer" {
			t.Fatalf("bad request line %+v", req)
		}
		key := keyFn(&req.Body)
		if key != req.CustomID {
			t.Fatalf("custom_id %q but prompt is about %q", req.CustomID, key)
		}
		content := fakeAnswer(fakeopenai.Request{Key: key})
		if breakOne && len(lines) == 0 {
			content = "no json here"
		}
		body := openai.ChatCompletionResponse{ID: "x", Object: "chat.completion", Model: "fake",
			Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: content}, FinishReason: "stop"}},
			Usage:   openai.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("vllm-%d", len(lines)), "custom_id": req.CustomID,
			"response": map[string]any{"status_code": 200, "request_id": "r", "body": body}, "error": nil})
		lines = append(lines, string(b))
	}
	lines = append(lines, "garbage line")
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return len(lines) - 1
}

func TestBatchWaves(t *testing.T) {
	ws, ds := openWS(t, 60)
	srv := newFake(fakeopenai.Options{})
	defer srv.Close()
	opts := quietOpts(llmProvider(t, srv.BaseURL(), 4))
	dir := t.TempDir()
	waves, failedOnce := 0, false
	for {
		rep, err := BatchOut(context.Background(), ws, opts, dir)
		if err != nil {
			t.Fatal(err)
		}
		if rep.BatchRequests == 0 {
			if !rep.Compacted {
				t.Fatal("last wave did not compact")
			}
			break
		}
		waves++
		if waves > 60 {
			t.Fatal("waves do not converge")
		}
		var outs []string
		for i, shard := range rep.BatchFiles {
			out := filepath.Join(dir, fmt.Sprintf("out-%d-%d.jsonl", waves, i))
			runBatchFileLikeVLLM(t, shard, out, waves == 1 && i == 0)
			outs = append(outs, out)
		}
		in, err := BatchIn(context.Background(), ws, opts, outs...)
		if err != nil {
			t.Fatal(err)
		}
		if in.BadLines != len(outs) {
			t.Errorf("bad lines %d, want %d", in.BadLines, len(outs))
		}
		if waves == 1 && in.Failed == 1 {
			failedOnce = true
		}
		if in.Requested+in.Failed != rep.BatchRequests {
			t.Errorf("wave %d: %d requests written, %d ingested", waves, rep.BatchRequests, in.Requested+in.Failed)
		}
	}
	if waves < 2 || !failedOnce {
		t.Errorf("waves %d failedOnce %v", waves, failedOnce)
	}
	if srv.Requests() != 0 {
		t.Errorf("batch mode made %d online requests", srv.Requests())
	}
	rows := checkTable(t, ws, ds, "openai:fake")
	for _, r := range rows {
		if r.PromptTokens != 100 || r.CompletionTokens != 20 {
			t.Errorf("%s tokens %d+%d", r.Name, r.PromptTokens, r.CompletionTokens)
			break
		}
	}
}

func TestSubmit(t *testing.T) {
	ws, ds := openWS(t, 40)
	srv := newFake(fakeopenai.Options{BatchPolls: 2})
	defer srv.Close()
	opts := quietOpts(llmProvider(t, srv.BaseURL(), 4))
	rep, err := Submit(context.Background(), ws, opts, BatchOptions{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requested != 40 || !rep.Compacted {
		t.Errorf("report %+v", rep)
	}
	checkTable(t, ws, ds, "openai:fake")
	for _, d := range ds {
		if s := srv.Stats()[d.Name]; s.Batched != 1 || s.Requests != 0 {
			t.Errorf("%s: %+v, want exactly one batched request", d.Name, s)
		}
	}
	if rep.New != 40 || rep.Reused != 0 {
		t.Errorf("first job's verdicts: %s", rep.Summary())
	}
	// An incremental job sends the changed declaration and its direct
	// dependents, in waves, and reports their verdicts.
	x := 12
	ds[x].Signature = "(q : ℚ) : q = q"
	writeFixture(t, ws.Dir, ds)
	deps := dependents(ds, []string{ds[x].Name}, false)
	srv.ResetStats()
	rep, err = Submit(context.Background(), ws, opts, BatchOptions{Poll: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed != 1 || rep.DepChanged != len(deps) || rep.Reused != 40-1-len(deps) || rep.Requested != 1+len(deps) {
		t.Errorf("incremental job: %s (want %d dependents)", rep.Summary(), len(deps))
	}
	for _, d := range ds {
		want := 0
		if d.Name == ds[x].Name || deps[d.Name] {
			want = 1
		}
		if s := srv.Stats()[d.Name]; s.Batched != want {
			t.Errorf("%s batched %d times, want %d", d.Name, s.Batched, want)
		}
	}
	checkTable(t, ws, ds, "openai:fake")
}

// TestBatchInRelativePath ingests an output file named relative to the
// working directory (as `driftkit informalize --batch-in out.jsonl` does):
// the run must read that file and hash it for the manifest, not look for
// one inside the workspace.
func TestBatchInRelativePath(t *testing.T) {
	ws, _ := openWS(t, 5)
	srv := newFake(fakeopenai.Options{})
	defer srv.Close()
	opts := quietOpts(llmProvider(t, srv.BaseURL(), 2))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out.jsonl"), []byte("{\"custom_id\":\"nobody\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	rep, err := BatchIn(context.Background(), ws, opts, "out.jsonl")
	if err != nil {
		t.Fatalf("BatchIn with a relative path: %v", err)
	}
	if rep.BadLines != 1 {
		t.Errorf("bad lines %d, want 1", rep.BadLines)
	}
}
