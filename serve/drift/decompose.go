package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
)

// SubQuery is one concept of a decomposed statement: q_i, a natural-language
// phrase, and l_i, the formal representation the model predicts. Hits are
// filled by Retrieve.
type SubQuery struct {
	Informal string          `json:"informal"`
	Formal   string          `json:"formal"`
	Hits     []retrieval.Hit `json:"hits,omitempty"`
}

// decomposition is the JSON object the model must answer.
type decomposition struct {
	SubQueries []SubQuery `json:"sub_queries"`
}

// MaxSubQueries bounds a decomposition; a longer list is a degenerate
// answer (the paper sees about 5–6).
const MaxSubQueries = 24

// DecompositionSchema is the JSON schema of a decomposition answer, sent
// with each request (ParseDecomposition still checks every answer).
var DecompositionSchema = &llm.Schema{Name: "decomposition", JSON: llm.ObjectSchema(1, "sub_queries", `{"type":"array","minItems":1,"maxItems":`+
	strconv.Itoa(MaxSubQueries)+`,"items":`+string(llm.ObjectSchema(2, "informal", `{"type":"string"}`, "formal", `{"type":"string"}`))+`}`)}

// ErrDecompose is wrapped when a decomposition answer cannot be used.
var ErrDecompose = errors.New("unusable decomposition")

// ParseDecomposition checks an answer strictly: exactly one JSON object
// {"sub_queries": [{"informal": …, "formal": …}, …]}, no other keys, at
// least one and at most MaxSubQueries sub-queries, both fields non-empty.
// The only leniency is one surrounding ``` or ```json fence, which
// endpoints without a JSON mode add on their own.
func ParseDecomposition(answer string) ([]SubQuery, error) {
	s := strings.TrimSpace(answer)
	if s == "" {
		return nil, fmt.Errorf("%w: empty answer", ErrDecompose)
	}
	if strings.HasPrefix(s, "```") {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || !strings.HasSuffix(s, "```") || len(s) < nl+4 {
			return nil, fmt.Errorf("%w: unterminated code fence", ErrDecompose)
		}
		info := strings.TrimSpace(s[3:nl])
		if info != "" && !strings.EqualFold(info, "json") {
			return nil, fmt.Errorf("%w: a %q code block, want a JSON object", ErrDecompose, info)
		}
		s = strings.TrimSpace(s[nl+1 : len(s)-3])
	}
	if !strings.HasPrefix(s, "{") {
		return nil, fmt.Errorf("%w: the answer does not start with a JSON object: %q", ErrDecompose, clip(s, 80))
	}
	// LaTeX with one backslash ("\frac", "\neq") would decode into control
	// characters or fail.
	s, _ = llm.RepairJSONEscapes(s)
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("%w: not the JSON object asked for: %v", ErrDecompose, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: text after the JSON object", ErrDecompose)
	}
	var d decomposition
	var err error
	if d.SubQueries, err = decodeSubQueries(top); err != nil {
		return nil, err
	}
	if err := validateSubQueries(d.SubQueries); err != nil {
		return nil, err
	}
	for i := range d.SubQueries {
		d.SubQueries[i].Informal = strings.TrimSpace(d.SubQueries[i].Informal)
		d.SubQueries[i].Formal = strings.TrimSpace(d.SubQueries[i].Formal)
	}
	return d.SubQueries, nil
}

// shape is the answer's expected shape, quoted in errors.
const shape = `{"sub_queries": [{"informal": "…", "formal": "…"}, …]}`

// decodeSubQueries reads the sub-queries of a decoded answer object,
// saying what was expected where: a field at the wrong level ("informal"
// beside "sub_queries") or an unknown one is named with its place.
func decodeSubQueries(top map[string]json.RawMessage) ([]SubQuery, error) {
	for _, k := range slices.Sorted(maps.Keys(top)) {
		switch k {
		case "sub_queries":
		case "informal", "formal":
			return nil, fmt.Errorf("%w: %q is at the top level; it belongs in each element of \"sub_queries\": %s", ErrDecompose, k, shape)
		default:
			return nil, fmt.Errorf("%w: unknown field %q at the top level (the only one is \"sub_queries\"): %s", ErrDecompose, k, shape)
		}
	}
	raw, ok := top["sub_queries"]
	if !ok {
		return nil, fmt.Errorf("%w: no sub_queries: %s", ErrDecompose, shape)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%w: \"sub_queries\" is not a list of objects: %s", ErrDecompose, shape)
	}
	out := make([]SubQuery, len(items))
	for i, it := range items {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it, &m); err != nil || m == nil {
			return nil, fmt.Errorf("%w: sub_queries[%d] is not an object {\"informal\": …, \"formal\": …}", ErrDecompose, i)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			var dst *string
			switch k {
			case "informal":
				dst = &out[i].Informal
			case "formal":
				dst = &out[i].Formal
			case "sub_queries":
				return nil, fmt.Errorf("%w: sub_queries[%d] holds \"sub_queries\" again: the list is not nested: %s", ErrDecompose, i, shape)
			default:
				return nil, fmt.Errorf("%w: unknown field %q in sub_queries[%d] (its fields are \"informal\" and \"formal\")", ErrDecompose, k, i)
			}
			if err := json.Unmarshal(m[k], dst); err != nil {
				return nil, fmt.Errorf("%w: sub_queries[%d].%s is not a string", ErrDecompose, i, k)
			}
		}
	}
	return out, nil
}

