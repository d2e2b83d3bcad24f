//! The careful driver of the suites (docs/validation.md "Moving actors"): what a human
//! driver who sees an actor start to move could still do, which sorts each generated case
//! into a class before any simulation is run.
//!
//! The lane is straight along x; the vehicle's body is the box from its front `x_f(t)` back
//! by its length, `|y| <= W/2`. Driving on, the front moves at the constant speed `v0`. The
//! careful driver reacts `T` after the actor's onset and then brakes at a constant
//! deceleration `a` to a stop. The actor crosses the lane along y at a constant speed from
//! its onset and stands where its motion ends. A case is
//! - **clear** where driving on touches nothing;
//! - **must-avoid** where driving on touches the actor but some deceleration of at most
//!   1.2 m/s² after T = 1.0 s (the envelope's braking and latency) avoids contact;
//! - **grey** where only some deceleration of at most 1.5 m/s² after T = 0.5 s avoids it;
//! - **unavoidable** where every choice touches, even the grey one.

use serde::Serialize;

/// The class of a case by the careful-driver search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseClass {
    Clear,
    MustAvoid,
    Grey,
    Unavoidable,
}

impl CaseClass {
    /// The class's name as the tables print it.
    pub fn name(self) -> &'static str {
        match self {
            CaseClass::Clear => "clear",
            CaseClass::MustAvoid => "must-avoid",
            CaseClass::Grey => "grey",
            CaseClass::Unavoidable => "unavoidable",
        }
    }
}

/// The careful driver's reaction and largest deceleration, s and m/s².
pub const CAREFUL: (f64, f64) = (1.0, 1.2);
/// An alert driver's reaction and largest deceleration: the grey class, s and m/s².
pub const ALERT: (f64, f64) = (0.5, 1.5);

/// A box of an actor's body about its position: x from `x0` to `x1`, y from `y0` to `y1`, m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
}

/// An actor's body as the search sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A disc of this radius, m (a person).
    Disc(f64),
    /// Boxes aligned with the lane (a machine and its implement).
    Boxes(Vec<Part>),
}

impl Body {
    /// How far the body reaches across the lane on either side of its position, m.
    fn reach_y(&self) -> (f64, f64) {
        match self {
            Body::Disc(r) => (-r, *r),
            Body::Boxes(p) => p.iter().fold((f64::MAX, f64::MIN), |(lo, hi), q| {
                (lo.min(q.y0), hi.max(q.y1))
            }),
        }
    }
}

/// An actor that stands at `(x, y_start)` until its onset, then moves along y at `speed`
/// to `y_end` and stands there.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossing {
    pub x_m: f64,
    pub y_start_m: f64,
    pub y_end_m: f64,
    pub speed_mps: f64,
    pub body: Body,
}

impl Crossing {
    /// Its position across the lane `tau` s after its onset, m.
    fn y_at(&self, tau: f64) -> f64 {
        let span = self.y_end_m - self.y_start_m;
        let d = (tau.max(0.0) * self.speed_mps).min(span.abs());
        self.y_start_m + d * span.signum()
    }

    /// The times after its onset between which its body can overlap the band `|y| <= h`.
    fn in_band(&self, h: f64) -> Option<(f64, f64)> {
        let (lo, hi) = self.body.reach_y();
        let dir = (self.y_end_m - self.y_start_m).signum();
        // The body overlaps the band while y + lo <= h and y + hi >= -h.
        let (a, b) = (-h - hi, h - lo);
        let (y0, y1) = (self.y_start_m, self.y_end_m);
        let (ymin, ymax) = (y0.min(y1), y0.max(y1));
        if b < ymin || a > ymax {
            return None;
        }
        let to = |y: f64| ((y - y0) * dir).max(0.0) / self.speed_mps;
        let (t0, t1) = if dir > 0.0 {
            (to(a), to(b))
        } else {
            (to(b), to(a))
        };
        // A body that ends inside the band stays there.
        let t1 = if (a..=b).contains(&y1) {
            f64::INFINITY
        } else {
            t1
        };
        Some((t0, t1))
    }
}

/// The vehicle of the search: its length and half width, m, its speed, m/s, and the time
/// at which its front, driving on, reaches the actor's x, s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ego {
    pub length_m: f64,
    pub half_width_m: f64,
    pub speed_mps: f64,
    pub arrival_s: f64,
}

impl Ego {
    /// Its front at time `t`, m from the actor's x, braking at `a` from `t_brake` on
    /// (`a` = 0: driving on).
    fn front(&self, t: f64, t_brake: f64, a: f64) -> f64 {
        let v = self.speed_mps;
        if t <= t_brake || a <= 0.0 {
            return v * (t - self.arrival_s);
        }
        let tau = (t - t_brake).min(v / a);
        v * (t_brake - self.arrival_s) + v * tau - 0.5 * a * tau * tau
    }
}

