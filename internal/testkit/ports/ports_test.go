package ports

import (
	"net"
	"strconv"
	"sync"
	"testing"
)

// Free's ports lie outside the ephemeral range (where the kernel picks the
// local port of every outgoing connection), are free, consecutive, and
// never handed out twice, also to callers racing each other.
func TestFreeOutsideEphemeralNeverTwice(t *testing.T) {
	lo, hi := Range()
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				p, err := Free(2)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, q := range []int{p, p + 1} {
					if q < lo || q >= hi {
						t.Errorf("port %d outside [%d, %d)", q, lo, hi)
					}
					if seen[q] {
						t.Errorf("port %d handed out twice", q)
					}
					seen[q] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Each port can be bound now (what the child does next).
	p, err := Free(2)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+k))
		if err != nil {
			t.Fatalf("port %d: %v", p+k, err)
		}
		l.Close()
	}
}

// A port held for TCP or for UDP (a gossip port is both) is not bindable,
// so Free passes it over.
func TestBindableSeesHeldPorts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tp, up := l.Addr().(*net.TCPAddr).Port, c.LocalAddr().(*net.UDPAddr).Port
	if bindable(tp, 1) || bindable(up, 1) || bindable(tp-1, 2) {
		t.Fatalf("bindable says a held port is free (tcp %d, udp %d)", tp, up)
	}
}
