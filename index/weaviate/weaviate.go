// Package weaviate is the Weaviate dense backend of driftkit's index
// (kind "weaviate"): a generation's vectors and filterable properties live
// in a Weaviate collection named after the generation, sharded and
// replicated by the cluster, and dense requests are answered there with
// their filters pushed down. Documents, BM25 and the usage graph stay in
// the generation folder.
//
// It talks to Weaviate directly: REST for the schema and the nodes' state,
// gRPC (Weaviate's own generated protocol package, pinned to the server's
// version) for batch import, search and aggregation. Not the Go client
// (weaviate-go-client/v5): it builds with our go.mod, but drags in
// go-openapi, mongo's bson and oauth2 for its REST models, sends vectors
// through models.Object, and offers gRPC search only as "experimental";
// the protocol package gives byte-exact vectors, named vectors and
// consistency levels with a few hundred lines.
//
// Parameters (recorded in the index manifest, never a secret):
//
//	url          node URLs, comma-separated: http://HOST:PORT[?grpc=PORT|HOST:PORT] (gRPC default: HOST:50051)
//	shards       shards of each collection (default 3)
//	replication  replication factor (default 3)
//	index        vector index: flat (exact, default: rankings equal the in-process backend's) or hnsw
//	ef           HNSW search breadth (index=hnsw; default 256)
//	write        all (default: every replica takes every write, so a node that was down comes back
//	             complete; an import needs every node) or quorum (an import goes on with a node
//	             down, which catches up by asynchronous replication and meanwhile may answer
//	             searches from incomplete replicas)
//	rescore      true (default): candidates' vectors come back and are scored in process, bit for bit
//	             the in-process backend's scores and rankings; false: Weaviate's distances (equal
//	             but for the last bits of a float32 sum, so near-ties may swap; fewer bytes per search)
//	collection   the collection (set by the build)
//	head         the projection head whose projected vectors the collection holds (set by the build)
//
// From the environment (DenseEnv): WEAVIATE_API_KEY (sent as a bearer
// token) and WEAVIATE_URL, which replaces url (a server that reaches the
// cluster at other addresses than the build did).
package weaviate

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/driftkit/driftkit/index"
)

// Kind is the backend's kind (--backend weaviate).
const Kind = "weaviate"

func init() { index.RegisterDense(factory{}) }

// Parameter names.
const (
	ParamURL         = "url"
	ParamShards      = "shards"
	ParamReplication = "replication"
	ParamIndex       = "index"
	ParamEF          = "ef"
	ParamCollection  = "collection"
	ParamHead        = "head"
	ParamRescore     = "rescore"
	ParamWrite       = "write"
)

// Vector index types.
const (
	IndexFlat = "flat"
	IndexHNSW = "hnsw"
)

type factory struct{}

func (factory) Kind() string { return Kind }

// config is a parsed parameter set.
type config struct {
	nodes       []node
	shards      int
	replication int
	index       string
	ef          int
	rescore     bool
	write       pb.ConsistencyLevel
	collection  string
	head        string
	params      map[string]string
	env         index.DenseEnv
}

// node is one Weaviate node's addresses.
type node struct {
	// http is the REST base URL (scheme://host:port), grpc the gRPC
	// host:port.
	http, grpc string
}

func (factory) ParseConfig(params map[string]string, env index.DenseEnv) (index.DenseConfig, error) {
	if err := index.CheckDenseParams(Kind, params, ParamURL, ParamShards, ParamReplication, ParamIndex, ParamEF, ParamRescore, ParamWrite, ParamCollection, ParamHead); err != nil {
		return nil, err
	}
	c := &config{shards: 3, replication: 3, index: IndexFlat, ef: 256, rescore: true,
		write: pb.ConsistencyLevel_CONSISTENCY_LEVEL_ALL, params: map[string]string{}, env: env}
	urls := params[ParamURL]
	if u := env.Get("WEAVIATE_URL"); u != "" {
		urls = u
	}
	if urls == "" {
		return nil, fmt.Errorf("%w: no node URL (--weaviate URL[,URL…] or WEAVIATE_URL)", index.ErrDenseParam)
	}
	for _, u := range strings.Split(urls, ",") {
		n, err := parseNode(strings.TrimSpace(u))
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	c.params[ParamURL] = params[ParamURL]
	if c.params[ParamURL] == "" {
		c.params[ParamURL] = urls
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{ParamShards, &c.shards}, {ParamReplication, &c.replication}, {ParamEF, &c.ef}} {
		if v, ok := params[p.name]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%w: %s %q (want a whole number ≥ 1)", index.ErrDenseParam, p.name, v)
			}
			*p.dst = n
		}
		c.params[p.name] = strconv.Itoa(*p.dst)
	}
	if v, ok := params[ParamIndex]; ok {
		if v != IndexFlat && v != IndexHNSW {
			return nil, fmt.Errorf("%w: index %q (flat or hnsw)", index.ErrDenseParam, v)
		}
		c.index = v
	}
	c.params[ParamIndex] = c.index
	if v, ok := params[ParamRescore]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%w: rescore %q (true or false)", index.ErrDenseParam, v)
		}
		c.rescore = b
	}
	c.params[ParamRescore] = strconv.FormatBool(c.rescore)
	switch v := params[ParamWrite]; v {
	case "", "all":
		c.params[ParamWrite] = "all"
	case "quorum":
		c.write, c.params[ParamWrite] = pb.ConsistencyLevel_CONSISTENCY_LEVEL_QUORUM, v
	default:
		return nil, fmt.Errorf("%w: write %q (all or quorum)", index.ErrDenseParam, v)
	}
	if c.index != IndexHNSW {
		delete(c.params, ParamEF)
	}
	c.collection, c.head = params[ParamCollection], params[ParamHead]
	if c.collection != "" {
		c.params[ParamCollection] = c.collection
		c.params[ParamHead] = c.head
	}
	return c, nil
}

// parseNode reads http://HOST:PORT[?grpc=PORT|HOST:PORT].
func parseNode(s string) (node, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.User != nil {
		return node{}, fmt.Errorf("%w: node URL %q (want http://HOST:PORT[?grpc=PORT])", index.ErrDenseParam, s)
	}
	q := u.Query()
	for k := range q {
		if k != "grpc" {
			return node{}, fmt.Errorf("%w: node URL %q: unknown setting %q (grpc)", index.ErrDenseParam, s, k)
		}
	}
	g := q.Get("grpc")
	switch {
	case g == "":
		g = u.Hostname() + ":50051"
	case !strings.Contains(g, ":"):
		g = u.Hostname() + ":" + g
	}
	if _, p, err := splitPort(g); err != nil || p < 1 || p > 65535 {
		return node{}, fmt.Errorf("%w: node URL %q: gRPC address %q", index.ErrDenseParam, s, g)
	}
	return node{http: u.Scheme + "://" + u.Host, grpc: g}, nil
}

func splitPort(hostport string) (string, int, error) {
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("no port")
	}
	p, err := strconv.Atoi(hostport[i+1:])
	return hostport[:i], p, err
}

// Params implements index.DenseConfig.
func (c *config) Params() map[string]string {
	out := map[string]string{}
	for k, v := range c.params {
		out[k] = v
	}
	return out
}

// CollectionName is the collection of generation gen: Weaviate's class
// names are GraphQL names starting with a capital letter.
func CollectionName(gen string) string {
	return "Driftkit_" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, gen)
}
