//go:build !amd64

package index

const haveDot3 = false

func dot3AVX2(a0, a1, a2, b *float32, n int, out *[3]float32) { panic("index: no dot3 kernel") }
