"""The speed envelope's stop rule (src/chain/envelope.rs, docs/rules.md "Speed envelope"):
the stop distance, its inverse the stop cap, and the `unknown` grip's table."""

from __future__ import annotations

from typing import List

import z3

from lemma import F64_EPS, Lemma, config

CLASSES = ("asphalt", "concrete", "gravel", "grass_lane", "dirt", "grass", "field")


def d_stop(v, t, a, dm):
    """`d_stop(v) = d_m + v T + v^2 / (2 a)`."""
    return dm + v * t + v * v / (2 * a)


def lemmas() -> List[Lemma]:
    v, w, t, a, dm, d = z3.Reals("v w T a d_m d")
    positive = [t > 0, a > 0, dm >= 0]
    out = [
        Lemma(
            name="envelope.d_stop_increasing",
            test="lemma_stop_distance_is_increasing",
            rust="StopRule::stop_distance",
            words="For T > 0, a > 0, d_m >= 0 and 0 <= v < w: d_stop(v) < d_stop(w).",
            hypotheses=positive + [v >= 0, v < w],
            claim=d_stop(v, t, a, dm) < d_stop(w, t, a, dm),
            control=(dm + v * t - v * v / (2 * a)) < (dm + w * t - w * w / (2 * a)),
            control_words="with the braking term's sign wrong, d_m + v T - v^2/(2a) is not increasing",
        )
    ]
    # stopCap(d) in the code's closed form: 2 r / (T + sqrt(T^2 + 2 r / a)), r = d - d_m.
    r, s, cap = z3.Reals("r s cap")
    root = [d >= dm, r == d - dm, s >= 0, s * s == t * t + 2 * r / a, cap == 2 * r / (t + s)]
    out.append(
        Lemma(
            name="envelope.stop_cap_is_the_largest",
            test="lemma_stop_cap_is_the_proven_closed_form",
            rust="StopRule::stop_cap",
            words=(
                "For every d >= d_m, c = 2 r / (T + sqrt(T^2 + 2 r / a)) with r = d - d_m is "
                ">= 0, d_stop(c) <= d, and every v > c has d_stop(v) > d."
            ),
            hypotheses=positive + root + [v >= 0],
            claim=z3.And(
                cap >= 0, d_stop(cap, t, a, dm) <= d, z3.Implies(v > cap, d_stop(v, t, a, dm) > d)
            ),
            control=z3.Implies(v > cap / 2, d_stop(v, t, a, dm) > d),
            control_words="half the cap is not a cap: speeds between c/2 and c stop within d",
        )
    )
    s2, cap2 = z3.Reals("s2 cap2")
    out.append(
        Lemma(
            name="envelope.stop_cap_needs_its_factor_2",
            test="lemma_stop_cap_is_the_proven_closed_form",
            rust="StopRule::stop_cap",
            words="The closed form is only a cap with 2 r / a under the root (the control drops the 2).",
            hypotheses=positive + root,
            claim=d_stop(cap, t, a, dm) <= d,
            control=z3.Implies(
                z3.And(s2 >= 0, s2 * s2 == t * t + r / a, cap2 == 2 * r / (t + s2)),
                d_stop(cap2, t, a, dm) <= d,
            ),
            control_words="with r / a under the root, d_stop(c) exceeds d",
        )
    )
    out.append(_f64_stop_cap())
    out.append(_f64_stop_cap_speed())
    out += _unknown_grip()
    return out


def _f64_model():
    """The hypotheses of a speed v whose f64 d_stop is within d, that f64 value, and the
    variables."""
    v, t, a, dm, d = z3.Reals("v T a d_m d")
    e = z3.Reals("e1 e2 e3 e4 e5")
    bound = [z3.And(x >= -F64_EPS, x <= F64_EPS) for x in e]
    # fl(d_m + v T + v^2 / (2 a)) with each operation rounded: the code's expression
    # `margin + v * t + v * v / (2.0 * decel)`, evaluated left to right.
    vt = v * t * (1 + e[0])
    vv = v * v * (1 + e[1])
    two_a = 2 * a  # exact: a doubling
    q = vv / two_a * (1 + e[2])
    s1 = (dm + vt) * (1 + e[3])
    fl = (s1 + q) * (1 + e[4])
    # In the reals, d_stop(v) within 4 units of roundoff of d.
    hyps = [t > 0, a > 0, dm >= 0, v >= 0, d >= dm] + bound + [fl <= d]
    return hyps, fl, (v, t, a, dm, d)


