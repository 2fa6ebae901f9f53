package informalize

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

// Batch shards stay under the OpenAI Batch API limits.
const (
	maxBatchLines = 50000
	maxBatchBytes = 190 << 20
	batchPrefix   = "informalize-batch-"
)

// ErrBatchLine is wrapped by problems with a batch output line.
var ErrBatchLine = errors.New("bad batch output line")

// BatchLineError names a batch output line that could not be used.
type BatchLineError struct {
	Path string
	Line int
	Err  error
}

func (e *BatchLineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *BatchLineError) Unwrap() error { return e.Err }

// BatchAnswer is one result line of a batch output file.
type BatchAnswer struct {
	CustomID         string
	Content          string
	Error            string // set when the request failed inside the batch
	PromptTokens     int64
	CompletionTokens int64
}

type batchOutputLine struct {
	ID       string `json:"id"`
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// ReadBatchOutput parses an OpenAI Batch API (or vllm run-batch) output
// file: one JSON object per line with custom_id and a response whose body is
// a chat completion, or an error. Unusable lines are returned in bad, named
// by file and line; reading goes on past them.
func ReadBatchOutput(path string, r io.Reader) (answers []BatchAnswer, bad []*BatchLineError, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		a, perr := parseBatchLine(b)
		if perr != nil {
			bad = append(bad, &BatchLineError{Path: path, Line: line, Err: perr})
			continue
		}
		answers = append(answers, a)
	}
	if err := sc.Err(); err != nil {
		return answers, bad, fmt.Errorf("%s: line %d: %w", path, line+1, err)
	}
	return answers, bad, nil
}

func parseBatchLine(b []byte) (BatchAnswer, error) {
	var l batchOutputLine
	if err := json.Unmarshal(b, &l); err != nil {
		return BatchAnswer{}, fmt.Errorf("%w: %v", ErrBatchLine, err)
	}
	if l.CustomID == "" {
		return BatchAnswer{}, fmt.Errorf("%w: no custom_id", ErrBatchLine)
	}
	a := BatchAnswer{CustomID: l.CustomID}
	switch {
	case l.Error != nil && (l.Error.Message != "" || l.Error.Code != ""):
		a.Error = fmt.Sprintf("batch error %s: %s", l.Error.Code, l.Error.Message)
	case l.Response == nil:
		return BatchAnswer{}, fmt.Errorf("%w: neither response nor error", ErrBatchLine)
	case l.Response.StatusCode != http.StatusOK:
		a.Error = fmt.Sprintf("batch request answered HTTP %d: %s", l.Response.StatusCode, clip(string(l.Response.Body), 200))
	default:
		var body openai.ChatCompletionResponse
		if err := json.Unmarshal(l.Response.Body, &body); err != nil {
			return BatchAnswer{}, fmt.Errorf("%w: response body is not a chat completion: %v", ErrBatchLine, err)
		}
		if len(body.Choices) == 0 {
			a.Error = "batch response has no choices"
		} else {
			a.Content = body.Choices[0].Message.Content
		}
		a.PromptTokens, a.CompletionTokens = int64(body.Usage.PromptTokens), int64(body.Usage.CompletionTokens)
	}
	return a, nil
}

// shardWriter writes batch request lines into size-limited shard files,
// each put in place atomically at close. Safe for concurrent Write.
type shardWriter struct {
	dir   string
	mu    sync.Mutex
	cur   *workspace.AtomicFile
	lines int
	bytes int
	files []string
	total int
	err   error
}

func (s *shardWriter) write(line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.cur != nil && (s.lines >= maxBatchLines || s.bytes+len(line) > maxBatchBytes) {
		if s.err = s.commit(); s.err != nil {
			return s.err
		}
	}
	if s.cur == nil {
		name := filepath.Join(s.dir, fmt.Sprintf("%s%05d.jsonl", batchPrefix, len(s.files)))
		f, err := workspace.CreateAtomic(name)
		if err != nil {
			s.err = err
			return err
		}
		s.cur, s.lines, s.bytes = f, 0, 0
		s.files = append(s.files, name)
	}
	if _, err := s.cur.Write(line); err != nil {
		s.err = err
		return err
	}
	s.lines++
	s.bytes += len(line)
	s.total++
	return nil
}

