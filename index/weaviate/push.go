package weaviate

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/workspace"
)

// Import tuning: objects per gRPC batch are bounded by bytes (a batch of
// 1024-dimensional vectors is ~2 MiB), a few batches are in flight, and a
// failed batch is sent again (to any node) up to pushAttempts times.
const (
	batchBytes      = 2 << 20
	pushConcurrency = 4
	pushAttempts    = 8
	sampleRows      = 64
)

// workspaceID names the workspace whose generations a collection holds:
// this machine and the workspace's absolute folder.
func workspaceID(abs string) string {
	h, _ := os.Hostname()
	return h + ":" + abs
}

// Create implements index.DenseConfig: it imports the generation's vectors
// (and the head's projections of the premises) into its collection — only
// the rows it lacks when a killed build left the collection behind —,
// turns on the replicas' asynchronous repair, then verifies the object
// count and a sample of vectors read back.
func (c *config) Create(ctx context.Context, b *index.DenseBuild) (*index.DenseCreated, error) {
	cl := newClient(c)
	defer cl.Close()
	name := CollectionName(b.Generation)
	m := meta{Driftkit: metaVersion, Workspace: workspaceID(b.Workspace), Generation: b.Generation, Key: b.Key,
		Rows: b.Vectors.Rows(), Dims: b.Vectors.Dim()}
	proj, err := project(b)
	if err != nil {
		return nil, err
	}
	if b.Head != nil {
		m.Head, m.HeadDims = b.Head.ID(), b.Head.Dim()
	}
	have, err := c.prepare(ctx, cl, name, m)
	if err != nil {
		return nil, err
	}
	if n := countTrue(have); n > 0 {
		b.Env.Warnf("weaviate: collection %s already holds %d of %d rows (a build with the same inputs was stopped): importing the other %d", name, n, m.Rows, m.Rows-n)
	}
	if err := c.push(ctx, cl, name, m, b, proj, have); err != nil {
		return nil, err
	}
	if c.replication > 1 {
		if err := cl.enableRepair(ctx, name); err != nil {
			return nil, err
		}
	}
	if err := c.verify(ctx, cl, name, b, proj); err != nil {
		return nil, err
	}
	return &index.DenseCreated{Params: map[string]string{ParamCollection: name, ParamHead: m.Head}}, nil
}

// projected is the head's projections of the premise documents.
type projected struct {
	store *index.Store
	row   map[int]int // document → row of store
}

// project applies the build's head to the premise documents (nil without
// a head), as the in-process backend does at Open.
func project(b *index.DenseBuild) (*projected, error) {
	if b.Head == nil {
		return nil, nil
	}
	docs := index.PremiseRows(len(b.Docs), func(d int) bool { return workspace.IsPremiseKind(b.Docs[d].Kind) })
	in := b.Vectors.Dim()
	x := make([]float32, 0, len(docs)*in)
	for _, d := range docs {
		x = append(x, b.Vectors.Vector(int(d))...)
	}
	vecs, err := b.Head.ProjectDocuments(x, len(docs))
	if err != nil {
		return nil, fmt.Errorf("project documents: %w", err)
	}
	p := &projected{store: index.NewStore(vecs, len(docs), b.Head.Dim()), row: make(map[int]int, len(docs))}
	for i, d := range docs {
		p.row[int(d)] = i
	}
	return p, nil
}

// prepare makes sure the collection exists for m and returns which rows it
// holds already: an existing one of the same build (same workspace, key,
// head, shape) is kept, one of another build under the same name replaced.
// The collection's definition is never changed once made (a schema update
// makes Weaviate stop the shards' writes while it applies).
func (c *config) prepare(ctx context.Context, cl *client, name string, m meta) ([]bool, error) {
	// Every replica takes every write (consistency ALL), so a build needs
	// every node of the collection; with QUORUM, one may be down.
	need := c.replication
	if c.write == pb.ConsistencyLevel_CONSISTENCY_LEVEL_QUORUM {
		need = c.replication/2 + 1
	}
	if err := cl.waitHealthy(ctx, need); err != nil {
		return nil, err
	}
	old, err := cl.getClass(ctx, name)
	switch {
	case err == nil:
		if om, ok := old.meta(); ok && om == m {
			return cl.existingRows(ctx, name, m.Rows)
		}
		if err := cl.deleteClass(ctx, name); err != nil {
			return nil, err
		}
	case !isNotFound(err):
		return nil, err
	}
	return make([]bool, m.Rows), cl.createClass(ctx, c.newClass(name, m))
}

