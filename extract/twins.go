package extract

import (
	"slices"
	"strings"
)

// twinNamespaces names to_additive/to_dual twins' namespaces as Mathlib's
// Translate.targetName does: the source's namespace with its longest prefix
// that has a known translation replaced by that translation
// (`Name.mapPrefix findTranslationName?`): `@[to_additive AddOreLocalization]
// structure OreLocalization` puts the twins of OreLocalization.* under
// AddOreLocalization. A known translation is a declaration of the sources
// with a twin. A namespace none of whose prefixes has one stays as it is
// when one of its prefixes is a declaration of the sources (Lean knows no
// translation for it); else the sources do not include the library that
// declares it (Mathlib's Monoid for PFR alone) and its components are
// guessed word by word, as before.
type twinNamespaces struct {
	tr    map[string]map[string]string // attribute → source → twin
	known map[string]bool              // the sources' declarations
}

// nameTwins renames the twins of written declarations by their namespaces'
// translations, prefixes first, and returns the translations for twins made
// later (attribute [to_additive] commands). Translations come from the
// twins, from `attribute [to_additive] X` (Subgroup → AddSubgroup, written
// both) and from `[to_additive existing]`.
func nameTwins(files []*fileResult, naming *Naming) *twinNamespaces {
	tn := &twinNamespaces{tr: map[string]map[string]string{"to_additive": {}, "to_dual": {}}, known: map[string]bool{}}
	type tr struct {
		src, attr, explicit string
		d                   *pdecl // the twin row, nil for a translation without one
	}
	var all []tr
	for _, fr := range files {
		for _, d := range fr.decls {
			tn.known[d.row.Name] = true
			if d.twinOf != nil && d.twinAttr != "" && d.twinOf.inst == nil && d.inst == nil {
				all = append(all, tr{d.twinOf.row.Name, d.twinAttr, d.twinExplicit, d})
			}
		}
	}
	for _, fr := range files {
		for _, ac := range fr.attrCmds {
			if tn.tr[ac.attr] == nil {
				continue
			}
			for _, n := range ac.names {
				if src := tn.lookup(ac.ctx.ns, n); src != "" {
					explicit := ac.name
					if len(ac.names) > 1 {
						explicit = ""
					}
					all = append(all, tr{src, ac.attr, explicit, nil})
				}
			}
		}
	}
	for _, x := range all {
		if x.d != nil {
			tn.add(x.attr, x.src, x.d.row.Name)
		}
	}
	// a prefix's translation is final before the names under it are made
	slices.SortStableFunc(all, func(a, b tr) int {
		return strings.Count(a.src, ".") - strings.Count(b.src, ".")
	})
	for _, x := range all {
		name := tn.name(naming, x.attr, x.explicit, x.src)
		if name == "" || name == x.src {
			continue
		}
		if x.d != nil {
			x.d.row.Name, x.d.resNs = name, parentNs(name)
		}
		tn.add(x.attr, x.src, name)
	}
	return tn
}

// add records src ↦ tgt; a to_dual translation goes both ways (Mathlib's
// insertTranslation for a dual TranslateData: `@[to_dual] structure
// LowerSet` translates UpperSet.* to LowerSet.* too).
func (tn *twinNamespaces) add(attr, src, tgt string) {
	tn.tr[attr][src] = tgt
	if attr == "to_dual" && src != tgt {
		if _, ok := tn.tr[attr][tgt]; !ok {
			tn.tr[attr][tgt] = src
		}
	}
}

// lookup resolves a name written in namespace ns to a declaration of the
// sources (the namespace and its parents, then the root), "" if none.
func (tn *twinNamespaces) lookup(ns, n string) string {
	if full, ok := strings.CutPrefix(n, "_root_."); ok {
		if tn.known[full] {
			return full
		}
		return ""
	}
	for p := ns; ; p = parentNs(p) {
		if c := joinNs(p, n); tn.known[c] {
			return c
		}
		if p == "" {
			return ""
		}
	}
}

// name is the twin name of src under attr with the explicit name given.
func (tn *twinNamespaces) name(naming *Naming, attr, explicit, src string) string {
	if tn == nil {
		return naming.twinName(attr, explicit, src)
	}
	pre, ok := tn.namespace(attr, parentNs(src))
	if !ok {
		return naming.twinName(attr, explicit, src)
	}
	if explicit == "" {
		guess := naming.GuessAdditive
		if attr == "to_dual" {
			guess = naming.GuessDual
		}
		return joinNs(pre, guess(lastComponent(src)))
	}
	if strings.HasPrefix(explicit, "_root_.") {
		return explicit[len("_root_."):]
	}
	// the explicit name replaces as many trailing components as it has
	parts := []string{}
	if pre != "" {
		parts = strings.Split(pre, ".")
	}
	keep := max(len(parts)-strings.Count(explicit, "."), 0)
	return joinNs(strings.Join(parts[:keep], "."), explicit)
}

// namespace translates a twin's namespace: the longest prefix with a known
// translation replaced; ok false when the guess by words applies instead.
func (tn *twinNamespaces) namespace(attr, ns string) (string, bool) {
	if ns == "" {
		return "", true
	}
	m := tn.tr[attr]
	declared := false
	for p := ns; p != ""; p = parentNs(p) {
		if t, ok := m[p]; ok {
			return t + ns[len(p):], true
		}
		declared = declared || tn.known[p]
	}
	return ns, declared
}
