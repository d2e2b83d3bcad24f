//! The tire forces of one step: the axle loads, the longitudinal forces with the Coulomb
//! hold at rest, the lateral forces of the dynamic and the kinematic single track, and
//! one friction circle `μ F_z` per axle that bounds them together.
//!
//! Index 0 is the front axle, 1 the rear.

use super::series::{atan, cos, sin, tan};
use super::{DT_S, G, HZ, Slope, VehicleDynamics, VehicleState, dynamic_weight};
use crate::plant::dbw::Actuation;

/// The tire forces of a step and the longitudinal speed they give.
pub(super) struct Forces {
    /// The new longitudinal speed, m/s.
    pub vx_mps: f64,
    /// The longitudinal (along the wheel) and the dynamic lateral forces per axle, N,
    /// within each axle's friction circle.
    pub fx_n: [f64; 2],
    pub fy_n: [f64; 2],
    /// The friction budget `μ F_z` of each axle, N.
    pub cap_n: [f64; 2],
    /// Whether a demand was beyond an axle's budget (in the dynamic regime) or the
    /// kinematic motion needed more than the budget left.
    pub sliding: bool,
    /// Whether the wheels are locked (no anti-lock system, a brake beyond the grip).
    pub locked: bool,
    /// The weight of the dynamic single track (see [`dynamic_weight`]).
    pub w: f64,
    /// The sine and cosine of the road wheel angle.
    pub sin_cos_delta: (f64, f64),
}

/// The normal load of each axle, N: the static split of the weight's normal part, less
/// on the front axle what the tires' longitudinal force (lagged) moves to the rear
/// through the CG height: `F_z,f = (m g cos θ b − h F_x) / L`.
pub(crate) fn axle_loads(p: &VehicleDynamics, s: &VehicleState, slope: &Slope) -> [f64; 2] {
    let w = p.mass_kg * G * slope.normal;
    let front =
        ((w * p.cg_to_rear_m() - p.cg_height_m * s.fx_tires_n) / p.wheelbase_m).clamp(0.0, w);
    [front, w - front]
}

/// The longitudinal demands per axle, N: the drive force, shared among the driven axles
/// in proportion to their loads (signed by the gear: reverse drives backwards, park and
/// neutral give none), and what resists motion: the service brake, shared in proportion
/// to the loads (a balanced four-wheel brake), the rolling resistance, and the park lock,
/// which holds its axle up to the friction.
fn demands(
    p: &VehicleDynamics,
    s: &VehicleState,
    act: &Actuation,
    crr: f64,
    fz: [f64; 2],
    cap: [f64; 2],
) -> ([f64; 2], [f64; 2]) {
    let dir = crate::plant::dbw::gear_direction(act.gear);
    let driven = p.driven(act.drive_mode);
    let fz_driven: f64 = (0..2).filter(|&i| driven.has(i)).map(|i| fz[i]).sum();
    let fz_all = fz[0] + fz[1];
    let (per_driven, per_all) = (1.0 / fz_driven, 1.0 / fz_all);
    let mut drive = [0.0; 2];
    let mut resist = [0.0; 2];
    for i in 0..2 {
        if driven.has(i) && fz_driven > 0.0 {
            drive[i] = dir * s.drive_n * fz[i] * per_driven;
        }
        let brake = if fz_all > 0.0 {
            s.brake_n * fz[i] * per_all
        } else {
            0.0
        };
        let park = if act.gear == 1 && p.park_axle.has(i) {
            cap[i]
        } else {
            0.0
        };
        resist[i] = brake + crr * fz[i] + park;
    }
    (drive, resist)
}

/// The Coulomb step of the longitudinal motion: the driving forces (each within its
/// axle's budget) and `ext` (drag, gravity, the front tire's lateral force along the
/// body) move the vehicle; the resisting ones oppose the motion and, at rest, take up
/// to their capacity in whichever direction it would start. Returns the new speed and
/// each axle's force.
fn coulomb(
    vx: f64,
    m: f64,
    ext: f64,
    drive: [f64; 2],
    resist: [f64; 2],
    (cap, cap_r): ([f64; 2], [f64; 2]),
) -> (f64, [f64; 2]) {
    let d = [
        drive[0].clamp(-cap[0], cap[0]),
        drive[1].clamp(-cap[1], cap[1]),
    ];
    let r = [resist[0].min(cap_r[0]), resist[1].min(cap_r[1])];
    let step_per_m = DT_S / m;
    let v_free = vx + (d[0] + d[1] + ext) * step_per_m;
    let dv = (r[0] + r[1]) * step_per_m;
    let sgn = if v_free < 0.0 { -1.0 } else { 1.0 };
    let (v, k) = if v_free.abs() <= dv {
        (0.0, if dv > 0.0 { v_free.abs() / dv } else { 0.0 })
    } else {
        (v_free - dv * sgn, 1.0)
    };
    let fx = [0, 1].map(|i| (d[i] - sgn * k * r[i]).clamp(-cap[i], cap[i]));
    (v, fx)
}

