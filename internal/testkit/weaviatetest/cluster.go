// Package weaviatetest starts real Weaviate clusters on loopback for tests
// and benchmarks: the pinned weaviate-server that `make weaviate` builds
// (Version, through the Go module proxy) in the checkout's .cache, three
// nodes by default, each with its own ports, data folder and stable node
// name, started and stopped by PID.
//
// The environment follows Weaviate's tools/dev/run_dev_server.sh: every node
// has CLUSTER_HOSTNAME, HTTP, gRPC, gossip (and data = gossip+1) and Raft
// (and Raft RPC = Raft+1) ports on 127.0.0.1, RAFT_JOIN lists the three
// voters, RAFT_BOOTSTRAP_EXPECT=3, the others join the first one's gossip.
// A restarted node keeps its name, ports and data folder (Raft knows it by
// name: a new name would be a stranger) and joins a live node's gossip port
// (Weaviate issue #8423: a founding node restarted without CLUSTER_JOIN
// bootstraps a cluster of its own).
package weaviatetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/ports"
)

// Version is the pinned Weaviate release.
const Version = "v1.35.2"

// ErrNoServer is wrapped when the weaviate-server binary is not built.
var ErrNoServer = errors.New("weaviate-server is not built (make weaviate)")

// Binary finds the pinned weaviate-server: $WEAVIATE_SERVER, else the
// checkout's .cache/weaviate-VERSION/weaviate-server.
func Binary() (string, error) {
	if p := os.Getenv("WEAVIATE_SERVER"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, ".cache", "weaviate-"+Version, "weaviate-server")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%w: %s", ErrNoServer, p)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w: no go.mod above the working folder", ErrNoServer)
		}
		dir = parent
	}
}

// Node is one node of a Cluster.
type Node struct {
	Name                     string
	HTTP, GRPC, Gossip, Raft int
	// Pprof is the node's Go profiling port (0: profiling off, the
	// default; see Options.Pprof).
	Pprof    int
	Dir, Log string
	cmd      *exec.Cmd
	done     chan struct{}
}

// URL is the node's address as driftkit's --weaviate takes it.
func (n *Node) URL() string { return fmt.Sprintf("http://127.0.0.1:%d?grpc=%d", n.HTTP, n.GRPC) }

