//go:build amd64

package index

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// haveDot3 is vek32's own condition for its AVX2 dot product (Dot_AVX2_F32):
// dot3's kernel must give its sums exactly where vek32.Dot uses them.
var haveDot3 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && runtime.GOOS != "darwin"

//go:noescape
func dot3AVX2(a0, a1, a2, b *float32, n int, out *[3]float32)

// haveQ8 says whether the int8 kernels (dotq8_amd64.s) run here.
var haveQ8 = cpu.X86.HasAVX2

//go:noescape
func q8Dot1AVX2(row *int8, q *uint8, n int) int32

//go:noescape
func q8FilterAVX2(codes *int8, rows, dim int, q *uint8, meta *q8Row, cls *uint8, thrOf *[256]float32, c *q8Consts, out *uint8)