/// The dynamic lateral demand of each axle, N: linear in the slip angle, the angle
/// between the wheel and its contact point's velocity (`atan`, so that at large steering
/// angles the dynamic model meets the kinematic `tan δ / L`). The speed is taken as at
/// least 0.5 m/s, below which the dynamic model has no weight.
fn lateral_demand(p: &VehicleDynamics, s: &VehicleState, delta: f64) -> [f64; 2] {
    let (a, b) = (p.cg_to_front_m, p.cg_to_rear_m());
    let vx = s.vx_mps;
    let vxs = vx.abs().max(0.5);
    let sgn = if vx < 0.0 { -1.0 } else { 1.0 };
    let alpha_f = atan((s.vy_mps + a * s.yaw_rate_rps) / vxs) * sgn - delta;
    let alpha_r = atan((s.vy_mps - b * s.yaw_rate_rps) / vxs) * sgn;
    let [cf, cr] = p.cornering_stiffness_n_per_rad;
    [-cf * alpha_f * sgn, -cr * alpha_r * sgn]
}

/// The body-x part of the forces that are not the longitudinal tire forces, N: drag, the
/// grade, the inertial coupling `m v_y r` and the front axle's lateral force along the
/// body (`−F_y,f sin δ`), both of the dynamic model only: in the kinematic one the
/// constraint forces do no work, and the turn's kinetic energy is in [`effective_mass`].
fn external(
    p: &VehicleDynamics,
    s: &VehicleState,
    slope: &Slope,
    fy_front: f64,
    sin_delta: f64,
    w: f64,
) -> f64 {
    let m = p.mass_kg;
    -p.drag_kg_per_m * s.vx_mps * s.vx_mps.abs() - m * G * slope.along_sin
        + w * (m * s.vy_mps * s.yaw_rate_rps - fy_front * sin_delta)
}

/// The mass the longitudinal forces move, kg: in the kinematic single track (weight
/// `1 − w`) the body also turns at `r = v tan δ / L` and its centre of gravity moves
/// sideways at `b r`, so its kinetic energy is `½ v² (m + (m b² + I) tan²δ / L²)`
/// (Lagrange, the rear axle's speed `v` the coordinate); the dynamic model's own
/// coupling `m v_y r` stands for the same in the dynamic share. With the mass alone, a
/// coast at full lock gained energy (issue 65: 22.1 s against 9.9 s straight).
fn effective_mass(p: &VehicleDynamics, w: f64, tan_delta: f64) -> f64 {
    let (l, b) = (p.wheelbase_m, p.cg_to_rear_m());
    let m = p.mass_kg;
    m + (1.0 - w) * (m * b * b + p.yaw_inertia_kgm2) * tan_delta * tan_delta / (l * l)
}

/// Each axle's budget for the resisting forces (brake, park, rolling resistance) along the
/// body: in the kinematic share, where the tires must also hold the body across, and both
/// together are more than the circles give, the friction is shared by the direction of
/// what is asked, as Coulomb friction opposes a slide whatever the wheels' heading. With
/// the whole budget along first, a braked vehicle on a diagonal slope steeper than μ slid
/// sideways, 57 % too fast on dry gravel (issue 65).
fn resist_share(
    p: &VehicleDynamics,
    s: &VehicleState,
    slope: &Slope,
    (delta, w): (f64, f64),
    (ext, drive, m_eff): (f64, [f64; 2], f64),
    cap: [f64; 2],
) -> [f64; 2] {
    if w >= 1.0 {
        return cap;
    }
    let b = p.cg_to_rear_m();
    let (vx, vy) = (s.vx_mps, s.vy_mps);
    // What the resisting forces must give to stop the body along this step, and what the
    // kinematic model asks across (its `want` in `lateral`).
    let fx_need = (vx * m_eff * HZ + ext + drive[0] + drive[1]).abs();
    let r_kin = vx * tan(delta) / p.wheelbase_m;
    let fy_need = p.mass_kg * ((b * r_kin - vy) * HZ + G * slope.cross_sin + vx * r_kin).abs();
    let need = fx_need.hypot(fy_need);
    if need <= cap[0] + cap[1] || need == 0.0 {
        return cap;
    }
    let share = w + (1.0 - w) * fx_need / need;
    cap.map(|c| c * share)
}