// PID is the running process's id (0 when stopped).
func (n *Node) PID() int {
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// Cluster is a running set of nodes.
type Cluster struct {
	Bin   string
	Nodes []*Node
	// Env is added to every node's environment.
	Env []string
}

// Options configure Start.
type Options struct {
	Nodes int    // default 3
	Dir   string // data and logs (required)
	Env   []string
	// Pprof gives every node a Go profiling port (net/http/pprof at
	// /debug/pprof/, GO_PROFILING_PORT): for benchmarks only — Weaviate
	// v1.35.2 binds it on every interface, not loopback.
	Pprof bool
}

// Start starts a cluster and waits until every node reports every node
// HEALTHY. A start that fails (a port taken between choosing and binding
// it on a busy machine) is tried again with other ports, twice.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	var errs []error
	for attempt := range 3 {
		c, err := start(ctx, bin, o, filepath.Join(o.Dir, fmt.Sprintf("try%d", attempt)))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func start(ctx context.Context, bin string, o Options, dir string) (*Cluster, error) {
	var err error
	c := &Cluster{Bin: bin, Env: o.Env}
	for i := range o.Nodes {
		n := &Node{Name: fmt.Sprintf("node%d", i), Dir: filepath.Join(dir, fmt.Sprintf("node%d", i))}
		n.Log = n.Dir + ".log"
		if n.HTTP, err = freePort(1); err == nil {
			if n.GRPC, err = freePort(1); err == nil {
				if n.Gossip, err = freePort(2); err == nil {
					n.Raft, err = freePort(2)
				}
			}
			if err == nil && o.Pprof {
				n.Pprof, err = freePort(1)
			}
		}
		if err != nil {
			return nil, err
		}
		c.Nodes = append(c.Nodes, n)
	}
	// The others join node 0's gossip port, so it must listen first (a
	// node that cannot join at start gives up).
	for i := range c.Nodes {
		err := c.startNode(i, 0)
		if err == nil && i == 0 {
			err = waitListening(ctx, c.Nodes[0])
		}
		if err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.WaitHealthy(ctx, o.Nodes); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// URLs is the --weaviate value naming every node.
func (c *Cluster) URLs() string {
	var u []string
	for _, n := range c.Nodes {
		u = append(u, n.URL())
	}
	return strings.Join(u, ",")
}

// env is node i's environment; join is the node whose gossip port it joins
// (-1: none).
func (c *Cluster) env(i, join int) []string {
	n := c.Nodes[i]
	var raftJoin []string
	for _, m := range c.Nodes {
		raftJoin = append(raftJoin, fmt.Sprintf("%s:%d", m.Name, m.Raft))
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"CLUSTER_HOSTNAME=" + n.Name, "CLUSTER_IN_LOCALHOST=true",
		// Loopback only (an IPv6 interface would otherwise be advertised,
		// which v1.35.2 writes without brackets and cannot listen on).
		"CLUSTER_BIND_ADDR=127.0.0.1", "CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		fmt.Sprintf("CLUSTER_GOSSIP_BIND_PORT=%d", n.Gossip), fmt.Sprintf("CLUSTER_DATA_BIND_PORT=%d", n.Gossip+1),
		fmt.Sprintf("RAFT_PORT=%d", n.Raft), fmt.Sprintf("RAFT_INTERNAL_RPC_PORT=%d", n.Raft+1),
		"RAFT_JOIN=" + strings.Join(raftJoin, ","), fmt.Sprintf("RAFT_BOOTSTRAP_EXPECT=%d", len(c.Nodes)),
		fmt.Sprintf("GRPC_PORT=%d", n.GRPC), "PERSISTENCE_DATA_PATH=" + n.Dir,
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true", "AUTOSCHEMA_ENABLED=false", "DEFAULT_VECTORIZER_MODULE=none",
		"DISABLE_TELEMETRY=true", "PROMETHEUS_MONITORING_ENABLED=false", "QUERY_MAXIMUM_RESULTS=100000",
		"LOG_LEVEL=warning", "LOG_FORMAT=text",
		// On a loaded machine a 1-s heartbeat is missed and Raft keeps
		// electing leaders (schema requests fail meanwhile).
		"RAFT_HEARTBEAT_TIMEOUT=5", "RAFT_ELECTION_TIMEOUT=5",
		// A node that was down catches up within seconds, not minutes.
		"ASYNC_REPLICATION_FREQUENCY=2s", "ASYNC_REPLICATION_ALIVE_NODES_CHECKING_FREQUENCY=1s",
	}
	if n.Pprof > 0 {
		env = append(env, fmt.Sprintf("GO_PROFILING_PORT=%d", n.Pprof))
	} else {
		env = append(env, "GO_PROFILING_DISABLE=true")
	}
	if join >= 0 {
		env = append(env, fmt.Sprintf("CLUSTER_JOIN=127.0.0.1:%d", c.Nodes[join].Gossip))
	}
	return append(env, c.Env...)
}

// startNode starts node i, joining node join's gossip (node 0 at the
// cluster's start joins no one; the others join it).
func (c *Cluster) startNode(i, join int) error {
	if join == i {
		join = -1
	}
	n := c.Nodes[i]
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(n.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.Bin, "--host", "127.0.0.1", "--port", fmt.Sprint(n.HTTP), "--scheme", "http",
		"--read-timeout=600s", "--write-timeout=600s")
	cmd.Env = c.env(i, join)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = nodeAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return err
	}
	n.cmd, n.done = cmd, make(chan struct{})
	go func(done chan struct{}) { cmd.Wait(); log.Close(); close(done) }(n.done)
	return nil
}

// Kill sends SIGKILL to node i and waits for it to die.
func (c *Cluster) Kill(i int) error {
	n := c.Nodes[i]
	if n.cmd == nil {
		return nil
	}
	if err := syscall.Kill(n.PID(), syscall.SIGKILL); err != nil {
		return err
	}
	<-n.done
	n.cmd = nil
	return nil
}

// Restart starts a stopped node i again under its name, ports and data,
// joining the first other node that runs.
func (c *Cluster) Restart(i int) error {
	join := -1
	for j, m := range c.Nodes {
		if j != i && m.cmd != nil {
			join = j
			break
		}
	}
	return c.startNode(i, join)
}

// Stop stops every node (SIGTERM, then SIGKILL after 20 s).
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		if n.cmd != nil {
			syscall.Kill(n.PID(), syscall.SIGTERM)
		}
	}
	for _, n := range c.Nodes {
		if n.cmd == nil {
			continue
		}
		select {
		case <-n.done:
		case <-time.After(20 * time.Second):
			syscall.Kill(n.PID(), syscall.SIGKILL)
			<-n.done
		}
		n.cmd = nil
	}
}

// Status is one node as GET /v1/nodes reports it.
type Status struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Stats  struct {
		ObjectCount int64 `json:"objectCount"`
	} `json:"stats"`
	Shards []struct {
		Class       string `json:"class"`
		ObjectCount int64  `json:"objectCount"`
	} `json:"shards"`
}

