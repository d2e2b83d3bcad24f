"""The trajectory checker (src/chain/checker/rules.rs, docs/rules.md "Trajectory checker").

Most of its 16 rules are definitions at the formula level: `malformed`, `step`, `speed`,
`direction`, `start`, `curvature`, `curvature_rate`, `steering_rate`, `start_curvature`,
`lateral_acceleration`, `obstacle` and `point` refuse a chunk exactly where a sample breaks
the rule's inequality, so an acceptance is the invariant itself; the property test
`accepted_chunks_obey_every_limit` recomputes each of them on random chunks. The lemmas
here are the rules whose acceptance means more than its inequality."""

from __future__ import annotations

from typing import List

import z3

from lemma import Lemma


def lemmas() -> List[Lemma]:
    return [_cover(), _final_rest(), _acceleration()]


def _cover() -> Lemma:
    """Three circles at the middle of each third of the body, of radius
    sqrt((L/6)^2 + m^2), cover the body's rectangle L x 2m."""
    length, m, x, y = z3.Reals("L m_v x y")
    r2 = (length / 6) ** 2 + m * m
    body = [length > 0, m >= 0, x >= 0, x <= length, y >= -m, y <= m]

    def covered(radius2):
        return z3.Or(*[(x - length * (2 * j + 1) / 6) ** 2 + y * y <= radius2 for j in range(3)])

    return Lemma(
        name="checker.footprint_cover_covers_the_body",
        rust="TrajectoryChecker::new (the cover circles)",
        test="lemma_the_cover_circles_cover_the_body",
        words=(
            "Every point of the rectangle [0, L] x [-m_v, m_v] lies within sqrt((L/6)^2 + m_v^2) "
            "of one of the centres L/6, L/2, 5L/6: a corridor rule that keeps each circle inside "
            "the corridor keeps the whole body inside it."
        ),
        hypotheses=body,
        claim=covered(r2),
        control=covered((length / 6) ** 2),
        control_words="circles of radius L/6 alone leave the body's corners out",
    )


def _final_rest() -> Lemma:
    """The stop rule at the last sample, where no path is left: its speed must be 0."""
    v, t, a = z3.Reals("v T a")
    return Lemma(
        name="checker.stop_rule_ends_at_rest",
        rust="TrajectoryChecker::stop_rule",
        test="accepted_chunks_obey_every_limit",
        words=(
            "For T >= 0 and a > 0, the stop rule at the last sample (v T + v^2 / (2a) <= 0, no "
            "path left) holds only for v = 0: an accepted chunk ends at rest, whatever T."
        ),
        hypotheses=[t >= 0, a > 0, v >= 0],
        claim=z3.Implies(v * t + v * v / (2 * a) <= 0, v == 0),
        control=z3.Implies(v * t <= 0, v == 0),
        control_words="the stop rule without its braking term lets a chunk end moving where T = 0",
    )


def _acceleration() -> Lemma:
    """The acceleration rule bounds the constant acceleration between two samples."""
    v0, v1, dl, acc, amax = z3.Reals("v0 v1 dl acc a_max")
    motion = [v0 >= 0, v1 >= 0, dl > 0, amax > 0, v1 * v1 == v0 * v0 + 2 * acc * dl]
    return Lemma(
        name="checker.acceleration_rule_bounds_the_acceleration",
        rust="TrajectoryChecker::speed_change_rules",
        test="accepted_chunks_obey_every_limit",
        words=(
            "Between samples Δl apart, the constant acceleration that takes v0 to v1 "
            "(v1^2 = v0^2 + 2 acc Δl) is at most a_max wherever the rule accepts "
            "(v1^2 - v0^2) / (2 Δl) <= a_max."
        ),
        hypotheses=motion,
        claim=z3.Implies((v1 * v1 - v0 * v0) / (2 * dl) <= amax, acc <= amax),
        control=z3.Implies((v1 - v0) / dl <= amax, acc <= amax),
        control_words="the speed's change per metre is not the acceleration",
    )
