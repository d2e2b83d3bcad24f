//! The locked-wheel row of the `physics` set: without an anti-lock system
//! (`dynamics.abs` false, the Ranger's case) a full brake beyond the grip locks the
//! wheels, and the vehicle slides on them like a rigid body on two Coulomb contacts,
//! whatever the road wheels' angle. The reference here is written from first principles
//! and shares nothing with the plant.

use super::validate::Check;
use super::validate_physics::{drive, governor, plane, row};
use crate::chain::envelope::GroundClass;
use crate::ground::class::{G, GroundState, ground};
use crate::plant::vehicle::{Ground, Vehicle, VehicleDynamics, VehicleState};
use rayon::prelude::*;

/// A rigid body on two contact points, the axles, each a Coulomb block whose force `μ F_z`
/// opposes that point's velocity, with the axle loads of a body decelerating at `μ g`
/// (`F_z,f = m g (b + μ h) / L`), integrated at 10 kHz from `s` until it rests. The CG's
/// position and the heading where it rests.
pub(crate) fn coulomb_slide(p: &VehicleDynamics, s: &VehicleState, mu: f64) -> [f64; 3] {
    let (a, b, l, h) = (
        p.cg_to_front_m,
        p.cg_to_rear_m(),
        p.wheelbase_m,
        p.cg_height_m,
    );
    let (m, inertia) = (p.mass_kg, p.yaw_inertia_kgm2);
    let fz = [m * G * (b + mu * h) / l, m * G * (a - mu * h) / l];
    let start = Vehicle {
        p: p.clone(),
        s: *s,
    };
    let ((mut x, mut y), mut psi) = (start.cg_position(), s.yaw_rad);
    let (mut vx, mut vy) = s.ground_velocity();
    let mut r = s.yaw_rate_rps;
    let dt = 1e-4;
    for _ in 0..2_000_000 {
        if vx.hypot(vy) < 1e-3 && r.abs() < 1e-3 {
            break;
        }
        let (sn, cs) = psi.sin_cos();
        let (mut fx, mut fy, mut tz) = (0.0, 0.0, 0.0);
        for (i, arm) in [a, -b].into_iter().enumerate() {
            let (dx, dy) = (arm * cs, arm * sn);
            let (ux, uy) = (vx - r * dy, vy + r * dx);
            let n = ux.hypot(uy);
            if n > 1e-9 {
                let (fxi, fyi) = (-mu * fz[i] * ux / n, -mu * fz[i] * uy / n);
                fx += fxi;
                fy += fyi;
                tz += dx * fyi - dy * fxi;
            }
        }
        vx += fx / m * dt;
        vy += fy / m * dt;
        r += tz / inertia * dt;
        x += vx * dt;
        y += vy * dt;
        psi += r * dt;
    }
    [x, y, psi]
}

/// A full brake from 0.8 of the grip speed on a 10 m circle on `g`: where the CG rests and
/// the heading, in the plant and in the reference started from the plant's state just
/// before its wheels locked (None if they never did).
pub(crate) fn curve_lock(p: &VehicleDynamics, g: &Ground) -> ([f64; 3], Option<[f64; 3]>) {
    let (mu, _) = ground(g.class, g.state);
    let speed = (0.8 * mu * G * 10.0).sqrt();
    let delta = (p.wheelbase_m / 10.0).atan();
    let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
    v.s.vx_mps = speed;
    for _ in 0..360 {
        let th = governor(&v, speed);
        v.step(&drive(th, 0.0, delta), g);
    }
    let mut reference = None;
    for _ in 0..120 * 30 {
        let before = v.s;
        let info = v.step(&drive(0.0, p.brake_bar_max, delta), g);
        if info.locked && reference.is_none() {
            reference = Some(coulomb_slide(p, &before, mu));
        }
        if v.s.vx_mps.hypot(v.s.vy_mps) < 1e-6 || info.rolled_over {
            break;
        }
    }
    let (x, y) = v.cg_position();
    ([x, y, v.s.yaw_rad], reference)
}

/// The grounds of the row: low grip, where the shipped brake (0.68 g) locks the wheels.
pub(crate) const GROUNDS: [(GroundClass, GroundState); 4] = [
    (GroundClass::Asphalt, GroundState::Wet),
    (GroundClass::Gravel, GroundState::Dry),
    (GroundClass::Grass, GroundState::Wet),
    (GroundClass::Field, GroundState::Wet),
];

