"""The moving-object rule (src/chain/shield/mod.rs `moving_cap`, `pass_gap`; docs/rules.md
"Obstacle rule"): with an actor's speed somewhere in its interval [v_lo, v_hi], the rule
either caps the speed so that the vehicle stops short of the actor's sweep, or lets the
vehicle drive on where that keeps it clear. About the decision, from the gaps the code
computes; the gaps' sampling in time (every SEPARATION_DT_S) is not proved."""

from __future__ import annotations

from typing import List

import z3

from envelope import d_stop
from lemma import Lemma, rust_const


def lemmas() -> List[Lemma]:
    return [_segment(), _cap(), _pass()]


def _segment() -> Lemma:
    """At each time the pass gap measures, the centres at every speed of the interval lie
    on the segment it measures to."""
    bx, by, ux, uy, t, lo, hi, f = z3.Reals("bx by ux uy t f_lo f_hi f")
    ax_, ay_ = bx + lo * ux * t, by + lo * uy * t
    cx, cy = bx + hi * ux * t, by + hi * uy * t
    px, py = bx + f * ux * t, by + f * uy * t
    lam = z3.Real("lambda")
    hyps = [t >= 0, lo >= 0, hi > lo, f >= lo, f <= hi, lam == (f - lo) / (hi - lo)]
    on = z3.And(lam >= 0, lam <= 1, px == ax_ + lam * (cx - ax_), py == ay_ + lam * (cy - ay_))
    return Lemma(
        name="moving.every_speed_of_the_interval_is_on_the_segment",
        rust="Shield::pass_gap",
        test="an_estimate_1_26_times_low_does_not_pass_when_its_interval_holds_the_truth",
        words=(
            "An object keeping its heading at any speed f in [f_lo, f_hi] is, at time t, on "
            "the segment from its place at f_lo to its place at f_hi: the gap to that segment "
            "is at most the gap at every speed of the interval."
        ),
        hypotheses=hyps,
        claim=on,
        control=z3.Or(z3.And(px == ax_, py == ay_), z3.And(px == cx, py == cy)),
        control_words="the two ends alone (the slowest and the fastest) miss the speeds between",
    )


def _cap() -> Lemma:
    """The cap: stopping short of the sweep, the response distance included."""
    v, vm, resp, t, a, dm, free, r, s, cap = z3.Reals("v v_meas t_resp T a d_m free r s cap")
    d = free - vm * resp
    root = [t > 0, a > 0, dm >= 0, vm >= 0, resp >= 0, d >= dm, r == d - dm, s >= 0,
            s * s == t * t + 2 * r / a, cap == 2 * r / (t + s)]
    return Lemma(
        name="moving.cap_stops_short_of_the_sweep",
        rust="Shield::moving_cap",
        test="stop_cap_stops_inside_the_distance",
        words=(
            "The cap stopCap(free - v_meas t_resp) lets through only speeds whose response "
            "distance and stop distance together fit in the free distance to the sweeps."
        ),
        hypotheses=root + [v >= 0, v <= cap],
        claim=vm * resp + d_stop(v, t, a, dm) <= free,
        control=vm * resp + d_stop(v, t, a, dm) + vm * resp <= free,
        control_words="the response distance counted twice, as a cap of the free distance alone would need",
    )


def _pass() -> Lemma:
    """Driving on: never less clear than braking would be, and 0.2 m clear unless braking
    is clearly worse; the 0.2 m alone is not guaranteed (the control shows where)."""
    clearance, better = (
        rust_const("chain/shield/mod.rs", n) for n in ("PASS_CLEARANCE_M", "PASS_BETTER_M")
    )
    on, brake = z3.Reals("gap_on gap_brake")
    passes = z3.Or(on >= brake + better, z3.And(on >= clearance, on >= brake))
    return Lemma(
        name="moving.a_pass_is_never_worse_than_braking",
        rust="Shield::moving_cap",
        test="an_estimate_1_26_times_low_does_not_pass_when_its_interval_holds_the_truth",
        words=(
            f"Where the rule drives on, the least gap over the interval's speeds driving on is "
            f"at least the gap braking would leave, and at least PASS_CLEARANCE_M = {clearance} m "
            f"unless braking leaves {better} m less still."
        ),
        hypotheses=[passes],
        claim=z3.And(on >= brake, z3.Or(on >= clearance, on >= brake + better)),
        control=on >= clearance,
        control_words=(
            "the 0.2 m pass clearance alone: where braking would collide anyway, the rule drives "
            "on with less (a remaining risk, docs/rules.md)"
        ),
    )