func (s *shardWriter) commit() error {
	if s.cur == nil {
		return nil
	}
	err := s.cur.Commit()
	s.cur = nil
	return err
}

func (s *shardWriter) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		if s.cur != nil {
			s.cur.Abort()
		}
		return s.err
	}
	return s.commit()
}

// BatchOut writes the next wave of requests as OpenAI Batch API JSONL shards
// (custom_id = declaration name) into dir: every selected declaration not yet
// done whose in-selection dependencies are all done. Run the shards with the
// Batch API or `vllm run-batch`, ingest the output with BatchIn, and repeat
// until no requests are written; then the table is compacted.
func BatchOut(ctx context.Context, ws *workspace.Workspace, opts Options, dir string) (*Report, error) {
	p, ok := opts.Provider.(*LLM)
	if !ok {
		return nil, errors.New("batch mode needs the openai provider")
	}
	if dir == "" {
		return nil, errors.New("batch mode needs a folder for the shards")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Request shards of an earlier wave go; downloaded outputs stay.
	old, _ := filepath.Glob(filepath.Join(dir, batchPrefix+"[0-9][0-9][0-9][0-9][0-9].jsonl"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return nil, err
		}
	}
	st, err := prepare(ws, opts)
	if err != nil {
		return nil, err
	}
	defer st.close()
	rec := ws.StartRun("informalize", opts.Params)
	if err := st.recordInputs(rec); err != nil {
		return nil, err
	}
	sw := &shardWriter{dir: dir}
	format := p.Client.Config().ResponseFormat
	h := func(ctx context.Context, v int32, in *Input, k *keyed) outcome {
		r := p.Request(in)
		if p.Client.Config().FoldSystem {
			r.Messages = llm.FoldSystem(r.Messages)
		}
		req := r.Body(p.Model, format)
		line, err := json.Marshal(llm.BatchLine{CustomID: in.Name, Body: req, Method: http.MethodPost, URL: string(openai.BatchEndpointChatCompletions)})
		if err == nil {
			err = sw.write(append(line, '\n'))
		}
		if err != nil {
			return outcome{kind: outFatal, err: err}
		}
		return outcome{kind: outDeferred}
	}
	serr := st.schedule(ctx, h)
	cerr := sw.close()
	st.rep.BatchFiles, st.rep.BatchRequests = sw.files, sw.total
	if err := errors.Join(serr, cerr, ctx.Err()); err != nil {
		return st.rep, err
	}
	return st.rep, st.finish(rec)
}

// BatchIn ingests batch output files into the journal: each answer is parsed
// strictly and journalled as ok or failed (a batch cannot be repaired; a
// rerun of BatchOut asks again for failed ones). Declarations without an
// answer in the files wait for the next wave.
func BatchIn(ctx context.Context, ws *workspace.Workspace, opts Options, files ...string) (*Report, error) {
	answers := map[string]BatchAnswer{}
	var bad []*BatchLineError
	files = slices.Clone(files)
	for i, f := range files {
		// Paths are relative to the working directory; the manifest would
		// read a relative one as relative to the workspace.
		if abs, err := filepath.Abs(f); err == nil {
			files[i] = abs
		}
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		as, b, err := ReadBatchOutput(path, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			answers[a.CustomID] = a
		}
		bad = append(bad, b...)
	}
	st, err := prepare(ws, opts)
	if err != nil {
		return nil, err
	}
	defer st.close()
	for _, b := range bad {
		st.log.Warn("skipping batch output line", "err", b)
	}
	rec := ws.StartRun("informalize", opts.Params)
	if err := st.recordInputs(rec); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := rec.Input(f); err != nil {
			return nil, err
		}
	}
	used := 0
	var mu sync.Mutex
	h := func(ctx context.Context, v int32, in *Input, k *keyed) outcome {
		a, ok := answers[in.Name]
		if !ok {
			return outcome{kind: outDeferred}
		}
		mu.Lock()
		used++
		mu.Unlock()
		res := Result{PromptTokens: a.PromptTokens, CompletionTokens: a.CompletionTokens, Attempts: 1}
		if a.Error != "" {
			return st.resultOutcome(ctx, in, k, res, &FailedError{Name: in.Name, Reason: a.Error, Result: res})
		}
		ans, perr := ParseAnswer(a.Content)
		if perr != nil {
			return st.resultOutcome(ctx, in, k, res, &FailedError{Name: in.Name, Reason: perr.Error(), Result: res, Err: perr})
		}
		res.InformalName, res.InformalStatement = ans.InformalName, ans.InformalStatement
		return st.resultOutcome(ctx, in, k, res, nil)
	}
	if err := st.schedule(ctx, h); err != nil {
		return st.rep, err
	}
	if err := ctx.Err(); err != nil {
		return st.rep, err
	}
	if unused := len(answers) - used; unused > 0 {
		st.log.Warn("batch answers for declarations that are not waiting for one (done, unselected, unknown, or their inputs changed)", "count", unused)
	}
	st.rep.BadLines += len(bad)
	return st.rep, st.finish(rec)
}

