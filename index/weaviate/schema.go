package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Vector names of a collection: every document has a raw vector; the
// premises also have their projection by the head the build found.
const (
	vecRaw  = "raw"
	vecHead = "head"
)

// meta is what a collection says about itself, kept as JSON in its
// description (written once, with the collection): whose generation it is
// and of which build, so that a killed build's rerun resumes it and a later
// build retires it.
type meta struct {
	Driftkit   int    `json:"driftkit"`
	Workspace  string `json:"workspace"`
	Generation string `json:"generation"`
	// Key identifies the build's inputs (index.DenseBuild.Key).
	Key  string `json:"key"`
	Rows int    `json:"rows"`
	Dims int    `json:"dims"`
	// Head is the ID of the head whose projections are stored ("": none);
	// HeadDims their dimension.
	Head     string `json:"head,omitempty"`
	HeadDims int    `json:"head_dims,omitempty"`
}

const metaVersion = 1

// class is a collection definition as the REST schema API reads and
// writes it; fields driftkit does not set are kept as they come.
type class map[string]any

// describe reads a class's meta (ok false for a class that is not
// driftkit's).
func (c class) meta() (meta, bool) {
	d, _ := c["description"].(string)
	var m meta
	if err := json.Unmarshal([]byte(d), &m); err != nil || m.Driftkit != metaVersion {
		return meta{}, false
	}
	return m, true
}

func (c class) name() string { s, _ := c["class"].(string); return s }

// newClass defines generation m's collection: properties filtered on
// (field tokenization: exact values), one flat or HNSW index per named
// vector with the dot product (the vectors are L2-normalised: the cosine,
// as in process), sharding and replication. Asynchronous repair starts
// off: during the import every replica takes every write anyway, and its
// hash beater, comparing replicas that differ by the batches in flight,
// rescans the shards' memtables every few seconds (a quarter of the nodes'
// import CPU). enableRepair turns it on once the rows are in.
func (c *config) newClass(name string, m meta) class {
	// Only what searches filter on is indexed (each filterable property
	// costs every replica an inverted-index write per object): kind,
	// library, name (exclusions). Row and module are stored, not indexed;
	// rows are read back by object id.
	text := func(n string, filter bool) map[string]any {
		return map[string]any{"name": n, "dataType": []string{"text"}, "tokenization": "field", "indexFilterable": filter, "indexSearchable": false}
	}
	vectors := map[string]any{vecRaw: c.vectorIndex()}
	if m.Head != "" {
		vectors[vecHead] = c.vectorIndex()
	}
	desc, _ := json.Marshal(m)
	return class{
		"class":       name,
		"description": string(desc),
		"properties": []any{
			map[string]any{"name": "row", "dataType": []string{"int"}, "indexFilterable": false, "indexRangeFilters": false},
			text("name", true), text("kind", true), text("library", true), text("module", false),
		},
		"vectorConfig":      vectors,
		"shardingConfig":    map[string]any{"desiredCount": c.shards},
		"replicationConfig": map[string]any{"factor": c.replication, "asyncEnabled": false},
	}
}

func (c *config) vectorIndex() map[string]any {
	vi := map[string]any{"vectorizer": map[string]any{"none": map[string]any{}}, "vectorIndexType": c.index}
	if c.index == IndexHNSW {
		vi["vectorIndexConfig"] = map[string]any{"distance": "dot", "ef": c.ef, "efConstruction": 128, "maxConnections": 32}
	} else {
		vi["vectorIndexConfig"] = map[string]any{"distance": "dot"}
	}
	return vi
}

// getClass reads a collection's definition (ErrNotFound when absent).
func (cl *client) getClass(ctx context.Context, name string) (class, error) {
	var c class
	if err := cl.rest(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(name), nil, &c); err != nil {
		return nil, err
	}
	return c, nil
}

