"""The corridor bound (src/ground/corridor/, docs/rules.md "Corridor"): each cell stores
a lower bound d_c of the distance from its centre c to excluded ground, rounded toward
zero to float32; a query at p takes max over nearby cells of d_c - |p - c|."""

from __future__ import annotations

from typing import List

import z3

from lemma import F32_EPS, Lemma

#: Rounding toward zero to f32 loses less than one unit in the last place: 2^-23 of the
#: value (to nearest, half that: F32_EPS).
F32_ULP = 2.0 * F32_EPS


def _norm(name: str, dx, dy):
    """A non-negative n with n^2 = dx^2 + dy^2 (the Euclidean norm, as a real root)."""
    n = z3.Real(name)
    return n, [n >= 0, n * n == dx * dx + dy * dy]


def lemmas() -> List[Lemma]:
    px, py, cx, cy, qx, qy, dc = z3.Reals("px py cx cy qx qy d_c")
    n_qc, h1 = _norm("qc", qx - cx, qy - cy)
    n_pc, h2 = _norm("pc", px - cx, py - cy)
    n_qp, h3 = _norm("qp", qx - px, qy - py)
    # q: any excluded point; d_c a lower bound of the cell centre's distance to it.
    hyps = h1 + h2 + h3 + [dc >= 0, n_qc >= dc]
    term = Lemma(
        name="corridor.term_is_a_lower_bound",
        test="query_is_a_lower_bound_within_a_cell_diagonal",
        rust="Corridor::query",
        words=(
            "If d_c <= |q - c| for every excluded point q, then d_c - |p - c| <= |q - p| for "
            "every excluded q (the triangle inequality): each term of the query's maximum, "
            "and so the maximum, is a lower bound of p's distance to excluded ground."
        ),
        hypotheses=hyps,
        claim=dc - n_pc <= n_qp,
        control=dc + n_pc <= n_qp,
        control_words="with the sign of |p - c| wrong the term is no bound",
    )
    # Rounding toward zero to float32: d_f = d_c (1 - delta), 0 <= delta <= 2^-23; the
    # control rounds to nearest (delta of either sign, at most 2^-24).
    delta, df = z3.Reals("delta d_f")
    f32 = Lemma(
        name="corridor.f32_toward_zero_keeps_the_bound",
        test="lemma_lower_f32_rounds_toward_zero",
        rust="lower_f32",
        words=(
            "Rounding d_c toward zero to float32 (d_f = d_c (1 - delta), 0 <= delta <= 2^-23) "
            "keeps d_f - |p - c| a lower bound of |q - p|."
        ),
        hypotheses=hyps + [df == dc * (1 - delta)],
        claim=z3.Implies(z3.And(delta >= 0, delta <= F32_ULP), df - n_pc <= n_qp),
        control=z3.Implies(z3.And(delta >= -F32_EPS, delta <= F32_EPS), df - n_pc <= n_qp),
        control_words=(
            "rounded to nearest, d_f may exceed d_c, and a tight term then exceeds the distance"
        ),
    )
    return [term, f32]
