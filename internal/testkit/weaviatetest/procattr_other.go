//go:build !linux

package weaviatetest

import "syscall"

// nodeAttr puts a node in its own process group (no parent-death signal
// outside Linux: Stop and the tests' cleanups stop the nodes).
func nodeAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
