//! Moving actors of the world (docs/formats.md "Actors"): persons, vehicles and objects
//! that follow timed waypoints or drive straight from a start pose, starting at a time or
//! when the ego vehicle comes near a point, and that stop, vanish or loop at the end.
//! The world advances them every physics step; the scan and the collision check see each
//! one where it is at that step.

use crate::plant::world::Obstacle;
use serde::{Deserialize, Serialize};

/// The radius of a person, m (a standing adult seen from above, with arms).
pub const PERSON_RADIUS_M: f64 = 0.3;
/// The radii a person may be given, m: a small child to a person carrying a load.
pub const PERSON_RADIUS_RANGE_M: (f64, f64) = (0.15, 0.5);

/// What an actor is: its shape in its own frame (x along its heading).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ActorKind {
    /// A person: a circle of 0.3 m radius, or the actor's `radius_m`.
    Person,
    /// A vehicle: a box of its length and width, centred on its position.
    Vehicle { length_m: f64, width_m: f64 },
    /// Any shape of the obstacle format, in the actor's frame (its position is the
    /// frame's origin, its heading the frame's x axis).
    Object(Obstacle),
}

/// A waypoint of a timed motion: where the actor is `t_s` after its start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    pub t_s: f64,
    pub x_m: f64,
    pub y_m: f64,
}

/// How an actor moves once started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Motion {
    /// Timed waypoints (times from the start, increasing, the first at 0), straight
    /// between them at constant speed.
    Waypoints(Vec<Waypoint>),
    /// From a pose at a constant speed along the heading for a distance.
    Straight {
        x_m: f64,
        y_m: f64,
        heading_rad: f64,
        speed_mps: f64,
        distance_m: f64,
    },
    /// Standing at a pose (a worker).
    Stand {
        x_m: f64,
        y_m: f64,
        #[serde(default)]
        heading_rad: f64,
    },
}

/// When an actor starts: at a time, or when the ego vehicle comes within a distance or
/// a time of a point (whichever is given; both: the first that holds).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartWhen {
    /// The earliest start, s of simulated time (default 0).
    #[serde(default)]
    pub at_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<Trigger>,
}

/// The ego vehicle within `within_m` of the point, or reaching it within `within_s` at
/// its present speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    pub x_m: f64,
    pub y_m: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_s: Option<f64>,
}

/// What an actor does after its motion ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Stays where it ended.
    #[default]
    Stop,
    /// Leaves the world.
    Vanish,
    /// Starts its motion again.
    Loop,
}

/// One actor of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorSpec {
    #[serde(default)]
    pub name: String,
    pub kind: ActorKind,
    pub motion: Motion,
    #[serde(default)]
    pub start: StartWhen,
    #[serde(default)]
    pub end: End,
    /// A driver who stops for the ego vehicle in its lane (`straight` motion only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yields: Option<Yield>,
    /// A person's radius, m: 0.15 to 0.5 (a child about 0.2); [`PERSON_RADIUS_M`] without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius_m: Option<f64>,
}

/// How a yielding actor drives: once the ego vehicle is ahead in its lane (its width and
/// 0.5 m each side) closer than the two close in an expected 1 s reaction and its stop
/// at `decel_mps2` (at its speed plus the ego's toward it), and `gap_m`, it brakes after
/// its actual `reaction_s` (a distracted driver reacts later than it expects to); it
/// drives on at the same rate when the lane is clear again.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Yield {
    #[serde(default = "default_yield_decel")]
    pub decel_mps2: f64,
    #[serde(default = "default_yield_reaction")]
    pub reaction_s: f64,
    #[serde(default = "default_yield_gap")]
    pub gap_m: f64,
}

/// The reaction a yielding driver plans its braking with, s.
pub const ANTICIPATION_S: f64 = 1.0;

/// A driver's firm braking on a farm lane, m/s².
fn default_yield_decel() -> f64 {
    2.0
}

