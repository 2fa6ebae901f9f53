// Package ports picks loopback ports for child processes that bind them
// later: a Weaviate node (which also keeps its ports across a kill and a
// restart), a model server, `driftkit serve`.
//
// A port the kernel hands out for 127.0.0.1:0 lies in the ephemeral range
// (net.ipv4.ip_local_port_range), which the kernel also draws from for every
// outgoing connection and every :0 listener of every process. Between the
// pick and the child's bind — seconds for a Python server starting on a
// loaded machine, the whole outage for a killed Weaviate node — any
// connection made meanwhile can take the port, and the child fails to
// bind. Ports below the ephemeral range are only taken by explicit binds, so
// Free picks there, at random, and never hands out one port twice in a
// process (parallel tests of one binary would otherwise be given the same
// just-closed port).
package ports

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	given = map[int]bool{}
)

// Range is where Free picks: [lo, hi).
func Range() (lo, hi int) {
	elo, ehi := 32768, 60999 // Linux's default ephemeral range
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			a, err1 := strconv.Atoi(f[0])
			b, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && a <= b {
				elo, ehi = a, b
			}
		}
	}
	switch {
	case elo >= 4096:
		return elo / 2, elo // below the ephemeral range
	case ehi <= 65535-4096:
		return ehi + 1, 65536 // above it
	default:
		return 1024, 65536 // no room outside it: the bind check alone
	}
}

// Free returns the first of n consecutive ports that are free on 127.0.0.1
// now, for TCP and UDP (a Weaviate node's gossip port is both; Weaviate
// takes gossip+1 and Raft+1 by convention), outside the ephemeral range and
// not returned before by this process.
func Free(n int) (int, error) {
	if n < 1 {
		return 0, fmt.Errorf("ports: %d ports asked", n)
	}
	lo, hi := Range()
	mu.Lock()
	defer mu.Unlock()
	for range 1000 {
		p := lo + rand.IntN(hi-lo-n+1)
		if taken(p, n) {
			continue
		}
		if bindable(p, n) {
			for k := range n {
				given[p+k] = true
			}
			return p, nil
		}
	}
	return 0, errors.New("ports: no free consecutive ports outside the ephemeral range")
}

func taken(p, n int) bool {
	for k := range n {
		if given[p+k] {
			return true
		}
	}
	return false
}

// bindable binds each of the n ports for TCP and UDP and lets them go.
func bindable(p, n int) bool {
	var ls []net.Listener
	var pcs []net.PacketConn
	defer func() {
		for _, l := range ls {
			l.Close()
		}
		for _, c := range pcs {
			c.Close()
		}
	}()
	for k := range n {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p+k))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return false
		}
		ls = append(ls, l)
		c, err := net.ListenPacket("udp", addr)
		if err != nil {
			return false
		}
		pcs = append(pcs, c)
	}
	return true
}