/// The step of the time search, s: 1.4 cm of the vehicle's travel at 7 m/s.
const DT_S: f64 = 0.002;

/// Whether the vehicle touches the actor whose onset is `onset` (absolute s) when it
/// brakes at `a` from `t_brake` (absolute s).
fn touches(ego: &Ego, actor: &Crossing, onset: f64, t_brake: f64, a: f64) -> bool {
    let h = ego.half_width_m;
    let Some((b0, b1)) = actor.in_band(h) else {
        return false;
    };
    // Past the longest the vehicle can take to clear the actor's x: the search ends where
    // the vehicle has stopped short of it or driven past it.
    let end = b1.min(60.0);
    let steps = ((end - b0) / DT_S).ceil().max(0.0) as usize;
    (0..=steps).any(|i| {
        let tau = (b0 + i as f64 * DT_S).min(end);
        let t = onset + tau;
        let xf = ego.front(t, t_brake, a);
        let y = actor.y_at(tau);
        overlaps(&actor.body, xf, ego.length_m, h, y)
    })
}

/// Whether the body at `(0, y)` overlaps the vehicle box `[xf - len, xf] x [-h, h]`.
fn overlaps(body: &Body, xf: f64, len: f64, h: f64, y: f64) -> bool {
    match body {
        Body::Disc(r) => {
            // The actor's x is the frame's origin.
            let dx = (xf - len).max(-xf).max(0.0);
            let dy = (y.abs() - h).max(0.0);
            dx.hypot(dy) <= *r
        }
        Body::Boxes(parts) => parts
            .iter()
            .any(|p| p.x0 <= xf && p.x1 >= xf - len && y + p.y0 <= h && y + p.y1 >= -h),
    }
}

/// Whether some deceleration of at most `a_max` (tried in steps of 0.05 m/s²) after the
/// reaction `react` avoids the actor.
fn some_brake_avoids(ego: &Ego, actor: &Crossing, onset: f64, (react, a_max): (f64, f64)) -> bool {
    let n = (a_max / 0.05).round() as usize;
    (1..=n).any(|k| {
        !touches(
            ego,
            actor,
            onset,
            onset + react,
            a_max * k as f64 / n as f64,
        )
    })
}

/// The class of the case whose actor starts to move at `onset`, s.
pub fn classify(ego: &Ego, actor: &Crossing, onset: f64) -> CaseClass {
    if !touches(ego, actor, onset, f64::INFINITY, 0.0) {
        CaseClass::Clear
    } else if some_brake_avoids(ego, actor, onset, CAREFUL) {
        CaseClass::MustAvoid
    } else if some_brake_avoids(ego, actor, onset, ALERT) {
        CaseClass::Grey
    } else {
        CaseClass::Unavoidable
    }
}