/// A driver's perception and reaction time, s (the 1 to 1.5 s of road-design practice,
/// its lower end for an expected encounter).
fn default_yield_reaction() -> f64 {
    1.0
}

fn default_yield_gap() -> f64 {
    3.0
}

/// The ego vehicle as the actors see it: its rear-axle pose, speed and body.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EgoView {
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
    pub speed_mps: f64,
    pub front_m: f64,
    pub rear_m: f64,
    pub half_width_m: f64,
}

impl EgoView {
    /// An ego vehicle nowhere (before a vehicle is placed).
    pub fn nowhere() -> EgoView {
        EgoView {
            x_m: f64::INFINITY,
            y_m: f64::INFINITY,
            ..EgoView::default()
        }
    }

    fn corners(&self) -> [(f64, f64); 4] {
        let (s, c) = self.yaw_rad.sin_cos();
        let at = |u: f64, w: f64| (self.x_m + c * u - s * w, self.y_m + s * u + c * w);
        let (f, r, h) = (self.front_m, -self.rear_m, self.half_width_m);
        [at(f, h), at(r, h), at(r, -h), at(f, -h)]
    }
}

/// Where an actor is at an instant: its position, heading and velocity (world frame).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct ActorPose {
    pub x_m: f64,
    pub y_m: f64,
    pub heading_rad: f64,
    pub vx_mps: f64,
    pub vy_mps: f64,
}

impl ActorPose {
    /// The speed, m/s.
    pub fn speed_mps(&self) -> f64 {
        self.vx_mps.hypot(self.vy_mps)
    }
}

