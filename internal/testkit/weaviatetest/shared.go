package weaviatetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// Shared is a package's one cluster, started on first use by Get and
// stopped by Close (call it from TestMain after m.Run).
type Shared struct {
	once sync.Once
	c    *Cluster
	dir  string
	err  error
}

// Get returns the shared cluster, starting it the first time, once every
// node runs and is healthy (Require): a test that killed and restarted a
// node leaves a cluster that may still be settling, and the next test,
// whatever the order (-shuffle), starts on a whole one. Without the
// weaviate-server binary the test is skipped, unless
// DRIFTKIT_REQUIRE_WEAVIATE=1 (make test sets it): then it fails.
func (s *Shared) Get(t testing.TB) *Cluster {
	t.Helper()
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "driftkit-weaviate-"); s.err != nil {
			return
		}
		s.c, s.err = Start(context.Background(), Options{Dir: s.dir})
	})
	if s.err != nil {
		if errors.Is(s.err, ErrNoServer) && os.Getenv("DRIFTKIT_REQUIRE_WEAVIATE") != "1" {
			t.Skipf("%v (make test builds it)", s.err)
		}
		t.Fatalf("weaviate cluster: %v", s.err)
	}
	s.c.Require(t)
	return s.c
}

// Close stops the cluster and removes its data.
func (s *Shared) Close() {
	if s.c != nil {
		s.c.Stop()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// Require fails t unless every node of c runs (a test that killed one
// must have restarted it).
func (c *Cluster) Require(t testing.TB) {
	t.Helper()
	for i, n := range c.Nodes {
		if n.cmd == nil {
			t.Fatalf("node %d is stopped", i)
		}
	}
	if err := c.WaitHealthy(context.Background(), len(c.Nodes)); err != nil {
		t.Fatal(fmt.Errorf("%w\nnode0 log:\n%s", err, c.LogTail(0)))
	}
}
