package index

import "github.com/viterin/vek/vek32"

// dot3 sets out[i] to vek32.Dot(a_i, b), bit for bit, for three vectors of
// b's length: in one call of an AVX2 kernel that scores them side by side
// when vek32 itself would use AVX2 and the length is a multiple of 32 (the
// kernel sums in Dot_AVX2_F32's order), else by vek32.Dot.
func dot3(a0, a1, a2, b []float32, out *[3]float32) {
	n := len(b)
	if haveDot3 && n > 0 && n%32 == 0 && len(a0) == n && len(a1) == n && len(a2) == n {
		dot3AVX2(&a0[0], &a1[0], &a2[0], &b[0], n, out)
		return
	}
	out[0], out[1], out[2] = vek32.Dot(a0, b), vek32.Dot(a1, b), vek32.Dot(a2, b)
}

// q8Dot1 is q8Dot, through the kernel when it runs.
func q8Dot1(row []int8, q []uint8) int32 {
	n := len(row)
	if haveQ8 && n > 0 && n%32 == 0 && len(q) == n {
		return q8Dot1AVX2(&row[0], &q[0], n)
	}
	return q8Dot(row, q)
}
