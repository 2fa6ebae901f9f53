// Command weaviatecluster runs a Weaviate cluster on loopback (the pinned
// server that `make weaviate` builds) until interrupted, for benchmarks and
// trying driftkit's Weaviate backend by hand: it prints the --weaviate value
// and each node's PID, data folder and log.
//
//	go run ./internal/tools/weaviatecluster -dir /tmp/wv [-nodes 3] [-pprof] [-env K=V …]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/weaviatetest"
)

type envFlag []string

func (e *envFlag) String() string     { return strings.Join(*e, " ") }
func (e *envFlag) Set(s string) error { *e = append(*e, s); return nil }

func main() {
	dir := flag.String("dir", "", "folder for the nodes' data and logs (required)")
	nodes := flag.Int("nodes", 3, "nodes")
	pprof := flag.Bool("pprof", false, "give every node a Go profiling port (printed; Weaviate binds it on every interface)")
	var env envFlag
	flag.Var(&env, "env", "K=V added to every node's environment (repeatable)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: weaviatecluster -dir DIR [-nodes N] [-env K=V …]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := weaviatetest.Start(ctx, weaviatetest.Options{Nodes: *nodes, Dir: *dir, Env: env, Pprof: *pprof})
	if err != nil {
		fmt.Fprintln(os.Stderr, "weaviatecluster:", err)
		os.Exit(1)
	}
	for i, n := range c.Nodes {
		fmt.Printf("node%d pid %d http %d grpc %d pprof %d data %s log %s\n", i, n.PID(), n.HTTP, n.GRPC, n.Pprof, n.Dir, n.Log)
	}
	fmt.Printf("WEAVIATE=%s\n", c.URLs())
	go commands(ctx, c, os.Stdin)
	<-ctx.Done()
	c.Stop()
}

// commands reads "kill N" and "restart N" lines (a benchmark's fault
// injection): kill sends SIGKILL to node N; restart starts it again under
// its name and reports how long it took to be healthy and answering.
func commands(ctx context.Context, c *weaviatetest.Cluster, in io.Reader) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var verb string
		var n int
		if _, err := fmt.Sscan(sc.Text(), &verb, &n); err != nil || n < 0 || n >= len(c.Nodes) {
			fmt.Printf("? %q (kill N | restart N)\n", sc.Text())
			continue
		}
		t0 := time.Now()
		switch verb {
		case "kill":
			if err := c.Kill(n); err != nil {
				fmt.Println("kill:", err)
				continue
			}
			fmt.Printf("killed node%d at %s\n", n, t0.Format(time.RFC3339Nano))
		case "restart":
			if err := c.Restart(n); err != nil {
				fmt.Println("restart:", err)
				continue
			}
			err := c.WaitHealthy(ctx, len(c.Nodes))
			fmt.Printf("node%d pid %d restarted: healthy and answering after %.1f s (%v)\n", n, c.Nodes[n].PID(), time.Since(t0).Seconds(), err)
		default:
			fmt.Printf("? %q (kill N | restart N)\n", sc.Text())
		}
	}
}
