package index

// SetRenderingForTest makes Build record rendering r in the encoder spec (and
// so in the embedding cache's key) instead of workspace.RenderingVersion.
func SetRenderingForTest(o *BuildOptions, r string) { o.rendering = r }
