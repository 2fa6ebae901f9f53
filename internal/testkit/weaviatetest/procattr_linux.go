//go:build linux

package weaviatetest

import "syscall"

// nodeAttr puts a node in its own process group and kills it when the
// process that started it dies (a test binary that times out or is killed
// must not leave a cluster running, holding ports and inherited locks).
func nodeAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
