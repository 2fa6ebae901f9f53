package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/driftkit/driftkit/internal/journal"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/workspace"
)

// Files of a run's output folder.
const (
	// RecordsFile is the crash-safe journal: one Record per item as it
	// finishes (a retried item appears again; the last line wins).
	RecordsFile = "records.jsonl"
	// ItemsFile holds the last record of every item, in benchmark order,
	// written when the run completes.
	ItemsFile   = "items.jsonl"
	SummaryFile = "summary.json"
	// RunFile records the settings of the run; a rerun with different
	// settings in the same folder is refused.
	RunFile = "run.json"
)

// RunOptions configure Run.
type RunOptions struct {
	// Dir receives the run's files.
	Dir string
	// Bench labels the benchmark in the summary.
	Bench string
	// Jobs is the number of items in flight (default 16). The chat
	// client's own limits (concurrency, RPM, TPM) still apply across all of
	// them; about twice the client's concurrency keeps every request slot
	// busy, since an item holds its job while it retrieves, verifies and is
	// journalled, not only while it waits for the endpoint.
	Jobs int
	// Settings are what must not change between a run and its resumption
	// (model, flags, prompt version, benchmark hash, index); they are
	// stored in run.json and shown in the summary.
	Settings map[string]any
	// RetryFailed redoes items that failed for a content reason (an
	// unusable decomposition) too; transient failures are always redone.
	RetryFailed bool
	// Out receives what the run says (resume, skips, summary lines);
	// default io.Discard.
	Out io.Writer
}

// ErrSettingsChanged is returned when Dir holds a run with other settings.
var ErrSettingsChanged = errors.New("the output folder holds a run with different settings")