/// Below this speed of the CG, m/s, locked wheels are taken as rolling again: the
/// Coulomb hold of [`coulomb`] brings the vehicle to rest (a slide from here lasts under
/// 1 cm on wet grass).
const LOCK_MIN_MPS: f64 = 0.2;

/// Whether the wheels lock: no anti-lock system, in motion, and a brake force beyond what
/// the ground can take at both axles (the brake is shared by the loads, so both axles
/// reach their limit together). A locked wheel turns no more and steers no more.
fn wheels_lock(p: &VehicleDynamics, s: &VehicleState, cap: [f64; 2]) -> bool {
    !p.abs
        && s.vx_mps.hypot(s.vy_mps) > LOCK_MIN_MPS
        && s.brake_n - s.drive_n.abs() > cap[0] + cap[1]
}

/// The forces of a step on locked wheels: each axle slides like a Coulomb block, its force
/// `μ F_z` against its contact point's velocity whatever the wheel's heading (the road
/// wheel angle no longer matters). Drag, the grade and the coupling `m v_y r` act as in
/// the dynamic model. Below the speed change one
/// step of the whole friction gives the contact point (`μ F_z Δt (1/m + l²/I)`, `l` its
/// distance from the CG), the force falls in proportion to the speed: a viscous band in
/// which the step cannot overshoot, so the force's direction does not chatter about rest.
fn locked(
    p: &VehicleDynamics,
    s: &VehicleState,
    slope: &Slope,
    delta: f64,
    cap: [f64; 2],
) -> Forces {
    let (a, b) = (p.cg_to_front_m, p.cg_to_rear_m());
    let (vx, vy, r) = (s.vx_mps, s.vy_mps, s.yaw_rate_rps);
    let m = p.mass_kg;
    let contact = [(vy + a * r, a), (vy - b * r, b)];
    let f = [0, 1].map(|i| {
        let (uy, l) = contact[i];
        let band = cap[i] * DT_S * (1.0 / m + l * l / p.yaw_inertia_kgm2);
        let n = vx.hypot(uy).max(band).max(1e-9);
        (-cap[i] * vx / n, -cap[i] * uy / n)
    });
    let ext = -p.drag_kg_per_m * vx * vx.abs() - m * G * slope.along_sin + m * vy * r;
    // A spinning body's v_x may change sign; near rest the band keeps the slide from
    // reversing.
    let vx1 = vx + (f[0].0 + f[1].0 + ext) / m * DT_S;
    // The front force in the wheel's frame, as `lateral` turns it back into the body's.
    let (sd, cd) = (sin(delta), cos(delta));
    Forces {
        vx_mps: vx1,
        fx_n: [f[0].0 * cd + f[0].1 * sd, f[1].0],
        fy_n: [f[0].1 * cd - f[0].0 * sd, f[1].1],
        cap_n: cap,
        sliding: true,
        locked: true,
        w: 1.0,
        sin_cos_delta: (sd, cd),
    }
}