// classes lists the cluster's collections.
func (cl *client) classes(ctx context.Context) ([]class, error) {
	var s struct {
		Classes []class `json:"classes"`
	}
	if err := cl.rest(ctx, http.MethodGet, "/v1/schema", nil, &s); err != nil {
		return nil, err
	}
	return s.Classes, nil
}

// createClass creates a collection; one that exists already is not an
// error when it is the same generation's (a retried request that had
// reached the cluster).
func (cl *client) createClass(ctx context.Context, c class) error {
	err := cl.rest(ctx, http.MethodPost, "/v1/schema", c, nil)
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(he.body), "already exists") {
		return nil
	}
	return err
}

// enableRepair turns on a collection's asynchronous replication (so that
// a node that was down catches up) unless it is on already: a schema update
// of the definition read back, which Weaviate applies through Raft (a node
// that is down applies it when it comes back).
func (cl *client) enableRepair(ctx context.Context, name string) error {
	c, err := cl.getClass(ctx, name)
	if err != nil {
		return err
	}
	rc, _ := c["replicationConfig"].(map[string]any)
	if rc == nil {
		return fmt.Errorf("collection %s: no replicationConfig in its definition", name)
	}
	if on, _ := rc["asyncEnabled"].(bool); on {
		return nil
	}
	rc["asyncEnabled"] = true
	if err := cl.rest(ctx, http.MethodPut, "/v1/schema/"+url.PathEscape(name), c, nil); err != nil {
		return fmt.Errorf("collection %s: turn on asynchronous replication: %w", name, err)
	}
	return nil
}

// deleteClass deletes a collection and its objects (absent: nothing to do).
func (cl *client) deleteClass(ctx context.Context, name string) error {
	err := cl.rest(ctx, http.MethodDelete, "/v1/schema/"+url.PathEscape(name), nil, nil)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// nodeStatus is one node of GET /v1/nodes?output=verbose.
type nodeStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Shards []struct {
		Class       string `json:"class"`
		Name        string `json:"name"`
		ObjectCount int64  `json:"objectCount"`
	} `json:"shards"`
}

// nodes reports the cluster's nodes as one of them sees them.
func (cl *client) nodeStatuses(ctx context.Context, collection string) ([]nodeStatus, error) {
	var s struct {
		Nodes []nodeStatus `json:"nodes"`
	}
	path := "/v1/nodes?output=verbose"
	if collection != "" {
		path = "/v1/nodes/" + url.PathEscape(collection) + "?output=verbose"
	}
	if err := cl.rest(ctx, http.MethodGet, path, nil, &s); err != nil {
		return nil, err
	}
	return s.Nodes, nil
}

// unhealthyError is a cluster with fewer healthy nodes than an import
// needs. It counts as ErrUnavailable, so prepare asks again (settle): right
// after a node is lost or restarted, a loaded machine's survivors may
// report one another unhealthy for a moment (CI, 3 December: "1 healthy
// nodes [node1] of 2" while node0 was up), and a build must not fail for
// what a few seconds settle.
type unhealthyError struct{ msg string }

func (e *unhealthyError) Error() string        { return e.msg }
func (e *unhealthyError) Is(target error) bool { return target == ErrUnavailable }

// waitHealthy is checkHealthy asked again with the import's backoff while
// the cluster is short of healthy nodes (settle).
func (cl *client) waitHealthy(ctx context.Context, want int) error {
	return settle(ctx, func() error { return cl.checkHealthy(ctx, want) })
}

// checkHealthy fails unless at least want nodes are HEALTHY.
func (cl *client) checkHealthy(ctx context.Context, want int) error {
	ns, err := cl.nodeStatuses(ctx, "")
	if err != nil {
		return err
	}
	var healthy []string
	for _, n := range ns {
		if n.Status == "HEALTHY" {
			healthy = append(healthy, n.Name)
		}
	}
	if len(healthy) < want {
		return &unhealthyError{fmt.Sprintf("the cluster has %d healthy nodes %v of %d, an import needs %d", len(healthy), healthy, len(ns), want)}
	}
	return nil
}