impl ActorSpec {
    /// Checks the actor; the message names what is wrong (the caller names the actor).
    pub fn validate(&self) -> Result<(), String> {
        use crate::formats::bounds as b;
        let finite = |k: &str, v: f64| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(format!("`{k}` is not a finite number"))
            }
        };
        finite("start.at_s", self.start.at_s)?;
        if self.start.at_s < 0.0 {
            return Err("`start.at_s` must be 0 or more".into());
        }
        if let Some(t) = &self.start.trigger {
            b::position("start.trigger.x_m", t.x_m)?;
            b::position("start.trigger.y_m", t.y_m)?;
            match (t.within_m, t.within_s) {
                (None, None) => return Err("`start.trigger` needs `within_m` or `within_s`".into()),
                (a, b) => {
                    for (k, v) in [("within_m", a), ("within_s", b)] {
                        if v.is_some_and(|v| !(v.is_finite() && v > 0.0)) {
                            return Err(format!("`start.trigger.{k}` must be a positive number"));
                        }
                    }
                }
            }
        }
        self.validate_kind()?;
        if let Some(y) = &self.yields {
            if !matches!(self.motion, Motion::Straight { .. }) {
                return Err("`yields` needs a `straight` motion".into());
            }
            let ok = |v: f64| v.is_finite() && v >= 0.0;
            if !(ok(y.decel_mps2) && y.decel_mps2 > 0.0 && ok(y.reaction_s) && ok(y.gap_m)) {
                return Err("`yields`: decel_mps2 positive, reaction_s and gap_m 0 or more".into());
            }
        }
        self.validate_motion()
    }

    fn validate_kind(&self) -> Result<(), String> {
        if let Some(r) = self.radius_m {
            if self.kind != ActorKind::Person {
                return Err(
                    "`radius_m` is for a person (a vehicle or an object has its shape)".into(),
                );
            }
            if !(PERSON_RADIUS_RANGE_M.0..=PERSON_RADIUS_RANGE_M.1).contains(&r) {
                return Err(format!(
                    "`radius_m` {r:?} is outside [{}, {}] (a person's radius, m)",
                    PERSON_RADIUS_RANGE_M.0, PERSON_RADIUS_RANGE_M.1
                ));
            }
        }
        match &self.kind {
            ActorKind::Person => Ok(()),
            ActorKind::Vehicle { length_m, width_m } => {
                if [length_m, width_m]
                    .iter()
                    .all(|v| **v > 0.0 && **v <= crate::formats::bounds::MAX_POSITION_M)
                {
                    Ok(())
                } else {
                    Err("`kind.vehicle`: length_m and width_m must be positive".into())
                }
            }
            ActorKind::Object(o) => {
                crate::plant::world::validate_obstacle(o).map_err(|e| format!("`kind.object`: {e}"))
            }
        }
    }

    fn validate_motion(&self) -> Result<(), String> {
        use crate::formats::bounds as b;
        match &self.motion {
            Motion::Waypoints(w) => {
                if w.is_empty() {
                    return Err("`motion.waypoints` has no waypoint".into());
                }
                if w[0].t_s != 0.0 {
                    return Err("`motion.waypoints[0].t_s` must be 0".into());
                }
                for (i, p) in w.iter().enumerate() {
                    if !p.t_s.is_finite() {
                        return Err(format!("`motion.waypoints[{i}]`: not a finite number"));
                    }
                    b::position(&format!("motion.waypoints[{i}].x_m"), p.x_m)?;
                    b::position(&format!("motion.waypoints[{i}].y_m"), p.y_m)?;
                    if i > 0 && p.t_s <= w[i - 1].t_s {
                        return Err(format!("`motion.waypoints[{i}].t_s`: times must increase"));
                    }
                }
                Ok(())
            }
            Motion::Straight {
                x_m,
                y_m,
                heading_rad,
                speed_mps,
                distance_m,
            } => {
                b::position("motion.straight.x_m", *x_m)?;
                b::position("motion.straight.y_m", *y_m)?;
                b::angle_rad("motion.straight.heading_rad", *heading_rad)?;
                if !(speed_mps.is_finite() && *speed_mps > 0.0 && *speed_mps <= 50.0) {
                    return Err("`motion.straight.speed_mps` must be in (0, 50] m/s".into());
                }
                if !(*distance_m > 0.0 && *distance_m <= b::MAX_POSITION_M) {
                    return Err("`motion.straight.distance_m` must be positive".into());
                }
                Ok(())
            }
            Motion::Stand {
                x_m,
                y_m,
                heading_rad,
            } => {
                b::position("motion.stand.x_m", *x_m)?;
                b::position("motion.stand.y_m", *y_m)?;
                b::angle_rad("motion.stand.heading_rad", *heading_rad)?;
                Ok(())
            }
        }
    }

    /// The length of the motion, s (0 for a standing actor).
    fn duration_s(&self) -> f64 {
        match &self.motion {
            Motion::Waypoints(w) => w.last().map_or(0.0, |p| p.t_s),
            Motion::Straight {
                speed_mps,
                distance_m,
                ..
            } => distance_m / speed_mps,
            Motion::Stand { .. } => 0.0,
        }
    }

    /// The pose `t` s into the motion (clamped to its span; the velocity 0 outside it).
    fn pose_into(&self, t: f64) -> ActorPose {
        match &self.motion {
            Motion::Waypoints(w) => {
                let k = w.partition_point(|p| p.t_s <= t).clamp(1, w.len()) - 1;
                let (a, b) = (w[k], w[(k + 1).min(w.len() - 1)]);
                let span = b.t_s - a.t_s;
                let (dx, dy) = (b.x_m - a.x_m, b.y_m - a.y_m);
                let heading = if dx == 0.0 && dy == 0.0 {
                    // Standing still: the heading of the segment before, or east.
                    k.checked_sub(1)
                        .map_or(0.0, |j| (w[k].y_m - w[j].y_m).atan2(w[k].x_m - w[j].x_m))
                } else {
                    dy.atan2(dx)
                };
                if span <= 0.0 || t < 0.0 || t >= b.t_s {
                    let p = if t < 0.0 { w[0] } else { b };
                    return ActorPose {
                        x_m: p.x_m,
                        y_m: p.y_m,
                        heading_rad: heading,
                        ..ActorPose::default()
                    };
                }
                let f = (t - a.t_s) / span;
                ActorPose {
                    x_m: a.x_m + f * dx,
                    y_m: a.y_m + f * dy,
                    heading_rad: heading,
                    vx_mps: dx / span,
                    vy_mps: dy / span,
                }
            }
            Motion::Straight {
                x_m,
                y_m,
                heading_rad,
                speed_mps,
                distance_m,
            } => {
                let moving = (0.0..distance_m / speed_mps).contains(&t);
                let d = (t.max(0.0) * speed_mps).min(*distance_m);
                let v = if moving { *speed_mps } else { 0.0 };
                along((*x_m, *y_m), *heading_rad, d, v)
            }
            Motion::Stand {
                x_m,
                y_m,
                heading_rad,
            } => ActorPose {
                x_m: *x_m,
                y_m: *y_m,
                heading_rad: *heading_rad,
                ..ActorPose::default()
            },
        }
    }

    /// The actor's shape at a pose, as an obstacle of the world frame.
    pub fn shape_at(&self, p: &ActorPose) -> Obstacle {
        match &self.kind {
            ActorKind::Person => Obstacle::Circle {
                x_m: p.x_m,
                y_m: p.y_m,
                radius_m: self.radius_m.unwrap_or(PERSON_RADIUS_M),
            },
            ActorKind::Vehicle { length_m, width_m } => Obstacle::Box {
                x_m: p.x_m,
                y_m: p.y_m,
                half_length_m: length_m / 2.0,
                half_width_m: width_m / 2.0,
                yaw_rad: p.heading_rad,
            },
            ActorKind::Object(o) => o.placed(p.x_m, p.y_m, p.heading_rad),
        }
    }

    /// The kind's name: `person`, `vehicle` or `object`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            ActorKind::Person => "person",
            ActorKind::Vehicle { .. } => "vehicle",
            ActorKind::Object(_) => "object",
        }
    }

    /// The radius of a circle about the actor's position that holds its shape, m.
    pub fn radius_m(&self) -> f64 {
        match &self.kind {
            ActorKind::Person => self.radius_m.unwrap_or(PERSON_RADIUS_M),
            ActorKind::Vehicle { length_m, width_m } => length_m.hypot(*width_m) / 2.0,
            ActorKind::Object(o) => o.reach_from_origin(),
        }
    }
}

