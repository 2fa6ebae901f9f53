package weaviatetest

import (
	"io"
	"net"
	"sync"
)

// Proxy forwards TCP connections to a node's port; Close cuts them all and
// refuses new ones: a cluster that goes away under a client (fault
// injection, for the tests of what a client does then).
type Proxy struct {
	l     net.Listener
	to    string
	mu    sync.Mutex
	conns []net.Conn
}

// NewProxy listens on a free loopback port and forwards to target
// (host:port).
func NewProxy(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{l: l, to: target}
	go p.serve()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.l.Addr().String() }

// Port is the proxy's port.
func (p *Proxy) Port() int { return p.l.Addr().(*net.TCPAddr).Port }

func (p *Proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.to)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		go func() { io.Copy(u, c); u.Close() }()
		go func() { io.Copy(c, u); c.Close() }()
	}
}

// Close stops the proxy and cuts every connection through it.
func (p *Proxy) Close() {
	p.l.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
