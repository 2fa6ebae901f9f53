// Package augment rewrites a theorem-search query with a chat model before
// it is searched (issue 17): what a mathematician types ("Lagrange theorem
// groups") becomes a detailed, mathematically precise informal statement
// and a guessed Lean statement, rendered in the document format of the index
// (workspace.Render), and the raw query and both rewrites are searched and
// fused (retrieval.SearchVariants). The prompt is embedded and versioned
// (prompts/<version>/); answers are cached per (query, model, prompt) in the
// workspace (Cache), so a repeated query costs nothing; when the model
// fails — an error, a timeout, an answer that is not the JSON asked for —
// the raw query is searched alone and the Result says so.
//
// The server and the command line use the same Augmenter. Layering: augment
// sits with retrieval and imports only retrieval, dataset, llm and
// internal packages.
package augment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// PromptVersion names the prompt files in prompts/<version>/. Bump it (a
// new folder) when the prompt changes meaningfully; the cache key also
// covers the files' bytes, so an edit without a bump is never served old
// answers.
const PromptVersion = "v1"

//go:embed prompts
var promptFS embed.FS

// Prompt is one version of the prompt files. Safe for concurrent use.
type Prompt struct {
	Version string
	System  string
	user    *template.Template
	// SHA256 hashes the files' bytes (part of the cache key).
	SHA256 string
	// examples are the prompt's example values (`e.g. "…"` in the system
	// text): an answer field that copies one is not an answer to the query
	// (StripExamples).
	examples []example
	// descriptions are the prompt's descriptions of the answer's keys
	// (`- "key": …` lines, examples cut off): a field that copies one
	// echoes the schema (StripExamples).
	descriptions []example
}

// exampleRE finds the prompt's example values: `(e.g. "…")`.
var exampleRE = regexp.MustCompile(`e\.g\. "([^"]+)"`)

// descriptionRE finds the prompt's key descriptions: `- "key": …` lines,
// up to an example.
var descriptionRE = regexp.MustCompile(`(?m)^- "[a-z_]+": (.+?)(?: \(e\.g\. .*)?$`)

// answerKeys are the keys of an answer (AnswerSchema, Answer's JSON tags).
var answerKeys = []string{"informal_name", "informal_statement", "lean_name", "lean_statement"}

// keyWords are the words of answerKeys.
var keyWords = func() []string {
	var ws []string
	for _, k := range answerKeys {
		for w := range strings.SplitSeq(k, "_") {
			if !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
	}
	return ws
}()

// echoesKeys reports whether a field is made of the answer's key names
// only: "informal_statement", "Lean_name", "lean_state", "informals" —
// each word a key word, a key word with a plural s, or a cut of one (four
// letters at least). Gemma 3 270M gave the key names themselves as 16 of 33
// answers to prompt v2, and some cut or pluralised; no answer to a query
// is made of these four words alone.
func echoesKeys(field string) bool {
	words := strings.FieldsFunc(strings.ToLower(field), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !slices.ContainsFunc(keyWords, func(k string) bool {
			return w == k || w == k+"s" || len(w) >= 4 && strings.HasPrefix(k, w)
		}) {
			return false
		}
	}
	return true
}

// example is one example value of a prompt, as compared with answers.
type example struct {
	key     string             // normalised (exampleKey)
	bigrams map[[2]string]bool // word bigrams (wordBigrams)
}

// exampleKey normalises a field for an exact comparison: case, spacing
// and a final period do not make an answer the model's own.
func exampleKey(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".")
}

// wordBigrams are the pairs of consecutive words of s, lower-cased, with
// the punctuation around each word dropped.
func wordBigrams(s string) map[[2]string]bool {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if w = strings.Trim(w, ".,;:()\"'"); w != "" {
			words = append(words, w)
		}
	}
	b := make(map[[2]string]bool, len(words))
	for i := 1; i < len(words); i++ {
		b[[2]string{words[i-1], words[i]}] = true
	}
	return b
}

// Thresholds of copies. A copy is seldom exact: Gemma 3 270M wrote the
// example statement with "prime p" for "prime number p", "the product of
// m * n", a few words appended, or a fragment of it as the Lean statement
// (of 16 copies on the development benchmark, 5 were exact). Long texts
// are compared by their word bigrams: the field holds most of an
// example's, or is made of an example's almost only. Short ones (names)
// only exactly: two words in common are no evidence.
const (
	copyMinBigrams    = 6
	copyHoldsExample  = 0.6 // share of the example's bigrams in the field
	copyMadeOfExample = 0.7 // share of the field's bigrams in the example
)