/// The pose `d` m along a heading from a start, moving at `v`.
fn along(start: (f64, f64), heading: f64, d: f64, v: f64) -> ActorPose {
    let (s, c) = heading.sin_cos();
    ActorPose {
        x_m: start.0 + c * d,
        y_m: start.1 + s * d,
        heading_rad: heading,
        vx_mps: c * v,
        vy_mps: s * v,
    }
}

/// An actor as it runs: its spec and when it started.
#[derive(Debug, Clone, PartialEq)]
pub struct Actor {
    pub spec: ActorSpec,
    /// The simulated time it started, s (None: waiting).
    pub started_s: Option<f64>,
    /// A yielding actor's distance driven, m, its speed, m/s, and since when it has
    /// seen the ego vehicle in its lane, s.
    driven_m: f64,
    speed_mps: f64,
    seen_since_s: Option<f64>,
    last_t_s: f64,
    /// One of the bridge's `workers`.
    pub worker: bool,
    /// The spec's radius, kept: an object's is found from its outline.
    radius_m: f64,
}

impl Actor {
    /// A waiting actor.
    pub fn new(spec: ActorSpec) -> Actor {
        Actor {
            radius_m: spec.radius_m(),
            spec,
            started_s: None,
            driven_m: 0.0,
            speed_mps: 0.0,
            seen_since_s: None,
            last_t_s: 0.0,
            worker: false,
        }
    }

    /// The radius of a circle about the actor's position that holds its shape, m.
    pub fn radius_m(&self) -> f64 {
        self.radius_m
    }