func validateSubQueries(sq []SubQuery) error {
	if len(sq) == 0 {
		return fmt.Errorf("%w: no sub_queries", ErrDecompose)
	}
	if len(sq) > MaxSubQueries {
		return fmt.Errorf("%w: %d sub_queries (at most %d)", ErrDecompose, len(sq), MaxSubQueries)
	}
	for i, q := range sq {
		if strings.TrimSpace(q.Informal) == "" || strings.TrimSpace(q.Formal) == "" {
			return fmt.Errorf("%w: sub_queries[%d] needs non-empty \"informal\" and \"formal\"", ErrDecompose, i)
		}
		if len(q.Hits) > 0 {
			return fmt.Errorf("%w: sub_queries[%d] has unexpected hits", ErrDecompose, i)
		}
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Call is one chat request of an item, as recorded.
type Call struct {
	// Stage is "decompose", "decompose-repair", "formalize" or "formalize-repair".
	Stage        string  `json:"stage"`
	PromptSHA256 string  `json:"prompt_sha256"`
	Answer       string  `json:"answer,omitempty"`
	FinishReason string  `json:"finish_reason,omitempty"`
	Error        string  `json:"error,omitempty"`
	Usage        Usage   `json:"usage"`
	Seconds      float64 `json:"seconds"`
}

// Usage is what an item's requests cost.
type Usage struct {
	Requests         int64   `json:"requests"`
	Retries          int64   `json:"retries,omitempty"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

func (u *Usage) add(v llm.Usage) {
	u.Requests += v.Requests
	u.Retries += v.Retries
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.CostUSD += v.CostUSD
}

func (u *Usage) plus(v Usage) {
	u.Requests += v.Requests
	u.Retries += v.Retries
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.CostUSD += v.CostUSD
}

// Chatter is the part of *llm.Client the runner uses (safe for concurrent
// use, as llm.Client is).
type Chatter interface {
	Chat(ctx context.Context, r llm.ChatRequest) (llm.ChatResponse, error)
}

func chat(ctx context.Context, c Chatter, stage string, req llm.ChatRequest) (Call, llm.ChatResponse, error) {
	start := time.Now()
	resp, err := c.Chat(ctx, req)
	call := Call{Stage: stage, PromptSHA256: MessagesSHA256(req.Messages), Answer: resp.Content, FinishReason: resp.FinishReason,
		Seconds: time.Since(start).Seconds()}
	call.Usage.add(resp.Usage)
	if err != nil {
		call.Error = err.Error()
	}
	return call, resp, err
}

// decompose asks for the statement's sub-queries, repairing once: an
// unusable first answer is followed by a repair turn quoting the reason;
// a second unusable answer fails with both reasons.
func (p *Pipeline) decompose(ctx context.Context, statement string) ([]SubQuery, []Call, error) {
	temp := float32(0)
	seed := p.opts.Seed
	req := llm.ChatRequest{Model: p.opts.DecomposeModel, Messages: p.prompts.DecomposeMessages(statement), JSON: true, Schema: DecompositionSchema,
		MaxTokens: p.opts.DecomposeMaxTokens, Temperature: &temp, Seed: &seed}
	var calls []Call
	call, resp, err := chat(ctx, p.llm, "decompose", req)
	calls = append(calls, call)
	if err != nil {
		return nil, calls, fmt.Errorf("decompose: %w", err)
	}
	sq, perr := ParseDecomposition(resp.Content)
	if perr == nil {
		return sq, calls, nil
	}
	req.Messages = append(append([]llm.Message{}, req.Messages...),
		llm.Message{Role: "assistant", Content: resp.Content}, p.prompts.DecomposeRepair(strings.TrimPrefix(perr.Error(), ErrDecompose.Error()+": ")))
	call, resp, err = chat(ctx, p.llm, "decompose-repair", req)
	calls = append(calls, call)
	if err != nil {
		return nil, calls, fmt.Errorf("decompose (repair after: %v): %w", perr, err)
	}
	sq, perr2 := ParseDecomposition(resp.Content)
	if perr2 != nil {
		return nil, calls, fmt.Errorf("decompose: %v; after one repair: %w", perr, perr2)
	}
	return sq, calls, nil
}
