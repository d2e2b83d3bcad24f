"""After the shield (src/chain/step.rs `shield_and_rate` and `gear_logic`, docs/rules.md
"After the shield"): the curvature rate limit, the shield's curvature clamp after it, and
the speed ramp with its standstill, sign and hold steps. About the command sent."""

from __future__ import annotations

from typing import List

import z3

from lemma import Lemma


def _clamp(x, lo, hi):
    return z3.If(x < lo, lo, z3.If(x > hi, hi, x))


def _abs(x):
    return z3.If(x >= 0, x, -x)


def lemmas() -> List[Lemma]:
    return [_curvature(), _speed()]


def _curvature() -> Lemma:
    """The rate clamp, then the shield's actuator clamp on the curvature sent again."""
    last, shielded, dk, kmax = z3.Reals("kappa_last kappa_shield dk kappa_max")
    rated = _clamp(shielded, last - dk, last + dk)
    sent = _clamp(rated, -kmax, kmax)
    hyps = [dk >= 0, kmax > 0]
    within = z3.And(_abs(sent - last) <= dk, _abs(sent) <= kmax)
    return Lemma(
        name="actuators.curvature_within_its_rate_and_bound",
        rust="shield_and_rate",
        test="curvature_changes_at_most_the_rate_limit_per_step",
        words=(
            "Where the last curvature sent was within +-kappa_max, the curvature sent now, "
            "clamped to the rate window [kappa_last - dk, kappa_last + dk] and then by the "
            "shield to +-kappa_max, is within both: the second clamp cannot undo the first."
        ),
        hypotheses=hyps,
        claim=z3.Implies(_abs(last) <= kmax, within),
        control=within,
        control_words="from a last curvature beyond kappa_max the clamp must jump more than dk",
    )


def _speed() -> Lemma:
    """The speed ramp: a crawl is a stop, increases are limited, a sign change stops, the
    launch hold stops."""
    s, last, amax, dt, still = z3.Reals("v_shield v_last a_max dt v_still")
    hold, drives = z3.Bools("hold gear_drives")
    v0 = z3.If(z3.Or(_abs(s) < still, z3.Not(drives)), 0, s)
    vmax = _abs(last) + amax * dt
    v1 = z3.If(_abs(v0) > vmax, z3.If(v0 >= 0, vmax, -vmax), v0)
    flips = z3.And(last != 0, v1 != 0, (v1 > 0) != (last > 0))
    v2 = z3.If(flips, 0, v1)
    v3 = z3.If(hold, 0, v2)
    hyps = [amax > 0, dt > 0, still >= 0]

    def safe(v):
        return z3.And(_abs(v) <= _abs(s), _abs(v) <= vmax, v * last >= 0)

    return Lemma(
        name="actuators.speed_ramp_never_raises_nor_reverses",
        rust="gear_logic",
        test="lemma_the_speed_ramp_never_raises_nor_reverses",
        words=(
            "The speed sent is no faster than the shield's, rises by at most a_max dt over "
            "the last speed sent, and never has the other sign than it (a change of "
            "direction passes through 0)."
        ),
        hypotheses=hyps,
        claim=safe(v3),
        control=safe(z3.If(hold, 0, v1)),
        control_words="without the sign step a reversal passes in one step",
    )
