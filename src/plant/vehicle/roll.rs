//! Roll and rollover. A second-order roll mode turns the lateral force the body feels
//! (the lateral acceleration and, on a side slope, gravity across it) into the body's
//! roll acceleration; the inner wheels' load follows from the moments about the outer
//! contact line: the felt force at the CG height, and the CG moved outward by the body's
//! roll about the roll centre. At zero inner load the wheels lift and the body tips
//! about the outer contact line, driven by the same two moments at the tip angle:
//!
//! `I_o θ̈ = m [a (h cos θ + e sin θ) − g_n (e cos θ − h sin θ)]`,
//!
//! with `e = t/2 − shift` the CG's distance inside the outer line, `g_n` gravity's part
//! normal to the ground and `I_o = I_xx + m (h² + e²)` the roll inertia about that line.
//! Past `θ = atan(e / h)` the CG stands beyond the line and gravity itself turns the
//! body over: the vehicle has rolled over. With the lateral force held steady this is
//! the quasi-static threshold `a / g_n = e / h`, the static stability factor `t / 2h`
//! less the roll shift.

use super::series::sin;
use super::{G, StepInfo, VehicleDynamics, VehicleState};
use crate::plant::vehicle::DT_S;

/// The distance of the CG inside the outer contact line, m, for a felt lateral
/// acceleration (magnitude) `a`: half the track less the shift of the rolled body.
fn inside_m(p: &VehicleDynamics, a: f64) -> f64 {
    let shift = (p.cg_height_m - p.roll_centre_height_m) * sin(p.roll_gradient_rad_per_mps2 * a);
    (p.track_m / 2.0 - shift).max(0.0)
}

/// The roll mode, the inner wheels' load and the tip of one step.
#[inline]
pub(super) fn step(
    p: &VehicleDynamics,
    s: &mut VehicleState,
    g_cross: f64,
    normal: f64,
) -> StepInfo {
    let wn = std::f64::consts::TAU * p.roll_hz;
    // The lateral force the body feels per mass: the acceleration and, on a side slope,
    // gravity's component across it (both load the downhill, or outer, wheels).
    let felt = s.ay_mps2 + g_cross;
    let acc = wn * wn * (felt - s.roll_accel_mps2) - 2.0 * p.roll_damping * wn * s.roll_rate;
    s.roll_rate += acc * DT_S;
    s.roll_accel_mps2 += s.roll_rate * DT_S;
    let a = s.roll_accel_mps2.abs();
    let e = inside_m(p, a);
    let h = p.cg_height_m;
    let gn = G * normal;
    let inner = 2.0 * (gn * e - a * h) / (gn * p.track_m);
    // The tip about the outer contact line, resting on the ground at θ = 0.
    let th = s.tip_rad;
    let moment = if th > 0.0 {
        let (sin, cos) = th.sin_cos();
        a * (h * cos + e * sin) - gn * (e * cos - h * sin)
    } else {
        a * h - gn * e
    };
    if th > 0.0 || moment > 0.0 {
        let i_o = p.roll_inertia_kgm2 + p.mass_kg * (h * h + e * e);
        s.tip_rate += p.mass_kg * moment / i_o * DT_S;
        s.tip_rad += s.tip_rate * DT_S;
        if s.tip_rad <= 0.0 {
            s.tip_rad = 0.0;
            s.tip_rate = 0.0;
        }
    }
    s.rolled_over = s.tip_rad > 0.0 && s.tip_rad >= e.atan2(h);
    if s.rolled_over {
        s.vx_mps = 0.0;
        s.vy_mps = 0.0;
        s.yaw_rate_rps = 0.0;
    }
    StepInfo {
        inner_load_ratio: inner,
        wheel_lift: inner <= 0.0 || s.tip_rad > 0.0,
        rolled_over: s.rolled_over,
        sliding: false,
        locked: false,
    }
}

/// A step of a vehicle that has rolled over: it lies where it came to rest.
pub(super) fn lying(s: &mut VehicleState) -> StepInfo {
    s.vx_mps = 0.0;
    s.vy_mps = 0.0;
    s.yaw_rate_rps = 0.0;
    s.ax_mps2 = 0.0;
    s.ay_mps2 = 0.0;
    StepInfo {
        inner_load_ratio: -1.0,
        wheel_lift: true,
        rolled_over: true,
        sliding: false,
        locked: false,
    }
}