    /// Starts the actor where its start condition holds at `t_s` with the ego vehicle
    /// at `(x, y)` moving at `speed_mps`.
    pub fn trigger(&mut self, t_s: f64, ego: &EgoView) {
        if self.started_s.is_some() || t_s < self.spec.start.at_s {
            return;
        }
        let go = match &self.spec.start.trigger {
            None => true,
            Some(tr) => {
                let d = (ego.x_m - tr.x_m).hypot(ego.y_m - tr.y_m);
                let v = ego.speed_mps.abs();
                tr.within_m.is_some_and(|w| d <= w)
                    || tr.within_s.is_some_and(|w| v > 0.1 && d / v <= w)
            }
        };
        if go {
            self.started_s = Some(t_s);
            self.last_t_s = t_s;
            if let Motion::Straight { speed_mps, .. } = self.spec.motion {
                self.speed_mps = speed_mps;
            }
        }
    }

    /// Drives a yielding actor on to `t_s`: it brakes `reaction_s` after the ego vehicle
    /// came into its lane within its stop distance, and speeds up again when clear.
    pub fn drive(&mut self, t_s: f64, ego: &EgoView) {
        let (
            Some(y),
            Some(_),
            Motion::Straight {
                x_m,
                y_m,
                heading_rad,
                speed_mps,
                distance_m,
            },
        ) = (self.spec.yields, self.started_s, &self.spec.motion)
        else {
            return;
        };
        let dt = (t_s - self.last_t_s).max(0.0);
        self.last_t_s = t_s;
        let (s, c) = heading_rad.sin_cos();
        let (px, py) = (x_m + c * self.driven_m, y_m + s * self.driven_m);
        let (half_len, half_w) = match self.spec.kind {
            ActorKind::Vehicle { length_m, width_m } => (length_m / 2.0, width_m / 2.0),
            _ => (self.radius_m, self.radius_m),
        };
        let (mut ahead, mut lo, mut hi) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for (ex, ey) in ego.corners() {
            let (dx, dy) = (ex - px, ey - py);
            ahead = ahead.min(c * dx + s * dy);
            let lat = -s * dx + c * dy;
            lo = lo.min(lat);
            hi = hi.max(lat);
        }
        let lane = half_w + 0.5;
        let v = self.speed_mps;
        let gap = ahead - half_len;
        // The two close at its speed and the ego's toward it; it must stop short of where
        // the ego will be after its reaction and its own stop.
        let toward = -(ego.yaw_rad.cos() * c + ego.yaw_rad.sin() * s) * ego.speed_mps;
        let closing = v + toward.max(0.0);
        let in_lane = gap > -half_len && lo <= lane && hi >= -lane;
        let close = in_lane && gap <= closing * (ANTICIPATION_S + v / y.decel_mps2) + y.gap_m;
        // Once it brakes for the ego it stays stopped while the ego is in its lane ahead.
        let was_braking = self.seen_since_s.is_some_and(|t0| t_s - t0 >= y.reaction_s);
        self.seen_since_s = if close || (was_braking && in_lane) {
            self.seen_since_s.or(Some(t_s))
        } else {
            None
        };
        let braking = self.seen_since_s.is_some_and(|t0| t_s - t0 >= y.reaction_s);
        self.speed_mps = if braking {
            (v - y.decel_mps2 * dt).max(0.0)
        } else {
            (v + y.decel_mps2 * dt).min(*speed_mps)
        };
        self.driven_m = (self.driven_m + self.speed_mps * dt).min(*distance_m);
    }