/// The tire forces of a step within each axle's friction circle, and the new
/// longitudinal speed.
#[inline]
pub(super) fn forces(
    p: &VehicleDynamics,
    s: &VehicleState,
    act: &Actuation,
    slope: &Slope,
    mu: f64,
    crr: f64,
) -> Forces {
    let delta = act.road_wheel_rad;
    let fz = axle_loads(p, s, slope);
    let cap = fz.map(|f| mu * f);
    if wheels_lock(p, s, cap) {
        return locked(p, s, slope, delta, cap);
    }
    let w = dynamic_weight(s.vx_mps);
    let (drive, resist) = demands(p, s, act, crr, fz, cap);
    // The dynamic model's demand only where it has weight.
    let fy_dem = if w > 0.0 {
        lateral_demand(p, s, delta)
    } else {
        [0.0; 2]
    };
    // The first pass: the longitudinal forces with each axle's whole budget.
    let fy_alone = fy_dem[0].clamp(-cap[0], cap[0]);
    let (sin_delta, cos_delta) = (sin(delta), cos(delta));
    let ext = external(p, s, slope, fy_alone, sin_delta, w);
    let m_eff = effective_mass(p, w, sin_delta / cos_delta);
    let cap_r = resist_share(p, s, slope, (delta, w), (ext, drive, m_eff), cap);
    let (vx1, fx) = coulomb(s.vx_mps, m_eff, ext, drive, resist, (cap, cap_r));
    let mut vx = vx1;
    // The friction circle of the dynamic model: a demand beyond it is scaled back along
    // its direction; the longitudinal force keeps the blend's share of the scale.
    let mut fy = [0.0; 2];
    let mut scale = [1.0; 2];
    let mut sliding = false;
    for i in 0..2 {
        let n2 = fx[i] * fx[i] + fy_dem[i] * fy_dem[i];
        let k = if n2 > cap[i] * cap[i] {
            cap[i] / n2.sqrt()
        } else {
            1.0
        };
        fy[i] = k * fy_dem[i];
        scale[i] = w * k + (1.0 - w);
        sliding |= k < 1.0 && w > 0.0;
    }
    let fx_scaled = [fx[0] * scale[0], fx[1] * scale[1]];
    if scale != [1.0; 2] || fy[0] != fy_alone {
        // The second pass with what the circles left: at rest a hold that is not enough
        // lets the vehicle start; in motion the resisting force never reverses it.
        let ext = external(p, s, slope, fy[0], sin_delta, w);
        let v = s.vx_mps + (fx_scaled[0] + fx_scaled[1] + ext) / m_eff * DT_S;
        vx = if v * s.vx_mps < 0.0 && vx1 * s.vx_mps >= 0.0 {
            0.0
        } else {
            v
        };
    }
    Forces {
        vx_mps: vx,
        fx_n: fx_scaled,
        fy_n: fy,
        cap_n: cap,
        sliding,
        locked: false,
        w,
        sin_cos_delta: (sin_delta, cos_delta),
    }
}

impl Forces {
    /// The tires' whole longitudinal force, N: along the body on locked wheels (the
    /// front's along-wheel force turned back), along each wheel otherwise.
    pub fn fx_total_n(&self) -> f64 {
        if self.locked {
            let (sd, cd) = self.sin_cos_delta;
            self.fx_n[0] * cd - self.fy_n[0] * sd + self.fx_n[1]
        } else {
            self.fx_n[0] + self.fx_n[1]
        }
    }

    /// The new lateral speed of the CG and yaw rate: the dynamic single track and the
    /// kinematic one, blended by [`Forces::w`]. `g_cross` is gravity's part across the
    /// body, rising to the left, m/s² (it pulls the body to the right).
    #[inline]
    pub fn lateral(
        &mut self,
        p: &VehicleDynamics,
        s: &VehicleState,
        delta: f64,
        g_cross: f64,
    ) -> (f64, f64) {
        let m = p.mass_kg;
        let (a, b) = (p.cg_to_front_m, p.cg_to_rear_m());
        let (vy, r, vx) = (s.vy_mps, s.yaw_rate_rps, s.vx_mps);
        let g_lat = -g_cross;
        // Dynamic: the tire forces in the body frame.
        let (sd, cd) = self.sin_cos_delta;
        let front_y = self.fy_n[0] * cd + self.fx_n[0] * sd;
        let ay_tires = (front_y + self.fy_n[1]) / m;
        let r_dot = (a * front_y - b * self.fy_n[1]) / p.yaw_inertia_kgm2;
        let vy_dyn = vy + (ay_tires + g_lat - vx * r) * DT_S;
        let r_dyn = r + r_dot * DT_S;
        let w = self.w;
        if w == 1.0 {
            return (vy_dyn, r_dyn);
        }
        // Kinematic: no slip at the rear axle, within what the longitudinal forces leave.
        let r_kin = vx * tan(delta) / p.wheelbase_m;
        let want = (b * r_kin - vy) * HZ - g_lat + vx * r_kin;
        let left: f64 = (0..2)
            .map(|i| {
                (self.cap_n[i].powi(2) - self.fx_n[i].powi(2))
                    .max(0.0)
                    .sqrt()
            })
            .sum::<f64>()
            / m;
        if self.w < 1.0 && want.abs() > left * (1.0 + 1e-9) && vx.abs() + vy.abs() > 1e-3 {
            self.sliding = true;
        }
        let ay_kin = want.clamp(-left, left);
        let vy_kin = vy + (ay_kin + g_lat - vx * r_kin) * DT_S;
        (
            w * vy_dyn + (1.0 - w) * vy_kin,
            w * r_dyn + (1.0 - w) * r_kin,
        )
    }
}
