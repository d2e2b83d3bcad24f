"""The shield's caps (src/chain/shield/mod.rs, docs/rules.md "Shield"): the obstacle rule
caps the speed at stopCap(d_obs), the corner rule at sqrt(a_lat / |kappa|). About the
command: what the cap guarantees of the speed it lets through."""

from __future__ import annotations

from typing import List

import z3

from envelope import d_stop
from lemma import Lemma, config, rust_const


def _geofence() -> Lemma:
    """Between two clear samples of the command arc, the body keeps clear of the fence."""
    shield = config("control_v1.json")["shield"]
    mv, g = shield["vehicle_margin_m"], shield["geofence_margin_m"]
    step = rust_const("chain/shield/mod.rs", "FENCE_STEP_M")
    need = mv + g
    # Distances only: p on the segment from sample a to sample b (|p - a| = t |a - b|,
    # |p - b| = (1 - t) |a - b|), q a fence point, x a point of the body's band about p;
    # the triangle inequality (proved in corridor.term_is_a_lower_bound) relates them.
    t, ab, aq, bq, pq, xp, xq = z3.Reals("t ab aq bq pq xp xq")
    hyps = [
        t >= 0, t <= 1, ab >= 0, ab <= step,      # p between two samples a step apart at most
        aq >= need, bq >= need,                   # both samples clear of q
        xp >= 0, xp <= mv,                        # x within m_v of p
        pq >= 0, xq >= 0,
        pq >= aq - t * ab, pq >= bq - (1 - t) * ab,  # triangle inequality via a and via b
        xq >= pq - xp,                            # triangle inequality via p
    ]
    return Lemma(
        name="shield.geofence_samples_keep_the_band_clear",
        rust="Shield::fence_distance",
        test="geofence_slows_before_the_fence",
        words=(
            f"Samples of the command arc at most FENCE_STEP_M = {step} m apart, each at least "
            f"m_v + G = {need} m from every fence point q (shipped m_v {mv}, G {g}): every "
            f"point within m_v of the arc between them is at least G - step/2 = {g - step / 2} m "
            "from q, so the band the body sweeps stays inside the fence."
        ),
        hypotheses=hyps,
        claim=xq >= g - step / 2,
        control=xq >= g,
        control_words="the full margin G between samples: the sampling loses up to half a step",
    )


def lemmas() -> List[Lemma]:
    v, t, a, dm, d, r, s, cap = z3.Reals("v T a d_m d_obs r s cap")
    root = [t > 0, a > 0, dm >= 0, d >= dm, r == d - dm, s >= 0, s * s == t * t + 2 * r / a,
            cap == 2 * r / (t + s)]
    obstacle = Lemma(
        name="shield.obstacle_cap_keeps_the_stop_within_d_obs",
        test="stop_cap_stops_inside_the_distance",
        rust="Shield::step (obstacle rule), StopRule::stop_cap",
        words="Any speed 0 <= v <= stopCap(d_obs) has d_stop(v) <= d_obs.",
        hypotheses=root + [v >= 0, v <= cap],
        claim=d_stop(v, t, a, dm) <= d,
        control=dm + v * t + v * v / (2 * a) + dm <= d,
        control_words="counting the margin twice, the same speeds break the rule",
    )
    # A cap below the margin: stopCap is 0 for d_obs < d_m (the code's first branch).
    stand = Lemma(
        name="shield.no_motion_inside_the_margin",
        test="stop_cap_edges",
        rust="StopRule::stop_cap (d < d_m gives 0)",
        words="Where d_obs < d_m no speed v > 0 has d_stop(v) <= d_obs: the cap must be 0.",
        hypotheses=[t > 0, a > 0, dm >= 0, d < dm, v > 0],
        claim=d_stop(v, t, a, dm) > d,
        control=v * t + v * v / (2 * a) > d,
        control_words="without d_m in d_stop, slow speeds would fit",
    )
    k, alat, c = z3.Reals("kappa a_lat c")
    corner = Lemma(
        name="shield.corner_cap_keeps_v2_kappa_within_a_lat",
        test="lemma_corner_cap_is_the_proven_root",
        rust="corner_cap",
        words="For a_lat > 0 and kappa != 0, any |v| <= sqrt(a_lat / |kappa|) has v^2 |kappa| <= a_lat.",
        hypotheses=[alat > 0, k > 0, c >= 0, c * c == alat / k],
        claim=z3.Implies(z3.And(v >= -c, v <= c), v * v * k <= alat),
        control=z3.Implies(z3.And(v >= -alat / k, v <= alat / k), v * v * k <= alat),
        control_words="without the root (|v| <= a_lat / |kappa|) the lateral acceleration can exceed a_lat",
    )
    return [obstacle, stand, corner, _geofence()]