// push imports the rows not in have, in batches, several in flight.
func (c *config) push(ctx context.Context, cl *client, name string, m meta, b *index.DenseBuild, proj *projected, have []bool) error {
	per := max(16, batchBytes/(4*(m.Dims+m.HeadDims)+256))
	var batches [][]int
	var cur []int
	for r := range m.Rows {
		if have[r] {
			continue
		}
		if cur = append(cur, r); len(cur) == per {
			batches, cur = append(batches, cur), nil
		}
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	bar := progress.Start(ctx, "weaviate import", int64(m.Rows))
	defer bar.Finish()
	bar.Add(countTrue(have))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once     sync.Once
		firstErr error
		wg       sync.WaitGroup
		next     = make(chan []int)
	)
	for range pushConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rows := range next {
				if err := c.sendBatch(ctx, cl, name, b, proj, rows); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					continue
				}
				bar.Add(len(rows))
			}
		}()
	}
feed:
	for _, rows := range batches {
		select {
		case next <- rows:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// existingRows lists, with the cursor API, which rows a collection holds.
func (cl *client) existingRows(ctx context.Context, name string, rows int) ([]bool, error) {
	have := make([]bool, rows)
	after := ""
	for {
		reply, err := cl.search(ctx, &pb.SearchRequest{Collection: name, Limit: 5000, After: after,
			Properties: &pb.PropertiesRequest{NonRefProperties: []string{"row"}}, Metadata: &pb.MetadataRequest{Uuid: true}, Uses_127Api: true})
		if err != nil {
			return nil, notFound(err)
		}
		if len(reply.Results) == 0 {
			return have, nil
		}
		for _, res := range reply.Results {
			if r, ok := rowOf(res.GetProperties()); ok && r >= 0 && r < rows {
				have[r] = true
			}
		}
		after = reply.Results[len(reply.Results)-1].GetMetadata().GetId()
	}
}

// sendBatch imports some rows with the write consistency, trying again
// (on any node) after a failure, with backoff. Objects have fixed ids, so
// sending one twice writes it once.
func (c *config) sendBatch(ctx context.Context, cl *client, name string, b *index.DenseBuild, proj *projected, rows []int) error {
	req := &pb.BatchObjectsRequest{ConsistencyLevel: c.write.Enum()}
	lo, hi := rows[0], rows[len(rows)-1]+1
	for _, r := range rows {
		d := &b.Docs[r]
		props, err := structpb.NewStruct(map[string]any{"row": r, "name": d.Name, "kind": d.Kind, "library": d.Library, "module": d.Module})
		if err != nil {
			return err
		}
		o := &pb.BatchObject{Uuid: objectUUID(name, r), Collection: name, Properties: &pb.BatchObject_Properties{NonRefProperties: props},
			Vectors: []*pb.Vectors{{Name: vecRaw, VectorBytes: f32Bytes(b.Vectors.Vector(r)), Type: pb.Vectors_VECTOR_TYPE_SINGLE_FP32}}}
		if proj != nil {
			if i, ok := proj.row[r]; ok {
				o.Vectors = append(o.Vectors, &pb.Vectors{Name: vecHead, VectorBytes: f32Bytes(proj.store.Vector(i)), Type: pb.Vectors_VECTOR_TYPE_SINGLE_FP32})
			}
		}
		req.Objects = append(req.Objects, o)
	}
	wait := 500 * time.Millisecond
	var err error
	for attempt := range pushAttempts {
		if attempt > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			wait = min(2*wait, 10*time.Second)
		}
		err = cl.each(ctx, func(i int, _ node) error {
			c, err := cl.rpc(i)
			if err != nil {
				return err
			}
			reply, err := c.BatchObjects(cl.grpcCtx(ctx), req)
			if err != nil {
				return err
			}
			if len(reply.Errors) > 0 {
				e := reply.Errors[0]
				return fmt.Errorf("%d of %d objects refused, row %d: %s", len(reply.Errors), len(req.Objects), rows[e.Index], e.Error)
			}
			return nil
		})
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("import rows %d–%d into %s: %w", lo, hi-1, name, err)
	}
	return nil
}

// verify checks that the collection holds exactly the generation's rows
// (its object count, which replication may take a moment to settle) and
// that a sample of them reads back bit for bit, raw and projected vectors
// both, from a quorum of replicas.
func (c *config) verify(ctx context.Context, cl *client, name string, b *index.DenseBuild, proj *projected) error {
	want := int64(b.Vectors.Rows())
	var n int64
	for attempt := 0; ; attempt++ {
		err := settle(ctx, func() (err error) { n, err = cl.count(ctx, name); return err })
		if err != nil {
			return err
		}
		if n == want || attempt == 20 {
			break
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if n != want {
		return fmt.Errorf("verify %s: %d objects, the generation has %d rows", name, n, want)
	}
	rows := sample(b.Generation, b.Vectors.Rows())
	var got map[int]rowVectors
	err := settle(ctx, func() (err error) { got, err = cl.readRows(ctx, name, rows, proj != nil, c.write); return err })
	if err != nil {
		return fmt.Errorf("verify %s: %w", name, err)
	}
	for _, r := range rows {
		v, ok := got[r]
		if !ok {
			return fmt.Errorf("verify %s: row %d is missing", name, r)
		}
		if !slices.Equal(v.raw, b.Vectors.Vector(r)) {
			return fmt.Errorf("verify %s: row %d: the stored vector differs from the generation's", name, r)
		}
		if proj != nil {
			if i, ok := proj.row[r]; ok && !slices.Equal(v.head, proj.store.Vector(i)) {
				return fmt.Errorf("verify %s: row %d: the stored projection differs from the head's", name, r)
			}
		}
	}
	return nil
}

// settle runs fn again, with the import's backoff and pushAttempts times
// in all, while no node could answer it for a reason another try may not
// share (ErrUnavailable): a read at consistency ALL is refused while one
// replica is briefly unreachable ("cannot reach enough replicas", on a
// loaded machine), as a write is, and the import that just succeeded
// through its own retries must not fail at its check for that. A refusal
// another try would share (a missing collection, a bad request) and a
// wrong answer are returned at once.
func settle(ctx context.Context, fn func() error) error {
	wait := settleWait
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNotFound) || attempt == pushAttempts {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		wait = min(2*wait, 10*time.Second)
	}
}

// settleWait is settle's first wait (tests shorten it).
var settleWait = 500 * time.Millisecond

// sample picks rows to read back: the first, the last and others spread by
// a hash of the generation's name.
func sample(gen string, n int) []int {
	seen := map[int]bool{0: true, n - 1: true}
	h := sha1.Sum([]byte(gen))
	x := binary.LittleEndian.Uint64(h[:8])
	for i := 0; len(seen) < min(sampleRows, n) && i < 4*sampleRows; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		seen[int((x>>33)%uint64(n))] = true
	}
	rows := make([]int, 0, len(seen))
	for r := range seen {
		rows = append(rows, r)
	}
	slices.Sort(rows)
	return rows
}

// objectUUID is row's object id in a collection: a name-based (version 5
// style) UUID, so that a rerun writes the same objects again.
func objectUUID(collection string, row int) string {
	h := sha1.Sum(fmt.Appendf(nil, "driftkit/%s/%d", collection, row))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// f32Bytes is v as little-endian float32s (Weaviate's vector_bytes).
func f32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// bytesF32 is the inverse of f32Bytes.
func bytesF32(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("a vector of %d bytes", len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}
