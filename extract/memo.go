package extract

import "sync"

// memo is a concurrent memo table of a pure function of its key, shared by
// the goroutines of a parallel pass: two may compute one key at once, the
// first value stored wins and every caller gets it.
type memo[K comparable, V any] struct{ m sync.Map }

func (m *memo[K, V]) get(k K) (V, bool) {
	v, ok := m.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (m *memo[K, V]) put(k K, v V) V {
	got, _ := m.m.LoadOrStore(k, v)
	return got.(V)
}