// Run formalizes every item with p, journalling each record as it
// finishes, and writes the summary when all are done. A rerun with the same
// settings continues: finished items are skipped (and counted), transient
// failures redone. One item's failure never stops the run; a cancelled ctx
// does (nothing of the items in flight is kept), and so do errors that
// would fail every item alike (the endpoint refuses the key or the model,
// the journal cannot be written).
func Run(ctx context.Context, p *Pipeline, items []Item, o RunOptions) (*Summary, error) {
	start := time.Now()
	if p.llm == nil {
		return nil, errors.New("drift: a run needs a chat client (Parts.Chat)")
	}
	if o.Jobs <= 0 {
		o.Jobs = 16
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := checkSettings(filepath.Join(o.Dir, RunFile), o.Settings); err != nil {
		return nil, err
	}
	j, rep, err := openRecords(filepath.Join(o.Dir, RecordsFile), o.Out)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	last := map[string]*Record{}
	for i := range rep.Records {
		last[rep.Records[i].Key] = &rep.Records[i]
	}
	var todo []Item
	var skippedOK, skippedFailed, retrying int
	known := map[string]bool{}
	for _, it := range items {
		known[it.Key] = true
		r := last[it.Key]
		switch {
		case r == nil:
			todo = append(todo, it)
		case r.Done(o.RetryFailed):
			if r.Status == "ok" {
				skippedOK++
			} else {
				skippedFailed++
			}
		default:
			retrying++
			todo = append(todo, it)
		}
	}
	stranger := 0
	for k := range last {
		if !known[k] {
			stranger++
		}
	}
	if skippedOK+skippedFailed+retrying > 0 {
		fmt.Fprintf(o.Out, "resume: %d of %d items already finished, skipped (%d ok, %d failed for good); %d failed items redone\n",
			skippedOK+skippedFailed, len(items), skippedOK, skippedFailed, retrying)
	}
	if stranger > 0 {
		fmt.Fprintf(o.Out, "journal: %d records name items that are not in the benchmark; ignored\n", stranger)
	}

	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	bar := progress.Start(ctx, "drift", int64(len(todo)))
	var mu sync.Mutex
	var failed int
	var usage Usage
	queue := make(chan Item)
	var wg sync.WaitGroup
	for w := 0; w < min(o.Jobs, max(len(todo), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range queue {
				rec, err := p.Formalize(rctx, it)
				if err != nil { // cancelled: the record is incomplete
					continue
				}
				if rec.err != nil && fatal(rec.err) {
					cancel(fmt.Errorf("item %s: %w (every item would fail alike; fix the setting and rerun)", it.Key, rec.err))
					continue
				}
				if err := j.Append(*rec); err != nil {
					cancel(fmt.Errorf("journal: %w", err))
					continue
				}
				mu.Lock()
				last[rec.Key] = rec
				usage.plus(rec.Usage)
				if rec.Status != "ok" {
					failed++
				}
				bar.Describe(fmt.Sprintf("failed=%d tok=%d+%d $%.4f", failed, usage.PromptTokens, usage.CompletionTokens, usage.CostUSD))
				mu.Unlock()
				bar.Add(1)
			}
		}()
	}
feed:
	for _, it := range todo {
		select {
		case queue <- it:
		case <-rctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	bar.Finish()
	if err := j.Sync(); err != nil {
		return nil, err
	}
	if cause := context.Cause(rctx); cause != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, cause
	}
	recs := make([]*Record, 0, len(items))
	for _, it := range items {
		if r := last[it.Key]; r != nil {
			recs = append(recs, r)
		}
	}
	sum := Summarize(recs, len(items), p, o)
	sum.Run = RunStats{Ran: len(todo), SkippedOK: skippedOK, SkippedFailed: skippedFailed, Retried: retrying, Failed: failed,
		WallSeconds: time.Since(start).Seconds(), Usage: usage}
	if err := writeItems(filepath.Join(o.Dir, ItemsFile), recs); err != nil {
		return nil, err
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := workspace.WriteFileAtomic(filepath.Join(o.Dir, SummaryFile), append(b, '\n')); err != nil {
		return nil, err
	}
	return sum, nil
}

// openRecords opens a run's records journal (resumption reads it), saying
// on out which lines a crash left unusable.
func openRecords(records string, out io.Writer) (*journal.Journal[Record], *journal.Replay[Record], error) {
	j, rep, err := journal.Open(records, journal.Options[Record]{
		Validate: func(r *Record) error {
			if r.Key == "" || (r.Status != "ok" && r.Status != "failed") {
				return errors.New("not a drift record (key and status ok|failed needed)")
			}
			return nil
		},
		// Said before the cut: a run killed between the cut and a later
		// report would leave the next run nothing to report.
		BeforeCut: func(line, bytes int) {
			fmt.Fprintf(out, "journal: %s:%d: dropped a torn last line (%d bytes) left by a crash; that item will be redone\n", records, line, bytes)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	for _, b := range rep.Bad {
		fmt.Fprintf(out, "journal: skipped an unusable line: %v\n", b)
	}
	return j, rep, nil
}

// fatal reports failures that would repeat for every item: the endpoint
// rejects the key (401/403) or does not know the model or path (404), or
// the Lean backend stopped working (lean.ErrUnavailable; its workers'
// single crashes are per-snippet errors, not this).
func fatal(err error) bool {
	if errors.Is(err, lean.ErrUnavailable) {
		return true
	}
	var le *llm.Error
	if errors.As(err, &le) {
		switch le.Status {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return true
		}
	}
	return false
}

func writeItems(path string, recs []*Record) error {
	f, err := workspace.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	enc := json.NewEncoder(f)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return f.Commit()
}

// checkSettings writes run.json on the first run and compares on later ones.
func checkSettings(path string, settings map[string]any) error {
	cur, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b, _ := json.MarshalIndent(settings, "", "  ")
		return workspace.WriteFileAtomic(path, append(b, '\n'))
	}
	if err != nil {
		return err
	}
	var prev map[string]any
	if err := json.Unmarshal(old, &prev); err != nil {
		return fmt.Errorf("%s: %w (not a drift run file; use another output folder)", path, err)
	}
	var now map[string]any
	_ = json.Unmarshal(cur, &now)
	var diff []string
	for k := range mergeKeys(prev, now) {
		a, _ := json.Marshal(prev[k])
		b, _ := json.Marshal(now[k])
		if !bytes.Equal(a, b) {
			diff = append(diff, fmt.Sprintf("%s: %s, now %s", k, a, b))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("%s: %w (%s)", filepath.Dir(path), ErrSettingsChanged, joinMax(diff, 4))
	}
	return nil
}

func mergeKeys(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func joinMax(s []string, n int) string {
	if len(s) > n {
		s = append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(x)
	}
	return b.String()
}