// copies reports whether field copies the example e.
func (e example) copies(field string) bool {
	if exampleKey(field) == e.key {
		return true
	}
	fb := wordBigrams(field)
	if len(e.bigrams) >= copyMinBigrams && share(e.bigrams, fb) >= copyHoldsExample {
		return true
	}
	return len(fb) >= copyMinBigrams && share(fb, e.bigrams) >= copyMadeOfExample
}

// share is the fraction of a's bigrams that b has.
func share(a, b map[[2]string]bool) float64 {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// PromptVersions are the embedded prompt versions, sorted (the folders
// of prompts/), for flags' help and their errors.
func PromptVersions() []string {
	ents, _ := promptFS.ReadDir("prompts")
	var vs []string
	for _, e := range ents {
		if e.IsDir() {
			vs = append(vs, e.Name())
		}
	}
	return vs
}

// LoadPrompt reads prompts/<version>/ from the embedded files.
func LoadPrompt(version string) (*Prompt, error) {
	sys, err := promptFS.ReadFile("prompts/" + version + "/system.txt")
	if err != nil {
		return nil, fmt.Errorf("augmentation prompt version %q: %w", version, err)
	}
	user, err := promptFS.ReadFile("prompts/" + version + "/user.tmpl")
	if err != nil {
		return nil, fmt.Errorf("augmentation prompt version %q: %w", version, err)
	}
	t, err := template.New("user").Option("missingkey=error").Parse(string(user))
	if err != nil {
		return nil, fmt.Errorf("augmentation prompt version %q: user.tmpl: %w", version, err)
	}
	h := sha256.New()
	h.Write(sys)
	h.Write([]byte{0})
	h.Write(user)
	var ex, desc []example
	for _, m := range exampleRE.FindAllStringSubmatch(string(sys), -1) {
		ex = append(ex, example{exampleKey(m[1]), wordBigrams(m[1])})
	}
	for _, m := range descriptionRE.FindAllStringSubmatch(string(sys), -1) {
		desc = append(desc, example{exampleKey(m[1]), wordBigrams(m[1])})
	}
	return &Prompt{Version: version, System: string(sys), user: t, SHA256: hex.EncodeToString(h.Sum(nil)), examples: ex, descriptions: desc}, nil
}

// StripExamples clears the fields of a that copy one of the prompt's
// example values (example.copies) or echo its schema — a key's name
// (echoesKeys) or a key's description (example.copies against it) — and
// fails (ErrAnswer) when that leaves no informal statement, saying which
// it was. A small model copies its instructions: Gemma 3 270M answered
// every query of the development benchmark with prompt v1's Euclid's lemma
// (informal name, statement and Lean name verbatim), and searching that
// rewrite ranks Euclid's lemma for queries about determinants or
// logarithms; given prompt v2, with no example to copy, it answered 16 of
// 33 held-out queries with the key names (`"informal_statement":
// "informal_statement"`) and others with a key's description ("the result
// of the query stated in full"). A copied field says nothing about the
// query, whatever the query is (for a query that is Euclid's lemma the raw
// query finds it).
func (p *Prompt) StripExamples(a Answer) (Answer, error) {
	why := ""
	for _, f := range []*string{&a.InformalName, &a.InformalStatement, &a.LeanName, &a.LeanStatement} {
		if *f == "" {
			continue
		}
		reason := ""
		switch {
		case slices.ContainsFunc(p.examples, func(e example) bool { return e.copies(*f) }):
			reason = "copies the prompt's example"
		case echoesKeys(*f) || slices.ContainsFunc(p.descriptions, func(e example) bool { return e.copies(*f) }):
			reason = "echoes the prompt's schema (its key names or their descriptions)"
		default:
			continue
		}
		if f == &a.InformalStatement {
			why = reason
		}
		*f = ""
	}
	if a.InformalStatement == "" {
		if why == "" {
			why = "has no informal statement"
		}
		return Answer{}, fmt.Errorf("%w: the answer %s instead of answering the query", ErrAnswer, why)
	}
	return a, nil
}

// Messages is the chat request for one query.
func (p *Prompt) Messages(query string) ([]llm.Message, error) {
	var b bytes.Buffer
	if err := p.user.Execute(&b, struct{ Query string }{query}); err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: p.System}, {Role: "user", Content: b.String()}}, nil
}

// Answer is what the model returns for a query.
type Answer struct {
	InformalName      string `json:"informal_name"`
	InformalStatement string `json:"informal_statement"`
	LeanName          string `json:"lean_name"`
	LeanStatement     string `json:"lean_statement"`
}

