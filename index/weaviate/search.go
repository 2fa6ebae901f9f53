package weaviate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
)

// store is one generation's collection, opened for search.
type store struct {
	cl         *client
	collection string
	table      *retrieval.Table
	dim        int
	rows       int
	// head projects queries for the requests it answers (nil: none).
	head     *head.Head
	headInfo *index.HeadInfo
	// margin more documents than asked are fetched, so that the cut at K
	// is made here, ties by document id, as every backend cuts; with
	// rescore the scores are computed here (see nearest).
	margin  int
	rescore bool
}

var _ index.DenseStore = (*store)(nil)

// Open implements index.DenseConfig: it checks that the collection is this
// generation's, complete, and holds the projections of the workspace's
// head when search applies one.
func (c *config) Open(ctx context.Context, o *index.DenseOpen) (index.DenseStore, error) {
	if c.collection == "" {
		return nil, fmt.Errorf("%w: the manifest names no collection", index.ErrStale)
	}
	cl := newClient(c)
	s := &store{cl: cl, collection: c.collection, table: o.Table, dim: o.Manifest.Dims, rows: o.Manifest.Docs, margin: 8, rescore: c.rescore}
	cls, err := cl.getClass(ctx, c.collection)
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("collection %s of generation %s: %w", c.collection, o.Manifest.Generation, err)
	}
	m, ok := cls.meta()
	switch {
	case !ok || m.Generation != o.Manifest.Generation:
		err = fmt.Errorf("%w: collection %s is not generation %s's", index.ErrStale, c.collection, o.Manifest.Generation)
	case m.Rows != o.Manifest.Docs || m.Dims != o.Manifest.Dims:
		err = fmt.Errorf("%w: collection %s has %d rows of %d dims, the generation %d of %d",
			index.ErrStale, c.collection, m.Rows, m.Dims, o.Manifest.Docs, o.Manifest.Dims)
	case o.Head != nil && o.Head.ID() != m.Head:
		err = fmt.Errorf("%w: the workspace's head %s is not the one whose projections collection %s holds (%q): run `driftkit index --backend weaviate` again to push it, or search with --no-head",
			head.ErrMismatch, o.Head.ID(), c.collection, m.Head)
	}
	if err == nil {
		// The build committed the generation after verifying the import;
		// a count that differs now means objects were lost since.
		var n int64
		if n, err = cl.count(ctx, c.collection); err == nil && n != int64(m.Rows) {
			err = fmt.Errorf("%w: collection %s holds %d objects, generation %s has %d documents", index.ErrStale, c.collection, n, m.Generation, m.Rows)
		}
	}
	if err != nil {
		cl.Close()
		return nil, err
	}
	if o.Head != nil && !o.VectorsOnly {
		s.head, s.headInfo = o.Head, o.Head.Info()
	}
	return s, nil
}

func (s *store) Dim() int              { return s.dim }
func (s *store) Collection() string    { return s.collection }
func (s *store) Head() *index.HeadInfo { return s.headInfo }
func (s *store) Close() error          { return s.cl.Close() }