def _f64_stop_cap() -> Lemma:
    """The code steps v down until its f64 d_stop(v) <= d: what that gives in the reals."""
    hyps, fl, (v, t, a, dm, d) = _f64_model()
    return Lemma(
        name="envelope.f64_stop_cap_within_ulps",
        test="lemma_stop_cap_is_the_proven_closed_form",
        rust="StopRule::stop_cap (its f64 loop)",
        words=(
            "Where the f64 evaluation of d_stop(v) (each operation rounded, |delta| <= 2^-53) "
            "is <= d, the real d_stop(v) <= d (1 + 4 * 2^-53): the speed the code returns "
            "breaks the real rule by under 1e-15 of d, far below d_m."
        ),
        hypotheses=hyps,
        claim=dm + v * t + v * v / (2 * a) <= d * (1 + 4 * F64_EPS),
        control=dm + v * t + v * v / (2 * a) <= d,
        control_words="without the ulp margin the real d_stop(v) can exceed d",
    )


def _unknown_grip() -> List[Lemma]:
    """The `unknown` table is no looser than any ground state's, for the shipped table, and
    as a property of how a table is built (the worst of rows: minima and a maximum)."""
    env = config("envelope_v1.json")["grips"]
    names = [n for n in env if n != "unknown"]
    claims, loose = [], []
    for c in CLASSES:
        u = env["unknown"][c]
        for g in names:
            r = env[g][c]
            for key, le in (
                ("speed_command_mps", True),
                ("speed_mps", True),
                ("decel_mps2", True),
                ("lateral_accel_max_mps2", True),
                ("obstacle_margin_m", False),
            ):
                x, y = z3.RealVal(u[key]), z3.RealVal(r[key])
                claims.append(x <= y if le else x >= y)
                loose.append(x < y if key == "obstacle_margin_m" else x > y)
    shipped = Lemma(
        name="envelope.unknown_grip_no_looser_shipped",
        test="lemma_the_shipped_unknown_grip_is_no_looser",
        rust="EnvelopeConfig::table (configs/envelope_v1.json)",
        words=(
            "In the shipped table, for each class and each other grip level, `unknown` has "
            "speeds, deceleration and lateral limit no higher and an obstacle margin no lower."
        ),
        hypotheses=[],
        claim=z3.And(*claims),
        control=z3.Or(*loose),
        control_words="`unknown` looser somewhere in the shipped table",
    )
    # The worst of two rows, componentwise (ClassLimits::worst).
    a1, a2, m1, m2 = z3.Reals("speed1 speed2 margin1 margin2")
    ws = z3.If(a1 <= a2, a1, a2)
    wm = z3.If(m1 >= m2, m1, m2)
    built = Lemma(
        name="envelope.worst_row_no_looser",
        test="lemma_worst_is_no_looser_than_any_row",
        rust="ClassLimits::worst",
        words=(
            "The worst of rows takes each limit's minimum (speeds, deceleration, lateral) and "
            "the margin's maximum: it is no looser than either row."
        ),
        hypotheses=[],
        claim=z3.And(ws <= a1, ws <= a2, wm >= m1, wm >= m2),
        control=z3.And(z3.If(m1 <= m2, m1, m2) >= m1, z3.If(m1 <= m2, m1, m2) >= m2),
        control_words="taking the margin's minimum instead: looser than one row",
    )
    return [shipped, built]


def _f64_stop_cap_speed() -> Lemma:
    """The speed the code returns, against the real stop cap."""
    hyps, _, (v, t, a, dm, d) = _f64_model()
    r, s, cap = z3.Reals("r s cap")
    root = [r == d - dm, r > 0, s >= 0, s * s == t * t + 2 * r / a, cap == 2 * r / (t + s)]
    return Lemma(
        name="envelope.f64_stop_cap_speed_within_ulps",
        rust="StopRule::stop_cap (its f64 loop)",
        test="lemma_stop_cap_is_the_proven_closed_form",
        words=(
            "A speed whose f64 d_stop is within d exceeds the real stopCap(d) by at most "
            "4 * 2^-53 * d / T (d_stop grows at least T per m/s): with T = 1 s and d = 500 m, "
            "under 3e-13 m/s."
        ),
        hypotheses=hyps + root,
        claim=v <= cap + 4 * F64_EPS * d / t,
        control=v <= cap,
        control_words="the real cap itself: rounding lets the f64 loop stop a hair above it",
    )