// AnswerSchema is the JSON schema of an answer, sent with each request.
var AnswerSchema = llm.StringObjectSchema("query_rewrite", "informal_name", "informal_statement", "lean_name", "lean_statement")

// Limits on an answer's fields: a longer one is cut at a rune boundary (a
// model that rambles still gives a usable query).
const (
	maxNameLen      = 200
	maxStatementLen = 2000
)

// ErrAnswer is wrapped by every reason an answer is not used.
var ErrAnswer = errors.New("unusable augmentation answer")

// ParseAnswer reads a model's content: one JSON object (a ```json fence
// around it is tolerated) with a non-empty informal_statement; the other
// keys may be missing. Fields are trimmed and cut to their limits.
func ParseAnswer(content string) (Answer, error) {
	s := strings.TrimSpace(content)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	// LaTeX with one backslash ("\frac", "\neq") would decode into control
	// characters or fail.
	s, _ = llm.RepairJSONEscapes(s)
	var a Answer
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&a); err != nil {
		return Answer{}, fmt.Errorf("%w: not a JSON object with informal_statement and lean_statement (%v)", ErrAnswer, err)
	}
	if dec.More() {
		return Answer{}, fmt.Errorf("%w: text after the JSON object", ErrAnswer)
	}
	a.InformalName = clip(a.InformalName, maxNameLen)
	a.LeanName = clip(a.LeanName, maxNameLen)
	a.InformalStatement = clip(a.InformalStatement, maxStatementLen)
	a.LeanStatement = clip(a.LeanStatement, maxStatementLen)
	if a.InformalStatement == "" {
		return Answer{}, fmt.Errorf("%w: empty informal_statement", ErrAnswer)
	}
	if strings.ContainsAny(a.LeanName, " \t\n") {
		a.LeanName = "" // not a name; the statement is still useful
	}
	return a, nil
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Document renders an answer in the index's document format
// (workspace.Render, rendering workspace.RenderingVersion): the guessed Lean
// declaration as a theorem, then its informal name and statement.
func (a Answer) Document(model string) string {
	d := workspace.Declaration{Kind: "theorem", Name: a.LeanName, Signature: a.LeanStatement}
	text, _ := workspace.Render(&d, &workspace.Informal{InformalName: a.InformalName, InformalStatement: a.InformalStatement, Provider: "openai:" + model})
	// A missing name leaves a double space after the kind.
	first, rest, ok := strings.Cut(text, "\n")
	first = strings.Join(strings.Fields(first), " ")
	if ok {
		return first + "\n" + rest
	}
	return first
}

// Status says where a Result's rewrite came from.
type Status string

// Statuses of a Result.
const (
	StatusAugmented Status = "augmented" // asked the model now
	StatusCached    Status = "cached"    // from the cache, no request
	StatusFallback  Status = "fallback"  // the model failed: the raw query alone
)

