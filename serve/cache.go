package serve

import (
	"bytes"
	"container/list"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/driftkit/driftkit/retrieval"
)

// answerCache keeps the answers of recent identical searches of one
// workspace: the encoded JSON of an API or LeanSearch answer (served again
// without re-encoding), a search page's response. An answer is tied to the
// index generation and the declaration rows it was computed from: a request
// gets it only when it pinned the same ones, so a reload can never serve an
// old generation's answer; Workspace.Reload also empties the cache. It is
// bounded by the bytes of its answers, least recently used dropped first.
// Answers of searches a chat model rewrites (Workspace.Augment) are not
// kept: the model's answer, or its failure, is not the index's.
type answerCache struct {
	mu    sync.Mutex
	max   int64 // bytes; ≤ 0: off
	bytes int64
	lru   list.List // of *cached, most recent first
	m     map[string]*list.Element
}

// cached is one answer: what it was computed from (gen, decls), its key and
// value, and its size.
type cached struct {
	gen   string
	decls *Decls
	key   string
	val   any
	size  int64
}

// defaultCacheBytes bounds a workspace's cached answers (Limits.CacheBytes).
const defaultCacheBytes = 32 << 20

// get returns the answer under key computed from p's generation and rows.
func (c *answerCache) get(p *pinned, key string) (any, bool) {
	if c == nil || !cacheable(p) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil, false
	}
	a := e.Value.(*cached)
	if a.gen != p.about.Generation || a.decls != p.decls {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return a.val, true
}

// put keeps val (of about size bytes) under key as computed from p's
// generation and rows.
func (c *answerCache) put(p *pinned, key string, val any, size int64) {
	if c == nil || !cacheable(p) || size > c.max/8 {
		return
	}
	size += int64(len(key)) + 128
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*list.Element{}
	}
	if e, ok := c.m[key]; ok {
		c.drop(e)
	}
	c.m[key] = c.lru.PushFront(&cached{gen: p.about.Generation, decls: p.decls, key: key, val: val, size: size})
	c.bytes += size
	for c.bytes > c.max {
		c.drop(c.lru.Back())
	}
}

func (c *answerCache) drop(e *list.Element) {
	a := c.lru.Remove(e).(*cached)
	delete(c.m, a.key)
	c.bytes -= a.size
}

// clear drops every answer (a reload changed the index or the rows).
func (c *answerCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.m)
	c.bytes = 0
}

// cacheable: an index without generation names cannot tell its answers
// apart.
func cacheable(p *pinned) bool { return p.about.Generation != "" }

// queryKey is the canonical form of a search: every field that changes its
// answer, unambiguously separated.
func queryKey(kind string, q retrieval.Query) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, s := range []string{q.Text, q.Formal, strconv.Itoa(q.K), string(q.Mode), string(q.Profile), q.Filter.Library,
		strconv.FormatBool(q.Filter.AllKinds), strconv.FormatBool(q.Filter.Kinds == nil)} {
		b.WriteByte(0)
		b.WriteString(strconv.Quote(s))
	}
	for _, l := range [][]string{q.Filter.Kinds, q.Filter.Exclude} {
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(len(l)))
		for _, s := range l {
			b.WriteByte(1)
			b.WriteString(strconv.Quote(s))
		}
	}
	if q.Weights != nil {
		w, _ := json.Marshal(q.Weights)
		b.WriteByte(0)
		b.Write(w)
	}
	return b.String()
}

// encodeJSON is writeJSON's encoding of v.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return buf.Bytes()
}

// writeJSONBytes answers 200 with a body encodeJSON made, as writeJSON
// would.
func writeJSONBytes(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// size is about how many bytes r holds.
func (r *SearchResponse) size() int64 {
	n := 512 + len(r.Query)
	for _, h := range r.Hits {
		n += 256 + len(h.Name) + len(h.Module) + len(h.Signature) + len(h.InformalName) + len(h.InformalStatement) + len(h.URL) + len(h.Page) + 48*len(h.Signals)
	}
	return int64(n)
}