// SearchDense implements retrieval.DenseBackend: each request of b becomes
// one filtered nearest-vector search of the collection (the head's
// projections for the requests HeadRoutes gives it, with the projected
// query), run concurrently.
func (s *store) SearchDense(ctx context.Context, q []float32, b *retrieval.Batch) ([][]retrieval.Scored, error) {
	out := make([][]retrieval.Scored, len(b.Requests))
	routes := make([]bool, len(b.Requests))
	var qh []float32
	if s.head != nil {
		routes = index.HeadRoutes(b, s.table.Premise)
		if slices.Contains(routes, true) {
			var err error
			if qh, err = s.head.ProjectQuery(q); err != nil {
				return nil, fmt.Errorf("project query: %w", err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(b.Requests))
	for i, r := range b.Requests {
		f, any := selectionFilter(b.Requests, i)
		if r.K <= 0 || !any {
			continue
		}
		vec, target := q, vecRaw
		if routes[i] {
			vec, target = qh, vecHead
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = s.nearest(ctx, vec, target, f, r.K)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// nearest returns the k documents of a selection nearest to vec, best
// first, ties by document id. Weaviate's distances are float32 sums taken
// in another order than the in-process scan's, so with rescore each
// candidate's vector comes back and is scored here with the same dot
// product as in process (bit-identical scores, so identical rankings), and
// candidates are fetched until every one within rounding of the k-th is in
// hand (k+margin first, more when the tail is that close).
func (s *store) nearest(ctx context.Context, vec []float32, target string, f *pb.Filters, k int) ([]retrieval.Scored, error) {
	limit := k + s.margin
	for {
		out, full, err := s.fetch(ctx, vec, target, f, limit)
		if err != nil {
			return nil, err
		}
		sortScored(out)
		if !full || len(out) <= k || out[len(out)-1].dist > out[k-1].dist+tieEpsilon || limit >= maxLimit {
			return cut(out, k), nil
		}
		limit = min(2*limit, maxLimit)
	}
}

// tieEpsilon bounds how far Weaviate's distance and the in-process score
// may differ by rounding; maxLimit is the most results one search asks for.
const (
	tieEpsilon = 1e-4
	maxLimit   = 100000
)

// scored is a candidate with Weaviate's distance.
type scored struct {
	retrieval.Scored
	dist float32
}

// fetch runs one search; full reports that it returned limit results.
func (s *store) fetch(ctx context.Context, vec []float32, target string, f *pb.Filters, limit int) ([]scored, bool, error) {
	md := &pb.MetadataRequest{Distance: true}
	if s.rescore {
		md.Vectors = []string{target}
	}
	req := &pb.SearchRequest{
		Collection: s.collection,
		Limit:      uint32(limit),
		Filters:    f,
		NearVector: &pb.NearVector{
			Targets: &pb.Targets{TargetVectors: []string{target}},
			Vectors: []*pb.Vectors{{Name: target, VectorBytes: f32Bytes(vec), Type: pb.Vectors_VECTOR_TYPE_SINGLE_FP32}},
		},
		Properties:       &pb.PropertiesRequest{NonRefProperties: []string{"row"}},
		Metadata:         md,
		ConsistencyLevel: pb.ConsistencyLevel_CONSISTENCY_LEVEL_ONE.Enum(),
		Uses_127Api:      true,
	}
	reply, err := s.cl.search(ctx, req)
	if err != nil {
		return nil, false, fmt.Errorf("search %s: %w", s.collection, notFound(err))
	}
	out := make([]scored, 0, len(reply.Results))
	for _, res := range reply.Results {
		row, ok := rowOf(res.GetProperties())
		if !ok || row < 0 || row >= s.rows {
			return nil, false, fmt.Errorf("search %s: an object without a valid row (%v)", s.collection, res.GetProperties())
		}
		// Weaviate's dot distance is the negated inner product.
		d := res.GetMetadata().GetDistance()
		c := scored{Scored: retrieval.Scored{Doc: row, Score: -d}, dist: d}
		if s.rescore {
			v := vectorOf(res.GetMetadata(), target)
			if len(v) != len(vec) {
				return nil, false, fmt.Errorf("search %s: row %d has a %d-dimensional %s vector, the query %d", s.collection, row, len(v), target, len(vec))
			}
			c.Score = index.DotSIMD(vec, v)
		}
		out = append(out, c)
	}
	return out, len(out) == limit, nil
}

// sortScored orders candidates by Weaviate's distance (the order they are
// fetched in).
func sortScored(c []scored) {
	slices.SortFunc(c, func(a, b scored) int {
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		return a.Doc - b.Doc
	})
}

// cut orders candidates by score, ties by document id, as every backend
// does, and keeps k.
func cut(c []scored, k int) []retrieval.Scored {
	out := make([]retrieval.Scored, len(c))
	for i := range c {
		out[i] = c[i].Scored
	}
	retrieval.SortScored(out)
	return out[:min(k, len(out))]
}

// rowOf reads the row property of a search result.
func rowOf(p *pb.PropertiesResult) (int, bool) {
	v, ok := p.GetNonRefProps().GetFields()["row"]
	if !ok {
		return 0, false
	}
	switch x := v.GetKind().(type) {
	case *pb.Value_IntValue:
		return int(x.IntValue), true
	case *pb.Value_NumberValue:
		return int(x.NumberValue), true
	}
	return 0, false
}

// selectionFilter translates request i's selection into a Weaviate filter
// (nil: every document). Like Table.Compile, a document belongs to the
// first request that selects it: the selections of earlier requests are
// excluded. any is false when the request can select nothing (no kind).
func selectionFilter(reqs []retrieval.Request, i int) (f *pb.Filters, any bool) {
	sel := reqs[i].Select
	if sel.Kinds != nil && len(sel.Kinds) == 0 {
		return nil, false
	}
	parts := []*pb.Filters{}
	if p := matches(sel); p != nil {
		parts = append(parts, p)
	}
	if len(sel.Exclude) > 0 {
		parts = append(parts, textFilter(pb.Filters_OPERATOR_CONTAINS_NONE, "name", sel.Exclude))
	}
	for _, prev := range reqs[:i] {
		if overlaps(prev.Select, sel) {
			// Not (prev's kinds and library and not prev's exclusions).
			p := []*pb.Filters{}
			if m := matches(prev.Select); m != nil {
				p = append(p, m)
			}
			if len(prev.Select.Exclude) > 0 {
				p = append(p, textFilter(pb.Filters_OPERATOR_CONTAINS_NONE, "name", prev.Select.Exclude))
			}
			if len(p) == 0 { // prev takes every document
				return nil, false
			}
			parts = append(parts, &pb.Filters{Operator: pb.Filters_OPERATOR_NOT, Filters: []*pb.Filters{and(p)}})
		}
	}
	if len(parts) == 0 {
		return nil, true
	}
	return and(parts), true
}

// matches is a selection's kinds and library (nil: no constraint).
func matches(sel retrieval.Selection) *pb.Filters {
	var p []*pb.Filters
	if sel.Kinds != nil {
		p = append(p, textFilter(pb.Filters_OPERATOR_CONTAINS_ANY, "kind", sel.Kinds))
	}
	if sel.Library != "" {
		p = append(p, &pb.Filters{Operator: pb.Filters_OPERATOR_EQUAL, Target: propTarget("library"), TestValue: &pb.Filters_ValueText{ValueText: sel.Library}})
	}
	if len(p) == 0 {
		return nil
	}
	return and(p)
}

// overlaps reports whether two selections may share a document (by kinds
// and library; exclusions are ignored, which only adds a harmless clause).
func overlaps(a, b retrieval.Selection) bool {
	if a.Library != "" && b.Library != "" && a.Library != b.Library {
		return false
	}
	if a.Kinds == nil || b.Kinds == nil {
		return !(a.Kinds != nil && len(a.Kinds) == 0 || b.Kinds != nil && len(b.Kinds) == 0)
	}
	for _, k := range a.Kinds {
		if slices.Contains(b.Kinds, k) {
			return true
		}
	}
	return false
}

func and(p []*pb.Filters) *pb.Filters {
	if len(p) == 1 {
		return p[0]
	}
	return &pb.Filters{Operator: pb.Filters_OPERATOR_AND, Filters: p}
}

func propTarget(name string) *pb.FilterTarget {
	return &pb.FilterTarget{Target: &pb.FilterTarget_Property{Property: name}}
}

func textFilter(op pb.Filters_Operator, prop string, values []string) *pb.Filters {
	return &pb.Filters{Operator: op, Target: propTarget(prop), TestValue: &pb.Filters_ValueTextArray{ValueTextArray: &pb.TextArray{Values: values}}}
}

// Vectors implements index.DenseStore: every object's raw vector, read with
// the cursor API, placed by its row.
func (s *store) Vectors(ctx context.Context) (*index.Store, error) {
	flat := make([]float32, s.rows*s.dim)
	seen := make([]bool, s.rows)
	after := ""
	for {
		req := &pb.SearchRequest{Collection: s.collection, Limit: 1000, After: after,
			Properties: &pb.PropertiesRequest{NonRefProperties: []string{"row"}},
			Metadata:   &pb.MetadataRequest{Uuid: true, Vectors: []string{vecRaw}}, Uses_127Api: true}
		reply, err := s.cl.search(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("read vectors of %s: %w", s.collection, notFound(err))
		}
		if len(reply.Results) == 0 {
			break
		}
		for _, res := range reply.Results {
			row, ok := rowOf(res.GetProperties())
			v := vectorOf(res.GetMetadata(), vecRaw)
			if !ok || row < 0 || row >= s.rows || len(v) != s.dim || seen[row] {
				return nil, fmt.Errorf("%w: collection %s: object %s (row %d, %d dims) does not fit a generation of %d rows × %d",
					index.ErrStale, s.collection, res.GetMetadata().GetId(), row, len(v), s.rows, s.dim)
			}
			copy(flat[row*s.dim:], v)
			seen[row] = true
		}
		after = reply.Results[len(reply.Results)-1].GetMetadata().GetId()
	}
	if n := countTrue(seen); n != s.rows {
		return nil, fmt.Errorf("%w: collection %s has %d of the generation's %d rows", index.ErrStale, s.collection, n, s.rows)
	}
	return index.NewStore(flat, s.rows, s.dim), nil
}

func countTrue(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// vectorOf decodes a result's named vector (nil when absent).
func vectorOf(m *pb.MetadataResult, name string) []float32 {
	for _, v := range m.GetVectors() {
		if v.GetName() == name {
			f, _ := bytesF32(v.GetVectorBytes())
			return f
		}
	}
	return nil
}

// rowVectors are one object's vectors.
type rowVectors struct{ raw, head []float32 }

// readRows reads the vectors of some rows (by object id: rows are not
// indexed).
func (cl *client) readRows(ctx context.Context, name string, rows []int, withHead bool, level pb.ConsistencyLevel) (map[int]rowVectors, error) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = objectUUID(name, r)
	}
	names := []string{vecRaw}
	if withHead {
		names = append(names, vecHead)
	}
	req := &pb.SearchRequest{Collection: name, Limit: uint32(len(rows)),
		Filters:    textFilter(pb.Filters_OPERATOR_CONTAINS_ANY, "_id", ids),
		Properties: &pb.PropertiesRequest{NonRefProperties: []string{"row"}},
		Metadata:   &pb.MetadataRequest{Vectors: names}, ConsistencyLevel: level.Enum(), Uses_127Api: true}
	reply, err := cl.search(ctx, req)
	if err != nil {
		return nil, notFound(err)
	}
	out := map[int]rowVectors{}
	for _, res := range reply.Results {
		if row, ok := rowOf(res.GetProperties()); ok {
			out[row] = rowVectors{raw: vectorOf(res.GetMetadata(), vecRaw), head: vectorOf(res.GetMetadata(), vecHead)}
		}
	}
	return out, nil
}

// count is the collection's object count.
func (cl *client) count(ctx context.Context, name string) (int64, error) {
	var n int64
	err := cl.each(ctx, func(i int, _ node) error {
		c, err := cl.rpc(i)
		if err != nil {
			return err
		}
		reply, err := c.Aggregate(cl.grpcCtx(ctx), &pb.AggregateRequest{Collection: name, ObjectsCount: true})
		if err != nil {
			return err
		}
		n = reply.GetSingleResult().GetObjectsCount()
		return nil
	})
	return n, notFound(err)
}

// notFound marks an error that says the collection does not exist.
func notFound(err error) error {
	if err != nil && !errors.Is(err, ErrNotFound) && strings.Contains(strings.ToLower(err.Error()), "could not find class") {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

func isNotFound(err error) bool { return errors.Is(notFound(err), ErrNotFound) }

// Resume implements index.DenseResumer: the generation of this
// workspace's collection with the build's key, if a killed build left one.
func (c *config) Resume(ctx context.Context, workspace, key string) (string, error) {
	cl := newClient(c)
	defer cl.Close()
	cls, err := cl.classes(ctx)
	if err != nil {
		return "", err
	}
	id, best := workspaceID(workspace), ""
	for _, k := range cls {
		if m, ok := k.meta(); ok && m.Workspace == id && m.Key == key && k.name() == CollectionName(m.Generation) && m.Generation > best {
			best = m.Generation
		}
	}
	return best, nil
}

// Retire implements index.DenseRetirer: it deletes the workspace's
// collections of generations other than keep.
func (c *config) Retire(ctx context.Context, workspace string, keep []string) error {
	cl := newClient(c)
	defer cl.Close()
	cls, err := cl.classes(ctx)
	if err != nil {
		return err
	}
	id := workspaceID(workspace)
	var errs []error
	for _, k := range cls {
		if m, ok := k.meta(); ok && m.Workspace == id && !slices.Contains(keep, m.Generation) {
			errs = append(errs, cl.deleteClass(ctx, k.name()))
		}
	}
	return errors.Join(errs...)
}