// Result is the outcome of augmenting one query. It never carries an
// error: a failure is StatusFallback with the Reason.
type Result struct {
	Query         string `json:"query"`
	Status        Status `json:"status"`
	Reason        string `json:"reason,omitempty"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	// Answer and Document are the rewrite (nil and "" on fallback).
	Answer   *Answer   `json:"answer,omitempty"`
	Document string    `json:"document,omitempty"`
	Usage    llm.Usage `json:"usage"`
}

// Note is a one-phrase summary: "augmented", "cached", or "fallback: why".
func (r *Result) Note() string {
	if r.Status == StatusFallback {
		return "fallback (raw query only): " + r.Reason
	}
	return string(r.Status)
}

// Variants are the texts searched for the query and fused: the raw query,
// the informal rewrite, and the rendered document with the guessed Lean
// statement. On fallback, only the raw query.
func (r *Result) Variants() []retrieval.Variant {
	vs := []retrieval.Variant{{Label: "raw", Text: r.Query, Weight: 1}}
	if r.Answer == nil {
		return vs
	}
	informal := r.Answer.InformalStatement
	if r.Answer.InformalName != "" {
		informal = r.Answer.InformalName + ": " + informal
	}
	return append(vs, retrieval.Variant{Label: "informal", Text: informal, Weight: 1},
		retrieval.Variant{Label: "document", Text: r.Document, Weight: 1})
}

// Chatter is the part of *llm.Client an Augmenter uses.
type Chatter interface {
	Chat(ctx context.Context, r llm.ChatRequest) (llm.ChatResponse, error)
}

// Options configure an Augmenter.
type Options struct {
	Chat  Chatter
	Model string
	// Cache, when not nil, keeps answers across calls and processes.
	Cache *Cache
	// Version is the prompt version (default PromptVersion).
	Version string
	// Timeout bounds one rewrite request, retries included (default 30s).
	Timeout time.Duration
	// Wait is how long a search waits for its rewrite (0: until it ends,
	// within Timeout). A
	// rewrite not ready by then is not given up: it goes on, up to
	// Timeout, in the background, and its answer is cached for the next
	// search of the query, which this one answers without (a server's
	// deadline: a local CPU model can take longer than a user waits).
	Wait time.Duration
	// FailureTTL is how long a failed rewrite is remembered, so that the
	// same query does not wait for a failing model again (default 1m;
	// negative: not remembered).
	FailureTTL time.Duration
	// MaxTokens limits the answer (default 300: the answer is four short
	// fields; a larger cap only lets a small model ramble).
	MaxTokens int
}

// Augmenter rewrites queries. It is safe for concurrent use; concurrent
// calls for one uncached query share a single request.
type Augmenter struct {
	o      Options
	prompt *Prompt

	mu       sync.Mutex
	inflight map[string]*call
	failed   map[string]failure

	// bg bounds the rewrites that go on after their search stopped
	// waiting; Close cancels it and waits for them.
	bg   context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

type call struct {
	done chan struct{}
	res  Result
}

// failure is a remembered failed rewrite.
type failure struct {
	until  time.Time
	reason string
}

// New checks o and loads its prompt.
func New(o Options) (*Augmenter, error) {
	if o.Chat == nil {
		return nil, errors.New("augment: no chat client")
	}
	if strings.TrimSpace(o.Model) == "" {
		return nil, errors.New("augment: no model (--model)")
	}
	if o.Version == "" {
		o.Version = PromptVersion
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 300
	}
	if o.Wait >= o.Timeout {
		o.Wait = 0 // the rewrite itself ends by Timeout
	}
	if o.FailureTTL == 0 {
		o.FailureTTL = time.Minute
	}
	p, err := LoadPrompt(o.Version)
	if err != nil {
		return nil, err
	}
	bg, stop := context.WithCancel(context.Background())
	return &Augmenter{o: o, prompt: p, inflight: map[string]*call{}, failed: map[string]failure{}, bg: bg, stop: stop}, nil
}

// Close cancels the rewrites still running in the background and waits
// for them; call it before closing the cache. Augment after Close falls
// back at once.
func (a *Augmenter) Close() {
	a.stop()
	a.wg.Wait()
}

// Label describes the augmenter for reports.
func (a *Augmenter) Label() string {
	s := fmt.Sprintf("chat model %s, prompt %s", a.o.Model, a.o.Version)
	if a.o.Cache != nil {
		s += ", cache " + a.o.Cache.Path()
	}
	return s
}

// Key is the cache key of a query: its text, the model and the prompt
// (version and bytes).
func (a *Augmenter) Key(query string) string {
	h := sha256.New()
	for _, s := range []string{query, a.o.Model, a.prompt.Version, a.prompt.SHA256} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Augment rewrites one query. It never fails: an error of the model or of
// the cache, a timeout, an unusable answer or a rewrite not ready within
// Wait gives StatusFallback with the reason, and the raw query is searched
// alone. A failure is remembered for FailureTTL (the query falls back at
// once meanwhile); a rewrite still running goes on in the background.
func (a *Augmenter) Augment(ctx context.Context, query string) Result {
	query = strings.TrimSpace(query)
	res := Result{Query: query, Model: a.o.Model, PromptVersion: a.o.Version}
	if query == "" {
		res.Status, res.Reason = StatusFallback, "empty query"
		return res
	}
	key := a.Key(query)
	if a.o.Cache != nil {
		if ans, ok := a.o.Cache.Get(key); ok {
			// The journal keeps what the model answered; whether it is
			// usable is decided here, at each use, by the current rules.
			// An unusable answer is not asked again: at temperature 0 the
			// model gives it again.
			ans, err := a.prompt.StripExamples(ans)
			if err != nil {
				res.Status, res.Reason = StatusFallback, "cached answer: "+err.Error()
				return res
			}
			res.Status, res.Answer, res.Document = StatusCached, &ans, ans.Document(a.o.Model)
			return res
		}
	}
	c, first, recent := a.start(key, res)
	if recent != "" {
		res.Status, res.Reason = StatusFallback, recent
		return res
	}
	var expired <-chan time.Time
	if a.o.Wait > 0 {
		t := time.NewTimer(a.o.Wait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-c.done:
		r := c.res
		if !first {
			r.Usage = llm.Usage{} // paid by the first caller
			if r.Status == StatusAugmented {
				r.Status = StatusCached
			}
		}
		return r
	case <-expired:
		res.Status, res.Reason = StatusFallback, fmt.Sprintf("the rewrite was not ready after %s: searched without it (it goes on and is cached for the next search)", a.o.Wait)
		return res
	case <-ctx.Done():
		res.Status, res.Reason = StatusFallback, ctx.Err().Error()
		return res
	}
}

// start returns the rewrite of key in flight, starting it when there is
// none (first), or the reason it recently failed.
func (a *Augmenter) start(key string, res Result) (c *call, first bool, recent string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bg.Err() != nil {
		return nil, false, "augmenter closed"
	}
	if f, ok := a.failed[key]; ok {
		if time.Now().Before(f.until) {
			return nil, false, fmt.Sprintf("failed %s ago, not asked again for %s: %s",
				(a.o.FailureTTL - time.Until(f.until)).Round(time.Second), time.Until(f.until).Round(time.Second), f.reason)
		}
		delete(a.failed, key)
	}
	if c, ok := a.inflight[key]; ok {
		return c, false, ""
	}
	c = &call{done: make(chan struct{})}
	a.inflight[key] = c
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		c.res = a.ask(a.bg, key, res)
		a.mu.Lock()
		delete(a.inflight, key)
		if c.res.Status == StatusFallback && a.o.FailureTTL > 0 && a.bg.Err() == nil {
			a.failed[key] = failure{until: time.Now().Add(a.o.FailureTTL), reason: c.res.Reason}
		}
		a.mu.Unlock()
		close(c.done)
	}()
	return c, true, ""
}

func (a *Augmenter) ask(ctx context.Context, key string, res Result) Result {
	msgs, err := a.prompt.Messages(res.Query)
	if err != nil {
		res.Status, res.Reason = StatusFallback, err.Error()
		return res
	}
	cctx, cancel := context.WithTimeout(ctx, a.o.Timeout)
	defer cancel()
	zero := float32(0)
	resp, err := a.o.Chat.Chat(cctx, llm.ChatRequest{Model: a.o.Model, Messages: msgs, JSON: true, Schema: AnswerSchema, MaxTokens: a.o.MaxTokens, Temperature: &zero})
	res.Usage = resp.Usage
	if err != nil {
		res.Status = StatusFallback
		res.Reason = "model error: " + err.Error()
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			res.Reason = fmt.Sprintf("model timed out after %s", a.o.Timeout)
		}
		return res
	}
	ans, err := ParseAnswer(resp.Content)
	if err != nil {
		res.Status, res.Reason = StatusFallback, err.Error()
		return res
	}
	// The parsed answer is cached as the model gave it, copies of the
	// prompt's examples included (Augment judges every use): asking again
	// at temperature 0 would only pay for the same answer.
	var notCached string
	if a.o.Cache != nil {
		if err := a.o.Cache.Put(Record{Key: key, Query: res.Query, Model: a.o.Model, PromptVersion: a.prompt.Version,
			PromptSHA256: a.prompt.SHA256, Answer: ans, CreatedAt: time.Now().UTC().Format(time.RFC3339)}); err != nil {
			// Only the next call will pay again.
			notCached = "not cached: " + err.Error()
		}
	}
	if ans, err = a.prompt.StripExamples(ans); err != nil {
		res.Status, res.Reason = StatusFallback, err.Error()
		return res
	}
	res.Status, res.Answer, res.Document, res.Reason = StatusAugmented, &ans, ans.Document(a.o.Model), notCached
	return res
}

// Rewrite is Augment as an eval.Rewriter: the variants to search and the
// note for the report.
func (a *Augmenter) Rewrite(ctx context.Context, text string) ([]retrieval.Variant, string) {
	r := a.Augment(ctx, text)
	return r.Variants(), r.Note()
}

// Search augments q.Text and searches its variants on s, fused
// (retrieval.SearchVariants). A Formal statement in q is kept with every
// variant. The error is the search's; the model's failures are in Result.
func (a *Augmenter) Search(ctx context.Context, s retrieval.Searcher, q retrieval.Query) ([]retrieval.Hit, Result, error) {
	r := a.Augment(ctx, q.Text)
	if err := ctx.Err(); err != nil {
		return nil, r, err
	}
	hits, err := retrieval.SearchVariants(ctx, s, q, r.Variants())
	return hits, r, err
}
