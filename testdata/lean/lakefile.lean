import Lake
open Lake DSL

/-! Lake configuration for the bundled Driftlib test library.
It depends on nothing but Lean core. -/

package driftlib where
  leanOptions := #[
    ⟨`autoImplicit, false⟩,
    ⟨`relaxedAutoImplicit, false⟩,
    ⟨`experimental.module, true⟩
  ]

@[default_target]
lean_lib Driftlib where
  globs := #[.andSubmodules `Driftlib]
