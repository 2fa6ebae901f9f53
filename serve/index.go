package serve

import "github.com/driftkit/driftkit/index"

// IndexOf adapts a loaded *index.Index (opened by app, with its
// head and query encoder) to the server's Index. Reload switches index
// generations under live searches (index.Index.Reload).
func IndexOf(ix *index.Index) Index { return indexAdapter{ix} }

type indexAdapter struct{ *index.Index }

// Pin pins the loaded generation (index.Index.Pin): a *index.Generation
// searches and looks up on its own files.
func (a indexAdapter) Pin() (View, func()) {
	g, release := a.Index.Pin()
	return generationView{g}, release
}

// About describes the current generation.
func (a indexAdapter) About() IndexAbout {
	g, release := a.Index.Pin()
	defer release()
	return about(g)
}

// generationView is a pinned generation as a View.
type generationView struct{ *index.Generation }

func (v generationView) About() IndexAbout { return about(v.Generation) }

func about(g *index.Generation) IndexAbout {
	m := g.Manifest()
	var size int64
	for _, f := range m.Files {
		size += f.Size
	}
	ab := IndexAbout{Generation: g.ID(), Encoder: m.Encoder, EncoderFallback: m.EncoderFallback, Model: m.Model,
		Docs: m.Docs, PremiseDocs: m.PremiseDocs, InformalSources: m.InformalSource, Bytes: size}
	if h := g.Head(); h != nil {
		ab.Head = h
	}
	return ab
}
