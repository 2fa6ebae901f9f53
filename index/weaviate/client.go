package weaviate

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// ErrUnavailable is wrapped when no node of the cluster answered: the
// message names every URL tried and why it failed. There is no fallback to
// another backend.
var ErrUnavailable = errors.New("no Weaviate node answered")

// ErrNotFound is wrapped when the cluster has no such collection or object.
var ErrNotFound = errors.New("not found")

// NodeError is a failure of one node, named by its URL.
type NodeError struct {
	URL string
	Err error
}

func (e *NodeError) Error() string { return "weaviate " + e.URL + ": " + e.Err.Error() }
func (e *NodeError) Unwrap() error { return e.Err }

// client reaches the nodes of one cluster: each call goes to the next node
// in turn and, when that node cannot answer (down, unreachable, a 5xx),
// to the others, so that losing a node costs no request.
type client struct {
	nodes []node
	key   string
	http  *http.Client
	next  atomic.Uint32

	mu    sync.Mutex
	conns []*grpc.ClientConn
	rpcs  []pb.WeaviateClient
}

func newClient(c *config) *client {
	// Redirects are not followed: Go's client would re-send the body
	// (vectors, queries) to wherever Location points, and the key with it
	// to the same host on another port or to a subdomain.
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &client{nodes: c.nodes, key: c.env.Get("WEAVIATE_API_KEY"), http: &http.Client{Timeout: 2 * time.Minute, CheckRedirect: noRedirect},
		conns: make([]*grpc.ClientConn, len(c.nodes)), rpcs: make([]pb.WeaviateClient, len(c.nodes))}
}

// Close closes the gRPC connections.
func (cl *client) Close() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var errs []error
	for i, c := range cl.conns {
		if c != nil {
			errs = append(errs, c.Close())
			cl.conns[i], cl.rpcs[i] = nil, nil
		}
	}
	return errors.Join(errs...)
}

// each calls fn with one node after another, starting with the next in
// turn, until one succeeds or fails for a reason another node would share
// (a bad request, a missing collection).
func (cl *client) each(ctx context.Context, fn func(i int, n node) error) error {
	start := int(cl.next.Add(1))
	var errs []error
	for k := range cl.nodes {
		i := (start + k) % len(cl.nodes)
		err := fn(i, cl.nodes[i])
		if err == nil {
			return nil
		}
		ne := &NodeError{URL: cl.nodes[i].http, Err: err}
		if ctx.Err() != nil || !retryable(err) {
			return ne
		}
		errs = append(errs, ne)
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, errors.Join(errs...))
}

// retryable reports whether another node might answer where this one
// failed.
func retryable(err error) bool {
	if errors.Is(err, ErrNotFound) || errors.Is(err, context.Canceled) {
		return false
	}
	var he *httpError
	if errors.As(err, &he) {
		return he.status >= 500 || he.status == http.StatusTooManyRequests || transient(err)
	}
	if s, ok := status.FromError(err); ok {
		switch s.Code() {
		case codes.InvalidArgument, codes.NotFound, codes.PermissionDenied, codes.Unauthenticated, codes.FailedPrecondition, codes.Canceled:
			return false
		}
	}
	return true
}

// httpError is a REST answer other than 2xx.
type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

// rest sends a JSON request to one node after another (see each) and
// decodes the answer into out (nil: discarded). A 404 wraps ErrNotFound.
func (cl *client) rest(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	wait := 500 * time.Millisecond
	deadline := time.Now().Add(restPatience)
	for {
		err := cl.each(ctx, func(_ int, n node) error { return cl.restTo(ctx, n, method, path, body, out) })
		if err == nil || !transient(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		wait = min(2*wait, 8*time.Second)
	}
}

// restPatience is how long a schema request waits out a cluster that
// elects a new Raft leader (every node refuses strongly consistent reads
// and writes meanwhile).
const restPatience = time.Minute

// transient reports an error that the whole cluster gives while it
// elects a leader.
func transient(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "leader not found") || strings.Contains(s, "no leader") || strings.Contains(s, "not the leader")
}

// restTo is one REST request to node n.
func (cl *client) restTo(ctx context.Context, n node, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, n.http+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if cl.key != "" {
		req.Header.Set("Authorization", "Bearer "+cl.key)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s %s: %w", method, path, ErrNotFound)
	}
	if resp.StatusCode/100 == 3 {
		return &httpError{status: resp.StatusCode, body: fmt.Sprintf("redirect to %q not followed (give the node's own URL)", resp.Header.Get("Location"))}
	}
	if resp.StatusCode/100 != 2 {
		return &httpError{status: resp.StatusCode, body: strings.TrimSpace(string(b))}
	}
	if out == nil || len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: malformed answer: %v", method, path, err)
	}
	return nil
}

// rpc returns node i's gRPC client, connecting on first use.
func (cl *client) rpc(i int) (pb.WeaviateClient, error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.rpcs[i] != nil {
		return cl.rpcs[i], nil
	}
	creds := insecure.NewCredentials()
	if strings.HasPrefix(cl.nodes[i].http, "https://") {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	conn, err := grpc.NewClient(cl.nodes[i].grpc, grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		return nil, err
	}
	cl.conns[i], cl.rpcs[i] = conn, pb.NewWeaviateClient(conn)
	return cl.rpcs[i], nil
}

// grpcCtx adds the API key to a call's metadata.
func (cl *client) grpcCtx(ctx context.Context) context.Context {
	if cl.key == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+cl.key)
}

// search runs a gRPC search on one node after another.
func (cl *client) search(ctx context.Context, req *pb.SearchRequest) (*pb.SearchReply, error) {
	var reply *pb.SearchReply
	err := cl.each(ctx, func(i int, _ node) error {
		c, err := cl.rpc(i)
		if err != nil {
			return err
		}
		reply, err = c.Search(cl.grpcCtx(ctx), req)
		return err
	})
	return reply, err
}