    /// The pose at `t_s`, None once vanished: before its start the actor stands at the
    /// start of its motion.
    pub fn pose(&self, t_s: f64) -> Option<ActorPose> {
        let Some(t0) = self.started_s else {
            return Some(self.spec.pose_into(-1.0));
        };
        if let (
            Some(_),
            Motion::Straight {
                x_m,
                y_m,
                heading_rad,
                distance_m,
                ..
            },
        ) = (self.spec.yields, &self.spec.motion)
        {
            if self.driven_m >= *distance_m && self.spec.end == End::Vanish {
                return None;
            }
            let v = if self.driven_m >= *distance_m {
                0.0
            } else {
                self.speed_mps
            };
            return Some(along((*x_m, *y_m), *heading_rad, self.driven_m, v));
        }
        let dur = self.spec.duration_s();
        let mut t = t_s - t0;
        if t >= dur {
            match self.spec.end {
                End::Stop => {}
                End::Vanish if dur > 0.0 => return None,
                End::Vanish => {}
                End::Loop if dur > 0.0 => t = t.rem_euclid(dur),
                End::Loop => {}
            }
        }
        Some(self.spec.pose_into(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64, y: f64, v: f64) -> EgoView {
        EgoView {
            x_m: x,
            y_m: y,
            speed_mps: v,
            front_m: 2.56,
            rear_m: 0.49,
            half_width_m: 0.795,
            ..EgoView::default()
        }
    }

    fn walker(end: End) -> ActorSpec {
        ActorSpec {
            name: "w".into(),
            kind: ActorKind::Person,
            motion: Motion::Waypoints(vec![
                Waypoint {
                    t_s: 0.0,
                    x_m: 0.0,
                    y_m: -5.0,
                },
                Waypoint {
                    t_s: 5.0,
                    x_m: 0.0,
                    y_m: 2.0,
                },
            ]),
            start: StartWhen {
                at_s: 2.0,
                trigger: None,
            },
            end,
            yields: None,
            radius_m: None,
        }
    }

    #[test]
    fn a_walker_is_where_its_waypoints_say_at_each_time() {
        let mut a = Actor::new(walker(End::Stop));
        a.trigger(1.0, &at(0.0, 0.0, 0.0));
        assert_eq!(a.started_s, None, "not before at_s");
        assert_eq!(a.pose(1.0).unwrap().y_m, -5.0);
        a.trigger(2.0, &at(0.0, 0.0, 0.0));
        let p = a.pose(4.5).unwrap();
        assert!((p.y_m - (-5.0 + 7.0 * 2.5 / 5.0)).abs() < 1e-12, "{p:?}");
        assert!((p.vy_mps - 1.4).abs() < 1e-12 && p.vx_mps == 0.0);
        assert!((p.heading_rad - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        let end = a.pose(100.0).unwrap();
        assert_eq!((end.y_m, end.speed_mps()), (2.0, 0.0));
    }

    #[test]
    fn at_the_end_an_actor_stops_vanishes_or_loops() {
        let mut v = Actor::new(walker(End::Vanish));
        v.trigger(2.0, &at(0.0, 0.0, 0.0));
        assert!(v.pose(6.9).is_some());
        assert!(v.pose(7.0).is_none());
        let mut l = Actor::new(walker(End::Loop));
        l.trigger(2.0, &at(0.0, 0.0, 0.0));
        let p = l.pose(2.0 + 5.0 + 1.0).unwrap();
        assert!((p.y_m - (-5.0 + 1.4)).abs() < 1e-12, "{p:?}");
    }

    #[test]
    fn a_trigger_starts_the_actor_by_distance_or_by_time() {
        let mut s = walker(End::Stop);
        s.start = StartWhen {
            at_s: 0.0,
            trigger: Some(Trigger {
                x_m: 50.0,
                y_m: 0.0,
                within_m: Some(20.0),
                within_s: Some(2.0),
            }),
        };
        let mut a = Actor::new(s.clone());
        a.trigger(0.0, &at(0.0, 0.0, 5.0)); // 50 m, 10 s away
        assert_eq!(a.started_s, None);
        a.trigger(1.0, &at(29.0, 0.0, 5.0)); // 21 m, 4.2 s
        assert_eq!(a.started_s, None);
        a.trigger(2.0, &at(30.0, 0.0, 5.0)); // 20 m
        assert_eq!(a.started_s, Some(2.0));
        let mut b = Actor::new(s);
        b.trigger(3.0, &at(15.0, 0.0, 20.0)); // 35 m at 20 m/s: 1.75 s
        assert_eq!(b.started_s, Some(3.0));
    }

    #[test]
    fn a_straight_motion_drives_its_distance_then_ends() {
        let s = ActorSpec {
            name: "car".into(),
            kind: ActorKind::Vehicle {
                length_m: 3.0,
                width_m: 1.5,
            },
            motion: Motion::Straight {
                x_m: 100.0,
                y_m: 2.0,
                heading_rad: std::f64::consts::PI,
                speed_mps: 4.0,
                distance_m: 40.0,
            },
            start: StartWhen::default(),
            end: End::Stop,
            yields: None,
            radius_m: None,
        };
        let mut a = Actor::new(s);
        a.trigger(0.0, &at(0.0, 0.0, 0.0));
        let p = a.pose(5.0).unwrap();
        assert!((p.x_m - 80.0).abs() < 1e-9 && (p.vx_mps + 4.0).abs() < 1e-12);
        let p = a.pose(11.0).unwrap();
        assert!((p.x_m - 60.0).abs() < 1e-9 && p.speed_mps() == 0.0);
        assert!(
            matches!(a.spec.shape_at(&p), Obstacle::Box { half_length_m, .. } if half_length_m == 1.5)
        );
    }

    #[test]
    fn bad_actors_are_refused_with_the_key() {
        let mut s = walker(End::Stop);
        s.motion = Motion::Waypoints(vec![]);
        assert!(s.validate().unwrap_err().contains("no waypoint"));
        s.motion = Motion::Straight {
            x_m: 0.0,
            y_m: 0.0,
            heading_rad: 0.0,
            speed_mps: -1.0,
            distance_m: 5.0,
        };
        assert!(s.validate().unwrap_err().contains("speed_mps"));
        s.motion = Motion::Waypoints(vec![
            Waypoint {
                t_s: 0.0,
                x_m: 0.0,
                y_m: 0.0,
            },
            Waypoint {
                t_s: f64::NAN,
                x_m: 1.0,
                y_m: 0.0,
            },
        ]);
        assert!(s.validate().unwrap_err().contains("waypoints[1]"));
        s.motion = Motion::Stand {
            x_m: 0.0,
            y_m: 0.0,
            heading_rad: 0.0,
        };
        s.kind = ActorKind::Object(Obstacle::Polygon {
            points: vec![[0.0, 0.0], [1.0, 0.0]],
        });
        assert!(s.validate().unwrap_err().contains("kind.object"));
        s.kind = ActorKind::Person;
        s.start.at_s = f64::INFINITY;
        assert!(s.validate().unwrap_err().contains("at_s"));
    }

    /// A person may be given a radius from 0.15 to 0.5 m (a child 0.2): its shape and
    /// its reach follow it; outside the range, or on a vehicle, it is refused.
    #[test]
    fn a_person_takes_its_own_radius() {
        let mut s = walker(End::Stop);
        assert_eq!(s.radius_m(), PERSON_RADIUS_M);
        s.radius_m = Some(0.2);
        s.validate().unwrap();
        assert_eq!(s.radius_m(), 0.2);
        let p = ActorPose {
            x_m: 1.0,
            y_m: 2.0,
            ..ActorPose::default()
        };
        assert!(matches!(s.shape_at(&p), Obstacle::Circle { radius_m, .. } if radius_m == 0.2));
        for bad in [0.149, 0.501, f64::NAN] {
            s.radius_m = Some(bad);
            assert!(s.validate().unwrap_err().contains("radius_m"), "{bad}");
        }
        s.radius_m = Some(0.2);
        s.kind = ActorKind::Vehicle {
            length_m: 4.0,
            width_m: 2.0,
        };
        assert!(s.validate().unwrap_err().contains("for a person"));
        let json = r#"{"kind": "person", "radius_m": 0.2,
            "motion": {"waypoints": [{"t_s": 0, "x_m": 0, "y_m": 0}]}}"#;
        let parsed: ActorSpec = serde_json::from_str(json).unwrap();
        assert_eq!(parsed.radius_m, Some(0.2));
    }
}
