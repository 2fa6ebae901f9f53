package index

// SetRenderingForTest makes Build record rendering r in the encoder spec (and
// so in the embedding cache's key) instead of workspace.RenderingVersion.
func SetRenderingForTest(o *BuildOptions, r string) { o.rendering = r }

// WarmedForTest reports whether g's vectors have their int8 copy and its
// postings are loaded (OpenOptions.Warm), and whether the int8 kernel runs
// here at all.
func WarmedForTest(g *Generation) (quantized, postings, kernel bool) {
	if s, ok := g.dense.(*mmapStore); ok {
		quantized = s.raw.q8.Load() != nil
	}
	if g.post != nil {
		postings = g.post.load == nil || g.post.loaded.Load()
	}
	return quantized, postings, haveQ8
}
