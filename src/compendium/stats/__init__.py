"""Shared statistical methods, each tested against an independent computation.

Submodules: :mod:`.agreement` (exact/adjacent agreement, quadratic-weighted kappa, Krippendorff's
alpha wrappers), :mod:`.pairwise` (Bradley-Terry, Wilson intervals, Davidson ties, TrueSkill),
:mod:`.resampling` (seeded bootstraps), :mod:`.weighting` (raking to population margins).
"""
