//go:build !amd64

package index

const haveDot3 = false

func dot3AVX2(a0, a1, a2, b *float32, n int, out *[3]float32) { panic("index: no dot3 kernel") }

const haveQ8 = false

func q8Dot1AVX2(row *int8, q *uint8, n int) int32 { panic("index: no int8 kernel") }

func q8FilterAVX2(codes *int8, rows, dim int, q *uint8, meta *q8Row, cls *uint8, thrOf *[256]float32, c *q8Consts, out *uint8) {
	panic("index: no int8 kernel")
}
