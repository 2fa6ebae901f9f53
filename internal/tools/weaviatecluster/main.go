// Command weaviatecluster runs a Weaviate cluster on loopback (the pinned
// server that `make weaviate` builds) until interrupted, for benchmarks and
// trying driftkit's Weaviate backend by hand: it prints the --weaviate value
// and each node's PID, data folder and log.
//
//	go run ./internal/tools/weaviatecluster -dir /tmp/wv [-nodes 3] [-env K=V …]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/driftkit/driftkit/internal/testkit/weaviatetest"
)

type envFlag []string

func (e *envFlag) String() string     { return strings.Join(*e, " ") }
func (e *envFlag) Set(s string) error { *e = append(*e, s); return nil }

func main() {
	dir := flag.String("dir", "", "folder for the nodes' data and logs (required)")
	nodes := flag.Int("nodes", 3, "nodes")
	var env envFlag
	flag.Var(&env, "env", "K=V added to every node's environment (repeatable)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: weaviatecluster -dir DIR [-nodes N] [-env K=V …]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := weaviatetest.Start(ctx, weaviatetest.Options{Nodes: *nodes, Dir: *dir, Env: env})
	if err != nil {
		fmt.Fprintln(os.Stderr, "weaviatecluster:", err)
		os.Exit(1)
	}
	for i, n := range c.Nodes {
		fmt.Printf("node%d pid %d http %d grpc %d data %s log %s\n", i, n.PID(), n.HTTP, n.GRPC, n.Dir, n.Log)
	}
	fmt.Printf("WEAVIATE=%s\n", c.URLs())
	<-ctx.Done()
	c.Stop()
}