/// The onsets of class `class` on a grid of 0.01 s from `from` to `to`, s.
pub fn onsets_of(ego: &Ego, actor: &Crossing, from: f64, to: f64, class: CaseClass) -> Vec<f64> {
    let n = ((to - from) / 0.01).round().max(0.0) as usize;
    (0..=n)
        .map(|i| from + i as f64 * 0.01)
        .filter(|t| classify(ego, actor, *t) == class)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped vehicle (3.05 x 1.59 m) at 6.9 m/s, its front at the actor's x at 10 s.
    fn ego() -> Ego {
        Ego {
            length_m: 3.05,
            half_width_m: 0.795,
            speed_mps: 6.9,
            arrival_s: 10.0,
        }
    }

    fn child(l: f64, u: f64) -> Crossing {
        Crossing {
            x_m: 70.0,
            y_start_m: l,
            y_end_m: -5.0,
            speed_mps: u,
            body: Body::Disc(0.25),
        }
    }

    /// A child 2 m beside the lane is across before a driver 1 s late can act: no onset
    /// is must-avoid (the figure), though some collide.
    #[test]
    fn at_two_metres_no_onset_is_must_avoid() {
        let (e, c) = (ego(), child(2.0, 3.5));
        assert!(onsets_of(&e, &c, 5.0, 11.0, CaseClass::MustAvoid).is_empty());
        assert!(!onsets_of(&e, &c, 5.0, 11.0, CaseClass::Unavoidable).is_empty());
    }

    /// The child at 8 m running at 3.5 m/s is in the band |y| <= 0.795 + 0.25 from
    /// (8 - 1.045)/3.5 = 1.99 s to (8 + 1.045)/3.5 = 2.58 s after its onset. With the
    /// onset 2.5 s before the front's arrival it is there from -0.51 to +0.08 s, while the
    /// front reaches its x: driving on hits it. The careful driver brakes 1.58 s before
    /// the child leaves the band and so falls 0.6 x 1.58² = 1.50 m behind, and its front
    /// is 6.9 x 0.08 - 1.50 = -0.95 m from the child's x, more than r short: must-avoid.
    /// With the onset 2.2 s before, it would need 6.9 x 0.38 + 0.25 = 2.87 m: only the
    /// alert driver (0.5 s, 1.5 m/s²: 0.75 x 2.08² = 3.24 m) avoids it, so grey.
    #[test]
    fn a_child_at_eight_metres_is_must_avoid_when_braking_lets_it_through() {
        let (e, c) = (ego(), child(8.0, 3.5));
        assert_eq!(classify(&e, &c, 10.0 - 2.5), CaseClass::MustAvoid);
        assert_eq!(classify(&e, &c, 10.0 - 2.2), CaseClass::Grey);
        // An onset 4 s before: the child is across before the vehicle arrives.
        assert_eq!(classify(&e, &c, 6.0), CaseClass::Clear);
        // An onset after the vehicle has passed: clear.
        assert_eq!(classify(&e, &c, 10.5), CaseClass::Clear);
    }

    /// The first principles of a stop: a child at 12 m running at 2.5 m/s, standing in the
    /// lane only after (12 - 1.045)/2.5 = 4.38 s; a careful driver stops in 26.7 m, so an
    /// onset with the front 26.7 m or more short of the child (3.87 s or more before its
    /// arrival) and the child reaching the band as the vehicle does is must-avoid.
    #[test]
    fn the_window_lies_where_the_bodies_meet_driving_on() {
        let (e, c) = (ego(), child(12.0, 2.5));
        let must = onsets_of(&e, &c, 0.0, 12.0, CaseClass::MustAvoid);
        assert!(!must.is_empty());
        // Driving on, the bodies meet only for onsets between the child entering the band
        // after the vehicle's rear has passed and before its front arrives.
        let enter = (12.0 - 0.795 - 0.25) / 2.5;
        let leave = (12.0 + 0.795 + 0.25) / 2.5;
        let rear = 10.0 + (3.05 + 0.25) / 6.9;
        for t in &must {
            assert!(
                t + enter <= rear + 0.01 && t + leave >= 10.0 - 0.25 / 6.9 - 0.01,
                "{t}"
            );
        }
    }

    /// A tractor 6 m long (along y) and 2.2 m wide, crossing at 3 m/s from 10 m: its body
    /// holds the band for (6 + 1.59)/3 = 2.53 s.
    #[test]
    fn a_machine_holds_the_band_for_its_length_and_the_lane_over_its_speed() {
        let m = Crossing {
            x_m: 70.0,
            y_start_m: -13.0,
            y_end_m: 13.0,
            speed_mps: 3.0,
            body: Body::Boxes(vec![Part {
                x0: -1.1,
                x1: 1.1,
                y0: -3.0,
                y1: 3.0,
            }]),
        };
        let (t0, t1) = m.in_band(0.795).unwrap();
        assert!((t1 - t0 - (6.0 + 1.59) / 3.0).abs() < 1e-9, "{t0} {t1}");
        assert!((t0 - (13.0 - 3.0 - 0.795) / 3.0).abs() < 1e-9);
        // Onset 6.43 s: the vehicle is 6.9 x 3.57 = 24.6 m short of the machine's x. The
        // careful driver needs 6.9 + 19.8 = 26.7 m to stop (more than 24.6 - 1.1) and cannot
        // let a body that holds the band until 12.03 s through; the alert one stops in
        // 3.45 + 15.87 = 19.3 m: grey. Onset 7.3 s (18.6 m short): even the alert driver
        // stops 0.67 m past the machine's x while it still holds the band: unavoidable.
        let e = ego();
        assert_eq!(classify(&e, &m, 10.0 - t0 - 0.5), CaseClass::Grey);
        assert_eq!(classify(&e, &m, 7.3), CaseClass::Unavoidable);
        assert!(!onsets_of(&e, &m, 0.0, 12.0, CaseClass::MustAvoid).is_empty());
    }

    /// Where driving on collides, braking harder never turns an avoided case into a
    /// collision for an actor that stands clear of the band when done: the avoiding
    /// decelerations are those from some least one up (the search tries them all anyway).
    #[test]
    fn avoiding_decelerations_are_an_upper_set() {
        let e = ego();
        for l in [3.0, 5.0, 8.0, 12.0] {
            let c = child(l, 3.0);
            for k in 0..200 {
                let onset = 5.0 + k as f64 * 0.03;
                if !touches(&e, &c, onset, f64::INFINITY, 0.0) {
                    continue;
                }
                let avoid: Vec<bool> = (1..=30)
                    .map(|i| !touches(&e, &c, onset, onset + 1.0, 0.05 * i as f64))
                    .collect();
                if let Some(first) = avoid.iter().position(|a| *a) {
                    assert!(avoid[first..].iter().all(|a| *a), "{l} {onset}: {avoid:?}");
                }
            }
        }
    }
}