// Statuses asks node i for every node's status (verbose: shards and
// object counts).
func (c *Cluster) Statuses(ctx context.Context, i int) ([]Status, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/v1/nodes?output=verbose", c.Nodes[i].HTTP), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %s", req.URL, resp.StatusCode, b)
	}
	var s struct {
		Nodes []Status `json:"nodes"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return s.Nodes, nil
}

// WaitHealthy waits until every running node answers (its REST API is
// ready: gossip may call a node HEALTHY before it listens) and reports
// want nodes HEALTHY.
func (c *Cluster) WaitHealthy(ctx context.Context, want int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var last error
	for {
		if last = c.healthy(ctx, want); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			var tails []string
			for i, n := range c.Nodes {
				tails = append(tails, n.Name+":\n"+c.LogTail(i))
			}
			return fmt.Errorf("cluster not healthy: %v\n%s", last, strings.Join(tails, "\n"))
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// healthy checks once what WaitHealthy waits for.
func (c *Cluster) healthy(ctx context.Context, want int) error {
	for i, n := range c.Nodes {
		if n.cmd == nil {
			continue
		}
		select {
		case <-n.done:
			return fmt.Errorf("%s exited:\n%s", n.Name, c.LogTail(i))
		default:
		}
		st, err := c.Statuses(ctx, i)
		if err != nil {
			return err
		}
		healthy := 0
		for _, s := range st {
			if s.Status == "HEALTHY" {
				healthy++
			}
		}
		if healthy < want {
			return fmt.Errorf("%s sees %d of %d nodes healthy: %+v", n.Name, healthy, want, st)
		}
	}
	return nil
}

// waitListening waits until n's gossip port accepts connections.
func waitListening(ctx context.Context, n *Node) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", n.Gossip), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-n.done:
			return fmt.Errorf("%s exited at start (log %s)", n.Name, n.Log)
		case <-ctx.Done():
			return fmt.Errorf("%s: gossip port %d not listening: %v (log %s)", n.Name, n.Gossip, err, n.Log)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// LogTail is the end of node i's log but for info lines, for a failing
// test's report.
func (c *Cluster) LogTail(i int) string {
	b, _ := os.ReadFile(c.Nodes[i].Log)
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, "level=info") && l != "" {
			keep = append(keep, l)
		}
	}
	keep = keep[max(0, len(keep)-12):]
	return strings.Join(keep, "\n")
}

// freePort finds n consecutive free ports on 127.0.0.1 (Weaviate takes
// gossip+1 and Raft+1 by convention) and returns the first: outside the
// ephemeral range (package ports), since a node keeps its ports across a
// kill and a restart, and any connection made while it is down could
// otherwise take one.
func freePort(n int) (int, error) { return ports.Free(n) }