// BatchOptions configure Submit.
type BatchOptions struct {
	Dir  string        // where shards and outputs go (default: a temporary folder)
	Poll time.Duration // status poll interval (default 30s)
	// Window is the completion window (default "24h").
	Window string
}

// Submit runs the whole job through the endpoint's Batch API, wave after
// wave: write the shards, upload them, create the batches, poll until they
// end, download and ingest the output, and repeat until every selected
// declaration is done or failed.
func Submit(ctx context.Context, ws *workspace.Workspace, opts Options, bo BatchOptions) (*Report, error) {
	p, ok := opts.Provider.(*LLM)
	if !ok {
		return nil, errors.New("batch mode needs the openai provider")
	}
	opts = opts.withDefaults()
	if bo.Poll <= 0 {
		bo.Poll = 30 * time.Second
	}
	if bo.Window == "" {
		bo.Window = "24h"
	}
	if bo.Dir == "" {
		d, err := os.MkdirTemp("", "driftkit-batch-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		bo.Dir = d
	}
	oc := p.Client.OpenAI()
	total := &Report{}
	opts.Out = io.Discard // the waves' own summaries; the total is returned
	// Each wave judges against the table as it stands, and the last one
	// finds it compacted: the verdicts of the whole job come from a dry run
	// first (exact for the default rule; for RefreshDependents it assumes
	// every redone dependency is re-worded).
	dry := opts
	dry.DryRun = true
	verdicts, err := Run(ctx, ws, dry)
	if err != nil {
		return verdicts, err
	}
	for wave := 1; ; wave++ {
		out, err := BatchOut(ctx, ws, opts, bo.Dir)
		if err != nil {
			return out, err
		}
		if out.BatchRequests == 0 {
			out.Reused, out.Changed, out.DepChanged, out.New = verdicts.Reused, verdicts.Changed, verdicts.DepChanged, verdicts.New
			out.Resumed = verdicts.Resumed
			out.Requested, out.Failed, out.Failures = total.Requested, total.Failed, total.Failures
			out.PromptTokens, out.CompletionTokens = total.PromptTokens, total.CompletionTokens
			out.BatchRequests = total.BatchRequests
			return out, nil
		}
		total.BatchRequests += out.BatchRequests
		opts.Log.Info("batch wave", "wave", wave, "requests", out.BatchRequests, "shards", len(out.BatchFiles))
		var outputs []string
		for _, shard := range out.BatchFiles {
			files, err := runBatch(ctx, oc, shard, bo, opts)
			if err != nil {
				return total, err
			}
			outputs = append(outputs, files...)
		}
		in, err := BatchIn(ctx, ws, opts, outputs...)
		if err != nil {
			return in, err
		}
		total.Requested += in.Requested
		total.Failed += in.Failed
		total.Failures = append(total.Failures, in.Failures...)
		total.PromptTokens += in.PromptTokens
		total.CompletionTokens += in.CompletionTokens
		if in.Requested+in.Failed == 0 {
			return total, fmt.Errorf("batch wave %d produced no usable answers; stopping", wave)
		}
	}
}

// runBatch uploads one shard, creates a batch, polls until it ends and
// downloads its output and error files next to the shard.
func runBatch(ctx context.Context, oc *openai.Client, shard string, bo BatchOptions, opts Options) ([]string, error) {
	data, err := os.ReadFile(shard)
	if err != nil {
		return nil, err
	}
	f, err := oc.CreateFileBytes(ctx, openai.FileBytesRequest{Name: filepath.Base(shard), Bytes: data, Purpose: openai.PurposeBatch})
	if err != nil {
		return nil, fmt.Errorf("uploading %s: %w", shard, err)
	}
	b, err := oc.CreateBatch(ctx, openai.CreateBatchRequest{InputFileID: f.ID, Endpoint: openai.BatchEndpointChatCompletions,
		CompletionWindow: bo.Window, Metadata: map[string]any{"tool": "driftkit informalize", "shard": filepath.Base(shard)}})
	if err != nil {
		return nil, fmt.Errorf("creating batch for %s: %w", shard, err)
	}
	opts.Log.Info("batch created", "id", b.ID, "shard", shard)
	t := time.NewTicker(bo.Poll)
	defer t.Stop()
	pollErrors := 0
	for {
		switch b.Status {
		case "completed":
			var out []string
			for _, id := range []*string{b.OutputFileID, b.ErrorFileID} {
				if id == nil || *id == "" {
					continue
				}
				raw, err := oc.GetFileContent(ctx, *id)
				if err != nil {
					return nil, fmt.Errorf("downloading %s of batch %s: %w", *id, b.ID, err)
				}
				content, err := io.ReadAll(raw)
				raw.Close()
				if err != nil {
					return nil, err
				}
				name := strings.TrimSuffix(shard, ".jsonl") + "." + *id + ".out.jsonl"
				if err := workspace.WriteFileAtomic(name, content); err != nil {
					return nil, err
				}
				out = append(out, name)
			}
			return out, nil
		case "failed", "expired", "cancelled", "cancelling":
			msg := ""
			if b.Errors != nil && len(b.Errors.Data) > 0 {
				msg = ": " + b.Errors.Data[0].Message
			}
			return nil, fmt.Errorf("batch %s for %s ended %s%s", b.ID, shard, b.Status, msg)
		}
		select {
		case <-ctx.Done():
			// Leave the batch running remotely; say how to find it.
			return nil, fmt.Errorf("stopped polling batch %s (still running at the endpoint): %w", b.ID, ctx.Err())
		case <-t.C:
		}
		nb, err := oc.RetrieveBatch(ctx, b.ID)
		if err != nil {
			// Polls are cheap to repeat; give up only when the endpoint
			// keeps failing.
			pollErrors++
			opts.Log.Warn("polling batch failed", "id", b.ID, "err", err, "consecutive", pollErrors)
			if pollErrors >= 5 || ctx.Err() != nil {
				return nil, fmt.Errorf("polling batch %s: %w", b.ID, err)
			}
			continue
		}
		pollErrors = 0
		b = nb
		opts.Log.Info("batch status", "id", b.ID, "status", b.Status, "completed", b.RequestCounts.Completed, "total", b.RequestCounts.Total)
	}
}