/// The row: on each ground where the brake exceeds the grip, the plant's rest within
/// 0.1 m of the reference's and its heading within 3°; with `dynamics.abs`, no lock.
pub(crate) fn locked_wheels(p: &VehicleDynamics) -> Check {
    let runs: Vec<_> = GROUNDS
        .par_iter()
        .map(|&(c, s)| (c, s, curve_lock(p, &plane(c, s, 0.0, 0.0))))
        .collect();
    let mut parts = Vec::new();
    let mut pass = true;
    for (c, s, (rest, reference)) in runs {
        let name = format!("{c} {}", format!("{s:?}").to_lowercase());
        match reference {
            None => {
                let (mu, _) = ground(Some(c), s);
                // Without anti-lock, a brake beyond the grip must lock.
                pass &= p.abs || p.brake_force_max_n <= mu * p.mass_kg * G;
                parts.push(format!("{name}: no lock"));
            }
            Some(r) => {
                let gap = (rest[0] - r[0]).hypot(rest[1] - r[1]);
                let turn = (rest[2] - r[2]).to_degrees();
                pass &= !p.abs && gap <= 0.1 && turn.abs() <= 3.0;
                parts.push(format!("{name}: {gap:.2} m, {turn:+.1}°"));
            }
        }
    }
    row(
        format!(
            "locked wheels (abs {}): full brake in a 10 m curve from 0.8 of its grip speed",
            p.abs
        ),
        "without ABS, where the brake exceeds μ m g: rests within 0.1 m and 3° of a rigid \
         body on two Coulomb contacts; with ABS, no lock"
            .into(),
        format!("from the reference's rest: {}", parts.join("; ")),
        pass,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::jobs::validate::Verdict;

    /// Issue 65: a full brake in a curve on low-grip ground used to keep steering (the
    /// vehicle rested 0.6 to 0.95 m inside the locked slide's rest). Now the wheels lock
    /// and the rest is the Coulomb body's; with `abs` the wheels roll and steer, which the
    /// reference tells apart.
    #[test]
    fn locked_wheels_rest_where_the_coulomb_body_does_and_abs_keeps_steering() {
        let p = VehicleDynamics::of_config(&Config::builtin());
        assert!(!p.abs);
        assert_eq!(locked_wheels(&p).verdict, Verdict::Pass);
        let mut abs = p.clone();
        abs.abs = true;
        assert_eq!(locked_wheels(&abs).verdict, Verdict::Pass);
        for (c, s) in GROUNDS {
            let g = plane(c, s, 0.0, 0.0);
            let (locked, reference) = curve_lock(&p, &g);
            let (rolling, none) = curve_lock(&abs, &g);
            let r = reference.expect("the wheels lock");
            assert!(none.is_none(), "{c} {s:?}: ABS locked");
            let gap = |q: [f64; 3]| (q[0] - r[0]).hypot(q[1] - r[1]);
            assert!(gap(locked) <= 0.1, "{c} {s:?}: {locked:?} {r:?}");
            assert!(gap(rolling) >= 0.4, "{c} {s:?}: {rolling:?} {r:?}");
            // The rolling wheels hold the curve: the rest is nearer its centre (0, 10).
            let from_centre = |q: [f64; 3]| q[0].hypot(q[1] - 10.0);
            assert!(
                from_centre(locked) > from_centre(rolling) + 0.2,
                "{c} {s:?}: {locked:?} {rolling:?}"
            );
        }
    }

    /// Once locked, the road wheels' angle changes nothing: the same slide with the wheels
    /// straight or turned either way is the same up to where the wheels roll again (below
    /// 0.2 m/s, 1.2 s later).
    #[test]
    fn locked_wheels_do_not_steer() {
        let p = VehicleDynamics::of_config(&Config::builtin());
        let g = plane(GroundClass::Grass, GroundState::Wet, 0.0, 0.0);
        let slide = |delta: f64| {
            let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
            v.s.vx_mps = 5.0;
            v.s.yaw_rate_rps = 0.3;
            v.s.brake_n = p.brake_force_max_n;
            let mut last = v.s;
            for _ in 0..120 * 10 {
                if v.step(&drive(0.0, p.brake_bar_max, delta), &g).locked {
                    last = v.s;
                }
            }
            last
        };
        let (a, b, c) = (slide(0.0), slide(0.4), slide(-0.4));
        assert!(a.x_m > 3.0 && a.vx_mps.hypot(a.vy_mps) < 0.25, "{a:?}");
        for q in [b, c] {
            assert!(
                (q.x_m - a.x_m).abs() < 1e-9 && (q.y_m - a.y_m).abs() < 1e-9,
                "{q:?} {a:?}"
            );
            assert!((q.yaw_rad - a.yaw_rad).abs() < 1e-9);
        }
    }

    /// A locked slide is stable at every corner of the parameters' ranges (the strongest
    /// brake, 1.5 m g, locks on any ground): from 8 m/s in a turn on wet grass, the
    /// ground-frame acceleration never beyond μ g and the drag, and the vehicle at rest
    /// within 5 s.
    #[test]
    fn a_locked_slide_is_stable_at_every_corner_of_the_ranges() {
        use crate::jobs::validate_physics::launch_tests::corner;
        let g = plane(GroundClass::Grass, GroundState::Wet, 0.0, 0.0);
        let (mu, _) = ground(g.class, g.state);
        let bad: Vec<(u32, f64, f64)> = (0..256u32)
            .into_par_iter()
            .filter_map(|k| {
                let p = corner(k);
                let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
                v.s.vx_mps = 8.0;
                v.s.yaw_rate_rps = 0.4;
                let mut peak = 0.0f64;
                let mut locked = false;
                for _ in 0..600 {
                    let (ux, uy) = v.s.ground_velocity();
                    locked |= v.step(&drive(0.0, p.brake_bar_max, 0.1), &g).locked;
                    let (wx, wy) = v.s.ground_velocity();
                    peak = peak.max((wx - ux).hypot(wy - uy) * 120.0);
                }
                let speed = v.s.vx_mps.hypot(v.s.vy_mps);
                // Drag adds to the friction at speed (0.5 m/s² at 8 m/s for 100 kg).
                let bound = 1.05 * mu * G + p.drag_kg_per_m * 64.0 / p.mass_kg;
                let ok = locked && peak <= bound && speed < 1e-3;
                (!ok).then_some((k, peak / (mu * G), speed))
            })
            .collect();
        assert!(bad.is_empty(), "{bad:?}");
    }
}
