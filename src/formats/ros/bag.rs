//! A ROS 2 bag (rosbag2, MCAP storage; sqlite3 in [`super::db3`]) read as replay
//! records (docs/formats.md "ROS bags"): the pose and speed of an odometry topic, the scan of a LaserScan topic
//! resampled to the shield's beams, the logged command of the ULC and steering commands,
//! the gear of the gear report; aligned to 50 Hz control steps by their header stamps.
//!
//! Each message is decoded by the definitions its channel's schema carries, or, where a
//! bag carries none, by the definitions shipped in `data/msgs/` (a bag of the vehicle
//! needs no ROS installation to be read).

use super::cdr::{Value, decode_kept, kept_index};
use super::msg::{Defs, normalize};
use crate::chain::shield::Pose;
use crate::chain::{Gear, VehicleState};
use crate::formats::log::{LogError, LoggedCommand, Record};
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

/// The control period the records are aligned to, s (50 Hz).
pub const STEP_S: f64 = 0.02;
/// A gap between two poses longer than this is not interpolated across, s: the control
/// steps inside it are left out (and counted).
pub const GAP_S: f64 = 0.5;
/// How far the stamps of the bag must have passed a control step before it is built, s,
/// so that a scan or a command logged a little after a later pose still counts.
const LAG_S: f64 = 0.25;

/// The topics read, by role (`--topics role=/name,...`).
#[derive(Debug, Clone, PartialEq)]
pub struct Topics {
    /// nav_msgs/Odometry, or geometry_msgs/PoseStamped with the speed from `twist`.
    pub odom: String,
    /// geometry_msgs/TwistStamped: the speed and yaw rate where the pose has no twist.
    pub twist: String,
    /// sensor_msgs/LaserScan.
    pub scan: String,
    /// ds_dbw_msgs/UlcCmd: the logged speed (`cmd` with `cmd_type` 1).
    pub ulc_cmd: String,
    /// ds_dbw_msgs/SteeringCmd: the logged curvature (`cmd` with `cmd_type` 3, or the
    /// curvature of a steering wheel angle with `cmd_type` 2).
    pub steering_cmd: String,
    /// ds_dbw_msgs/GearReport: the gear.
    pub gear_report: String,
    /// Whether each message's time is the bag's log time (`--time log`) rather than its
    /// header stamp (the default; a message without a header always takes its log time).
    pub log_time: bool,
    /// Topics that take the log time though `log_time` is off: those whose header stamps
    /// repeat or go back in more than [`STAMP_FALLBACK_SHARE`] of their messages, as a
    /// first pass over the bag finds ([`read_bag`] sets them).
    pub fallback: Vec<String>,
    /// Whether this reading is that first pass: header stamps counted, nothing decoded or
    /// aligned.
    survey: bool,
}

/// The share of a topic's messages whose header stamps may repeat or go back before the
/// whole topic takes the bag's log time instead: 1 %. A sound clock never repeats a
/// stamp; a driver that stamps whole seconds repeats 49 of every 50.
pub const STAMP_FALLBACK_SHARE: f64 = 0.01;

/// The share of a bag's messages that `replay --strict` lets be dropped for unsound
/// stamps or gaps of the poses: 1 %.
pub const STRICT_DROP_SHARE: f64 = 0.01;

impl Default for Topics {
    fn default() -> Topics {
        Topics {
            odom: "/odom".into(),
            twist: "/vehicle/twist".into(),
            scan: "/scan".into(),
            ulc_cmd: "/vehicle/ulc_cmd".into(),
            steering_cmd: "/vehicle/steering_cmd".into(),
            gear_report: "/vehicle/gear_report".into(),
            log_time: false,
            fallback: Vec::new(),
            survey: false,
        }
    }
}

impl Topics {
    /// The defaults with `role=/name` pairs, comma-separated, put over them.
    pub fn parse(spec: &str) -> Result<Topics, String> {
        let mut t = Topics::default();
        for pair in spec.split(',').filter(|p| !p.trim().is_empty()) {
            let (role, name) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{pair}` is not role=/topic"))?;
            let slot = match role.trim() {
                "odom" => &mut t.odom,
                "twist" => &mut t.twist,
                "scan" => &mut t.scan,
                "ulc_cmd" => &mut t.ulc_cmd,
                "steering_cmd" => &mut t.steering_cmd,
                "gear_report" => &mut t.gear_report,
                r => {
                    return Err(format!(
                        "no topic role `{r}` (odom, twist, scan, ulc_cmd, steering_cmd, gear_report)"
                    ));
                }
            };
            *slot = name.trim().to_string();
        }
        Ok(t)
    }
}

/// What the reading needs of the vehicle: the shield's beam count, and the steering ratio
/// and wheelbase that turn a logged steering wheel angle into a curvature.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vehicle {
    pub beams: usize,
    pub steering_ratio: f64,
    pub wheelbase_m: f64,
}

impl Vehicle {
    /// The vehicle of a configuration.
    pub fn of(config: &crate::config::Config) -> Vehicle {
        Vehicle {
            beams: config.control.corridor.beams as usize,
            steering_ratio: config.control.dbw.steering.ratio,
            wheelbase_m: config.control.vehicle.wheelbase_m,
        }
    }
}

/// The definitions shipped for bags without schemas: ds_dbw_msgs with the fields the
/// bridge documents, and the standard messages the replay reads.
pub fn shipped_defs() -> Defs {
    let mut d = Defs::builtin();
    for (name, text) in SHIPPED {
        d.add(name, text).expect("the shipped definitions parse");
    }
    d
}

const SHIPPED: [(&str, &str); 14] = [
    (
        "geometry_msgs/Point",
        include_str!("../../../data/msgs/geometry_msgs/Point.msg"),
    ),
    (
        "geometry_msgs/Quaternion",
        include_str!("../../../data/msgs/geometry_msgs/Quaternion.msg"),
    ),
    (
        "geometry_msgs/Pose",
        include_str!("../../../data/msgs/geometry_msgs/Pose.msg"),
    ),
    (
        "geometry_msgs/PoseStamped",
        include_str!("../../../data/msgs/geometry_msgs/PoseStamped.msg"),
    ),
    (
        "geometry_msgs/PoseWithCovariance",
        include_str!("../../../data/msgs/geometry_msgs/PoseWithCovariance.msg"),
    ),
    (
        "geometry_msgs/Vector3",
        include_str!("../../../data/msgs/geometry_msgs/Vector3.msg"),
    ),
    (
        "geometry_msgs/Twist",
        include_str!("../../../data/msgs/geometry_msgs/Twist.msg"),
    ),
    (
        "geometry_msgs/TwistStamped",
        include_str!("../../../data/msgs/geometry_msgs/TwistStamped.msg"),
    ),
    (
        "geometry_msgs/TwistWithCovariance",
        include_str!("../../../data/msgs/geometry_msgs/TwistWithCovariance.msg"),
    ),
    (
        "nav_msgs/Odometry",
        include_str!("../../../data/msgs/nav_msgs/Odometry.msg"),
    ),
    (
        "sensor_msgs/LaserScan",
        include_str!("../../../data/msgs/sensor_msgs/LaserScan.msg"),
    ),
    (
        "ds_dbw_msgs/UlcCmd",
        include_str!("../../../data/msgs/ds_dbw_msgs/UlcCmd.msg"),
    ),
    (
        "ds_dbw_msgs/SteeringCmd",
        include_str!("../../../data/msgs/ds_dbw_msgs/SteeringCmd.msg"),
    ),
    (
        "ds_dbw_msgs/GearReport",
        include_str!("../../../data/msgs/ds_dbw_msgs/GearReport.msg"),
    ),
];

/// A LaserScan resampled to `beams` bearings (beam `i` at `i × 360° / beams`
/// counter-clockwise from the body x axis): the nearest return among the rays whose angle
/// rounds to the beam, `None` where none returns. Per REP-117, `+inf` and NaN and ranges
/// beyond `range_max` are no return; `-inf` and finite ranges below `range_min` are an
/// object too close to measure, taken as 0 m (the safe side). Bearings no ray covers
/// (behind a 270° scanner) have no return.
pub fn resample_scan(
    angle_min: f64,
    angle_increment: f64,
    range_min: f64,
    range_max: f64,
    ranges: &[f64],
    beams: usize,
) -> Vec<Option<f64>> {
    let mut out: Vec<Option<f64>> = vec![None; beams];
    let per_rad = beams as f64 / std::f64::consts::TAU;
    for (j, &r) in ranges.iter().enumerate() {
        // The beam the ray's angle rounds to (half away from zero, without a libm call).
        let b = (angle_min + j as f64 * angle_increment) * per_rad;
        if !b.is_finite() {
            continue;
        }
        let b = if b >= 0.0 { b + 0.5 } else { b - 0.5 } as i64;
        let n = beams as i64;
        // Angles within a turn either side need no division.
        let k = match b {
            b if (0..n).contains(&b) => b,
            b if (-n..0).contains(&b) => b + n,
            b if (n..2 * n).contains(&b) => b - n,
            b => b.rem_euclid(n),
        } as usize;
        let d = if r.is_nan() || r == f64::INFINITY || r > range_max {
            continue;
        } else if r == f64::NEG_INFINITY || r < range_min {
            0.0
        } else {
            r
        };
        out[k] = Some(out[k].map_or(d, |o: f64| o.min(d)));
    }
    out
}

/// Stamped values of one topic in stamp order, each with its flags ([`USED`],
/// [`STAMP_FAULT`]), so that a value no step used is counted when it is dropped.
#[derive(Debug)]
struct History<T> {
    q: VecDeque<(f64, T)>,
    flags: VecDeque<u8>,
}

/// A value some control step took.
const USED: u8 = 1;
/// A value whose header stamp repeated or went back.
const STAMP_FAULT: u8 = 2;

/// Messages of the topics read that no control step took, by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Dropped {
    /// Their header stamp repeated or went back (the topic kept its header stamps).
    pub stamp: u64,
    /// They fell inside a gap of the poses, where no step is built.
    pub gap: u64,
    /// Before the first pose or after the last.
    pub outside: u64,
    /// A later message of the topic came before the next step took it (a topic faster
    /// than the 50 Hz steps, or messages bunched): resampling, not a fault.
    pub superseded: u64,
}

impl Dropped {
    /// The drops that are faults of the bag: unsound stamps and gaps.
    pub fn faults(&self) -> u64 {
        self.stamp + self.gap
    }

    fn add(&mut self, o: Dropped) {
        self.stamp += o.stamp;
        self.gap += o.gap;
        self.outside += o.outside;
        self.superseded += o.superseded;
    }
}

/// What the dropping of a value needs to name its cause.
#[derive(Debug, Default)]
struct Drops {
    counts: Dropped,
    /// The latest gaps of the poses (start, end), at most 64.
    gaps: VecDeque<(f64, f64)>,
    t0: f64,
    last_pose: f64,
}

impl Drops {
    /// Counts a value stamped `t` with `flags` leaving its history.
    fn drop(&mut self, t: f64, flags: u8) {
        let c = &mut self.counts;
        if flags & USED != 0 {
        } else if flags & STAMP_FAULT != 0 {
            c.stamp += 1;
        } else if t < self.t0 - 1e-9 || t > self.last_pose + 1e-9 {
            c.outside += 1;
        } else if self.gaps.iter().any(|&(a, b)| a < t && t < b) {
            c.gap += 1;
        } else {
            c.superseded += 1;
        }
    }
}

impl<T> History<T> {
    fn new() -> History<T> {
        History {
            q: VecDeque::new(),
            flags: VecDeque::new(),
        }
    }

    /// Adds a value, in stamp order (a late one is put in its place).
    fn push(&mut self, t: f64, v: T) {
        let k = self
            .q
            .iter()
            .rposition(|(s, _)| *s <= t)
            .map_or(0, |k| k + 1);
        self.q.insert(k, (t, v));
        self.flags.insert(k, 0);
    }

    /// Flags the latest value stamped at or before `t` (the one just pushed at `t`).
    fn flag_last(&mut self, t: f64, flag: u8) {
        if let Some(k) = self.q.iter().rposition(|(s, _)| *s <= t) {
            self.flags[k] |= flag;
        }
    }

    /// The latest value stamped at or before `t`, flagged as used.
    fn at(&mut self, t: f64) -> Option<&(f64, T)> {
        let k = self.q.iter().rposition(|(s, _)| *s <= t + 1e-9)?;
        self.flags[k] |= USED;
        self.q.get(k)
    }

    /// The indices of the values around `t`: the latest at or before it and the first
    /// after it.
    fn around(&self, t: f64) -> (Option<usize>, Option<usize>) {
        let k = self.q.iter().position(|(s, _)| *s > t + 1e-9);
        match k {
            Some(0) => (None, Some(0)),
            Some(k) => (Some(k - 1), Some(k)),
            None => (self.q.len().checked_sub(1), None),
        }
    }

    /// Drops the values no step at or after `t` can use, counting those never used.
    fn prune(&mut self, t: f64, drops: &mut Drops) {
        while self.q.len() > 1 && self.q[1].0 <= t {
            let (s, _) = self.q.pop_front().expect("two values");
            drops.drop(s, self.flags.pop_front().unwrap_or(0));
        }
    }

    /// Drops every value left, counting those never used.
    fn drain(&mut self, drops: &mut Drops) {
        for ((s, _), f) in self.q.drain(..).zip(self.flags.drain(..)) {
            drops.drop(s, f);
        }
    }
}

/// One pose sample of the odometry.
#[derive(Debug, Clone, Copy)]
struct PoseSample {
    x: f64,
    y: f64,
    yaw: f64,
    speed: Option<f64>,
    yaw_rate: Option<f64>,
}

/// What the bag's topics say so far, and the control steps still to build.
struct Aligner {
    vehicle: Vehicle,
    poses: History<PoseSample>,
    twists: History<(f64, f64)>,
    scans: History<Vec<Option<f64>>>,
    speeds: History<f64>,
    curvatures: History<f64>,
    gears: History<Gear>,
    /// The first pose's stamp (the records' t counts from it) and the next step's index.
    t0: Option<f64>,
    next: u64,
    /// The latest stamp seen on any topic.
    watermark: f64,
    /// Control steps left out inside gaps of the poses.
    pub gap_steps: u64,
    /// The number of the first step (a bag's later file goes on from the earlier ones).
    first_step: u64,
    /// The values dropped unused, by cause.
    drops: Drops,
}

/// The yaw of a quaternion (x, y, z, w).
fn yaw_of([x, y, z, w]: [f64; 4]) -> f64 {
    (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z))
}

impl Aligner {
    fn new(vehicle: Vehicle) -> Aligner {
        Aligner {
            vehicle,
            poses: History::new(),
            twists: History::new(),
            scans: History::new(),
            speeds: History::new(),
            curvatures: History::new(),
            gears: History::new(),
            t0: None,
            next: 0,
            watermark: f64::NEG_INFINITY,
            gap_steps: 0,
            first_step: 0,
            drops: Drops::default(),
        }
    }

    /// A steering command of type `kind` as a logged curvature: type 3 is one, type 2 a
    /// steering wheel angle (deg) whose road wheel angle gives one; others are not.
    fn steering(&mut self, t: f64, cmd: f64, kind: f64) {
        match kind as u8 {
            3 => self.curvatures.push(t, cmd),
            2 => {
                let delta = (cmd / self.vehicle.steering_ratio).to_radians();
                self.curvatures
                    .push(t, delta.tan() / self.vehicle.wheelbase_m);
            }
            _ => {}
        }
    }

    /// Every value left unused at the end counted, and the drops by cause.
    fn dropped(&mut self) -> Dropped {
        if let Some(t0) = self.t0 {
            self.drops.t0 = t0;
            self.drops.last_pose = self.poses.q.back().map_or(t0, |p| p.0);
        }
        let (histories, drops) = self.histories();
        for h in histories {
            h.drain_to(drops);
        }
        self.drops.counts
    }

    /// Takes one decoded message of a topic read as `r`, with its time; `fault` where its
    /// header stamp (its time) repeated or went back.
    fn take(&mut self, r: &Reading, v: &[Value], t: f64, fault: bool) -> Result<(), String> {
        self.take_value(r, v, t)?;
        if fault {
            let (histories, _) = self.histories();
            histories[r.role as usize].flag_last_at(t, STAMP_FAULT);
        }
        Ok(())
    }

    /// The histories, in the order of [`Role`], and the drop counts beside them.
    fn histories(&mut self) -> ([&mut dyn Prune; 6], &mut Drops) {
        (
            [
                &mut self.poses,
                &mut self.twists,
                &mut self.scans,
                &mut self.speeds,
                &mut self.curvatures,
                &mut self.gears,
            ],
            &mut self.drops,
        )
    }

    fn take_value(&mut self, r: &Reading, v: &[Value], t: f64) -> Result<(), String> {
        self.watermark = self.watermark.max(t);
        match r.role {
            Role::Odom => {
                let q = [r.num(v, 2)?, r.num(v, 3)?, r.num(v, 4)?, r.num(v, 5)?];
                let s = PoseSample {
                    x: r.num(v, 0)?,
                    y: r.num(v, 1)?,
                    yaw: yaw_of(q),
                    speed: r.opt(v, 6),
                    yaw_rate: r.opt(v, 7),
                };
                self.t0.get_or_insert(t);
                self.poses.push(t, s);
            }
            Role::Twist => self.twists.push(t, (r.num(v, 0)?, r.num(v, 1)?)),
            Role::Scan => {
                let Value::Nums(ranges) = r.get(v, 0)? else {
                    return Err(format!("{}: `ranges` is not an array of numbers", r.ty));
                };
                let scan = resample_scan(
                    r.num(v, 1)?,
                    r.num(v, 2)?,
                    r.num(v, 3)?,
                    r.num(v, 4)?,
                    ranges,
                    self.vehicle.beams,
                );
                self.scans.push(t, scan);
            }
            Role::UlcCmd => {
                if r.num(v, 0)? == 1.0 {
                    self.speeds.push(t, r.num(v, 1)?);
                }
            }
            Role::SteeringCmd => {
                let kind = r.num(v, 0)?;
                self.steering(t, r.num(v, 1)?, kind);
            }
            Role::GearReport => {
                if let Some(g) = Gear::from_number(r.num(v, 0)? as u8) {
                    self.gears.push(t, g);
                }
            }
        }
        Ok(())
    }

    /// The record of the control step at stamp `t`, or None inside a gap of the poses.
    fn record(&mut self, step: u64, t: f64) -> Option<Record> {
        let (a, b) = self.poses.around(t);
        let a = a?;
        let (ta, pa) = self.poses.q[a];
        let b = b.map(|k| (k, self.poses.q[k]));
        let p = match b {
            Some((kb, (tb, pb))) if tb - ta <= GAP_S => {
                self.poses.flags[a] |= USED;
                self.poses.flags[kb] |= USED;
                let f = (t - ta) / (tb - ta);
                let dyaw = (pb.yaw - pa.yaw + std::f64::consts::PI)
                    .rem_euclid(std::f64::consts::TAU)
                    - std::f64::consts::PI;
                PoseSample {
                    x: pa.x + f * (pb.x - pa.x),
                    y: pa.y + f * (pb.y - pa.y),
                    yaw: pa.yaw + f * dyaw,
                    ..pa
                }
            }
            // At a pose's own stamp, or after the last pose: that pose.
            _ if t - ta < 1e-9 => {
                self.poses.flags[a] |= USED;
                pa
            }
            // Inside a gap of the poses: no step.
            _ => return None,
        };
        let twist = self.twists.at(t).map(|x| x.1);
        let speed = p.speed.or(twist.map(|w| w.0)).unwrap_or(0.0);
        let yaw_rate = p.yaw_rate.or(twist.map(|w| w.1)).unwrap_or(0.0);
        let gear = self.gears.at(t).map(|g| g.1).unwrap_or(if speed < 0.0 {
            Gear::Reverse
        } else {
            Gear::High
        });
        let logged = match (self.speeds.at(t), self.curvatures.at(t)) {
            (Some(s), Some(k)) => Some(LoggedCommand {
                speed_mps: s.1,
                curvature_per_m: k.1,
            }),
            _ => None,
        };
        Some(Record {
            step,
            t: t - self.t0.unwrap_or(0.0),
            state: VehicleState {
                pose: Pose {
                    x_m: p.x,
                    y_m: p.y,
                    yaw_rad: p.yaw,
                },
                speed_mps: speed,
                yaw_rate_rps: yaw_rate,
                gear,
                grade: 0.0,
            },
            scan: (self.scans.at(t))
                .map(|s| s.1.iter().map(|r| r.unwrap_or(f64::INFINITY)).collect()),
            logged,
        })
    }

    /// Builds the control steps the stamps have passed (all up to the last pose at the
    /// end) and hands each to `each`.
    fn flush(
        &mut self,
        end: bool,
        each: &mut dyn FnMut(&Record) -> Result<(), LogError>,
    ) -> Result<(), LogError> {
        let Some(t0) = self.t0 else { return Ok(()) };
        let last_pose = self.poses.q.back().map_or(t0, |p| p.0);
        loop {
            let t = t0 + self.next as f64 * STEP_S;
            if t > last_pose + 1e-9 || (!end && t + LAG_S > self.watermark) {
                break;
            }
            let step = self.first_step + self.next;
            self.next += 1;
            match self.record(step, t) {
                Some(r) => each(&r)?,
                None => {
                    // Inside a gap of the poses: every step before the next pose is one,
                    // counted at once (one by one, a pose stamped 2^31 s on took hours).
                    let (ka, kb) = self.poses.around(t);
                    let tb = kb.map(|k| self.poses.q[k].0);
                    if let (Some(ka), Some(tb)) = (ka, tb) {
                        if self.drops.gaps.len() == 64 {
                            self.drops.gaps.pop_front();
                        }
                        self.drops.gaps.push_back((self.poses.q[ka].0, tb));
                    }
                    let resume = tb.map_or(self.next, |tb| {
                        (((tb - 1e-9 - t0) / STEP_S).ceil().max(0.0) as u64).max(self.next)
                    });
                    self.gap_steps += 1 + (resume - self.next);
                    self.next = resume;
                }
            }
            self.drops.t0 = t0;
            self.drops.last_pose = last_pose;
            let (histories, drops) = self.histories();
            for h in histories {
                h.prune_to(t, drops);
            }
        }
        Ok(())
    }
}

/// What the aligner does to every history alike, whatever it holds.
trait Prune {
    fn prune_to(&mut self, t: f64, drops: &mut Drops);
    fn drain_to(&mut self, drops: &mut Drops);
    fn flag_last_at(&mut self, t: f64, flag: u8);
}

impl<T> Prune for History<T> {
    fn prune_to(&mut self, t: f64, drops: &mut Drops) {
        self.prune(t, drops)
    }

    fn drain_to(&mut self, drops: &mut Drops) {
        self.drain(drops)
    }

    fn flag_last_at(&mut self, t: f64, flag: u8) {
        self.flag_last(t, flag)
    }
}

/// A topic's part in the replay (in the order of [`Aligner::histories`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Odom,
    Twist,
    Scan,
    UlcCmd,
    SteeringCmd,
    GearReport,
}

/// What the replay reads of each role's messages: slots of field paths, each with its
/// alternatives (the first the type has is taken: Odometry's `pose.pose`, PoseStamped's
/// `pose`); slots after `required` may be missing.
fn slots(role: Role) -> (&'static [&'static [&'static str]], usize) {
    match role {
        Role::Odom => (
            &[
                &["pose.pose.position.x", "pose.position.x"],
                &["pose.pose.position.y", "pose.position.y"],
                &["pose.pose.orientation.x", "pose.orientation.x"],
                &["pose.pose.orientation.y", "pose.orientation.y"],
                &["pose.pose.orientation.z", "pose.orientation.z"],
                &["pose.pose.orientation.w", "pose.orientation.w"],
                &["twist.twist.linear.x"],
                &["twist.twist.angular.z"],
            ],
            6,
        ),
        Role::Twist => (
            &[
                &["twist.linear.x", "twist.twist.linear.x"],
                &["twist.angular.z", "twist.twist.angular.z"],
            ],
            2,
        ),
        Role::Scan => (
            &[
                &["ranges"],
                &["angle_min"],
                &["angle_increment"],
                &["range_min"],
                &["range_max"],
            ],
            5,
        ),
        Role::UlcCmd | Role::SteeringCmd => (&[&["cmd_type"], &["cmd"]], 2),
        Role::GearReport => (&[&["gear.value", "gear"]], 1),
    }
}

/// A topic the replay reads: its type, definitions (every field the replay does not
/// read marked to be stepped over), role, and the field indices of its header stamp and
/// of each slot of [`slots`], resolved once rather than looked up by name per message.
pub(crate) struct Reading {
    pub ty: String,
    pub defs: Defs,
    role: Role,
    /// The byte offset of the header stamp's seconds in a message's bytes, where every
    /// field before it has a fixed size (the Header first; ROS 1's `seq` before it): the
    /// first pass reads the stamp there without decoding.
    stamp_at: Option<usize>,
    /// Where [`decode_kept`] puts the stamp's seconds and nanoseconds, and each slot.
    stamp_idx: Option<[usize; 2]>,
    /// Whether its messages take the log time (`--time log`, or the first pass found its
    /// stamps unsound), decided once for the topic.
    log_time: bool,
    slot_idx: Vec<Option<usize>>,
}

impl Reading {
    fn new(ty: String, mut defs: Defs, role: Role) -> Reading {
        let stamp = ["header.stamp.sec", "header.stamp.nanosec"].map(|p| defs.resolve(&ty, p));
        let stamp = match stamp {
            [Some(s), Some(n)] => Some([s, n]),
            _ => None,
        };
        let slots: Vec<Option<Vec<usize>>> = slots(role)
            .0
            .iter()
            .map(|alts| alts.iter().find_map(|p| defs.resolve(&ty, p)))
            .collect();
        let stamp_at = stamp.as_ref().and_then(|s| stamp_offset(&defs, &ty, s));
        let mut keep: Vec<&[usize]> = slots.iter().flatten().map(|p| &p[..]).collect();
        keep.extend(stamp.iter().flatten().map(|p| &p[..]));
        defs.keep_only(&ty, &keep);
        let at = |p: &Vec<usize>| kept_index(&defs, &ty, p);
        let stamp_idx = match stamp.as_ref().map(|[s, n]| (at(s), at(n))) {
            Some((Some(s), Some(n))) => Some([s, n]),
            _ => None,
        };
        let slot_idx = slots.iter().map(|p| p.as_ref().and_then(at)).collect();
        Reading {
            ty,
            defs,
            role,
            stamp_at,
            stamp_idx,
            log_time: false,
            slot_idx,
        }
    }

    /// The header stamp at its fixed offset, read without decoding (CDR in either byte
    /// order, or ROS 1); None where the message is too short or the stamp is zero.
    fn quick_stamp(&self, data: &[u8]) -> Option<f64> {
        let at = self.stamp_at?;
        let little = self.defs.is_ros1() || matches!(data.get(1)?, 1 | 3);
        let word = |k: usize| {
            let b: [u8; 4] = data.get(k..k + 4)?.try_into().ok()?;
            Some(if little {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            })
        };
        let (sec, ns) = (word(at)?, word(at + 4)?);
        // ROS 2's seconds are signed, ROS 1's not.
        let sec = if self.defs.is_ros1() {
            f64::from(sec)
        } else {
            f64::from(sec as i32)
        };
        (sec != 0.0 || ns != 0).then(|| sec + f64::from(ns) * 1e-9)
    }

    /// The header stamp of a message decoded by [`decode_kept`], s; None where it has
    /// none or it is zero.
    fn stamp(&self, v: &[Value]) -> Option<f64> {
        let [s, n] = self.stamp_idx?;
        match (v.get(s), v.get(n)) {
            (Some(Value::Num(s)), Some(Value::Num(n))) if *s != 0.0 || *n != 0.0 => {
                Some(s + n * 1e-9)
            }
            _ => None,
        }
    }

    /// The value in slot `k`, or an error naming the type and the field it lacks.
    fn get<'v>(&self, v: &'v [Value], k: usize) -> Result<&'v Value, String> {
        self.slot_idx[k].and_then(|i| v.get(i)).ok_or_else(|| {
            format!(
                "{} has no `{}`",
                self.ty,
                slots(self.role).0[k].join("` or `")
            )
        })
    }

    /// The number in slot `k`, or an error naming the field.
    fn num(&self, v: &[Value], k: usize) -> Result<f64, String> {
        match self.get(v, k)? {
            Value::Num(x) => Ok(*x),
            _ => Err(format!(
                "{}: `{}` is not a number",
                self.ty,
                slots(self.role).0[k][0]
            )),
        }
    }

    /// The number in slot `k` where the type has it.
    fn opt(&self, v: &[Value], k: usize) -> Option<f64> {
        match self.get(v, k) {
            Ok(Value::Num(x)) => Some(*x),
            _ => None,
        }
    }
}

/// The byte offset of a header stamp's seconds (`stamp` its field indices, `[0, j, 0]`
/// and `[0, j, 1]`) where the Header is the first field and its fields before the stamp
/// and the stamp's own are 4-byte numbers: 4 in CDR (after the encapsulation header) and
/// in ROS 1 (after `seq`).
fn stamp_offset(defs: &Defs, ty: &str, stamp: &[Vec<usize>; 2]) -> Option<usize> {
    let four = |f: &super::msg::Field| {
        f.count == super::msg::Count::One
            && matches!(f.ty, super::msg::Type::Prim(p) if p.size() == 4 && p != super::msg::Prim::Str)
    };
    let [s, n] = stamp;
    if s.len() != 3 || s[0] != 0 || s[2] != 0 || n[..2] != s[..2] || n[2] != 1 {
        return None;
    }
    let header = defs.fields(ty).ok()?.first()?.target?;
    let fields = defs.at(header);
    let time = defs.at(fields.get(s[1])?.target?);
    if !fields[..s[1]].iter().all(four) || !time.iter().take(2).all(four) {
        return None;
    }
    let body = if defs.is_ros1() { 0 } else { 4 };
    Some(body + 4 * s[1])
}

/// How a topic is read (None for a topic the replay does not read), from its type name
/// and, where the bag has it, its definition text (`ros2msg`, or a ROS 1 connection's
/// where `fallback` is ROS 1's); every topic is listed in `channels`.
pub(crate) fn topic_defs(
    topic: &str,
    type_name: &str,
    definition: Option<&[u8]>,
    topics: &Topics,
    fallback: &Defs,
    channels: &mut Vec<(String, String)>,
) -> Option<Reading> {
    let ty = normalize(type_name);
    channels.push((topic.to_string(), ty.clone()));
    let role = [
        (&topics.odom, Role::Odom),
        (&topics.twist, Role::Twist),
        (&topics.scan, Role::Scan),
        (&topics.ulc_cmd, Role::UlcCmd),
        (&topics.steering_cmd, Role::SteeringCmd),
        (&topics.gear_report, Role::GearReport),
    ]
    .into_iter()
    .find(|(name, _)| *name == topic)?
    .1;
    let defs = match definition.filter(|d| !d.is_empty()) {
        // A definition that does not parse leaves the shipped ones, which name the type
        // they lack when a message is decoded.
        Some(d) => {
            let text = String::from_utf8_lossy(d);
            let parsed = if fallback.is_ros1() {
                Defs::from_schema_over(Defs::builtin_ros1(), &ty, &text)
            } else {
                Defs::from_schema(&ty, &text)
            };
            parsed.unwrap_or_else(|_| fallback.clone())
        }
        None => fallback.clone(),
    };
    let mut r = Reading::new(ty, defs, role);
    r.log_time = topics.log_time || topics.fallback.iter().any(|f| f == topic);
    Some(r)
}

/// The messages of a bag on their way to control steps: each decoded, aligned, and the
/// steps the stamps have passed handed on.
pub(crate) struct Feed<'a, F> {
    pub file: &'a str,
    pub topics: &'a Topics,
    al: Aligner,
    messages: u64,
    each: F,
    /// Per topic: its latest header stamp, the messages whose stamp repeated or went
    /// back, and the messages with a stamp.
    stamps: HashMap<String, (f64, u64, u64)>,
    /// rosbag2's message compression: the zstd context, made at the first compressed
    /// message, and the bytes of the message it unpacked last.
    zstd: Option<zstd::bulk::Decompressor<'static>>,
    unpacked: Vec<u8>,
    /// The values of the message decoded last ([`decode_kept`]), its space reused.
    vals: Vec<Value>,
}

/// The first bytes of a zstd frame (a CDR message starts with 00).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Unpacks one zstd-compressed message (rosbag2's `compression_mode: message`) into
/// `out`, refusing one that would unpack to more than [`MAX_UNPACKED_BYTES`].
fn unzstd(
    dec: &mut Option<zstd::bulk::Decompressor<'static>>,
    out: &mut Vec<u8>,
    data: &[u8],
) -> Result<(), String> {
    use crate::formats::bounds::MAX_UNPACKED_BYTES;
    let bad = |e: &dyn std::fmt::Display| format!("a bad zstd-compressed message: {e}");
    let size = zstd::zstd_safe::get_frame_content_size(data).map_err(|e| bad(&format!("{e:?}")))?;
    let Some(size) = size else {
        // A frame that states no size: streamed, at most the bound and one byte more,
        // rather than a buffer of the whole bound made ready for it.
        use std::io::Read;
        out.clear();
        let d = zstd::stream::read::Decoder::new(data).map_err(|e| bad(&e))?;
        d.take(MAX_UNPACKED_BYTES as u64 + 1)
            .read_to_end(out)
            .map_err(|e| bad(&e))?;
        if out.len() > MAX_UNPACKED_BYTES {
            return Err(format!(
                "a zstd-compressed message of {} bytes unpacks to more than the \
                 {MAX_UNPACKED_BYTES} read",
                data.len()
            ));
        }
        return Ok(());
    };
    if size > MAX_UNPACKED_BYTES as u64 {
        return Err(format!(
            "a zstd-compressed message of {} bytes says it unpacks to {size}, more than the \
             {MAX_UNPACKED_BYTES} read",
            data.len()
        ));
    }
    let dec = match dec {
        Some(d) => d,
        None => dec.insert(zstd::bulk::Decompressor::new().map_err(|e| bad(&e))?),
    };
    out.clear();
    out.reserve(size as usize);
    dec.decompress_to_buffer(data, out).map_err(|e| bad(&e))?;
    Ok(())
}

impl<'a, F: FnMut(&Record) -> Result<(), LogError>> Feed<'a, F> {
    pub fn new(
        file: &'a str,
        topics: &'a Topics,
        vehicle: Vehicle,
        first_step: u64,
        each: F,
    ) -> Self {
        let mut al = Aligner::new(vehicle);
        al.first_step = first_step;
        Feed {
            file,
            topics,
            al,
            messages: 0,
            each,
            stamps: HashMap::default(),
            zstd: None,
            unpacked: Vec::new(),
            vals: Vec::new(),
        }
    }

    pub fn err(&self, message: String) -> LogError {
        LogError::File {
            file: self.file.to_string(),
            message,
        }
    }

    /// One message of `topic` (type `ty`; `data` in CDR, or zstd-compressed CDR, or
    /// ROS 1's serialization where `defs` are ROS 1's); `place` names it in errors.
    pub fn message(
        &mut self,
        topic: &str,
        r: &Reading,
        data: &[u8],
        log_time_ns: u64,
        place: impl Fn() -> String,
    ) -> Result<(), LogError> {
        if self.topics.survey {
            return self.survey(topic, r, data);
        }
        let (ty, defs) = (r.ty.as_str(), &r.defs);
        let ros1 = defs.is_ros1();
        let decoded = if !ros1 && data.starts_with(&ZSTD_MAGIC) {
            unzstd(&mut self.zstd, &mut self.unpacked, data)
                .map_err(|e| self.err(format!("{}: {e}", place())))?;
            decode_kept(defs, ty, &self.unpacked, false, &mut self.vals)
        } else {
            decode_kept(defs, ty, data, ros1, &mut self.vals)
        };
        decoded.map_err(|e| self.err(format!("{}: {e}", place())))?;
        let header = r.stamp(&self.vals);
        let back = header.is_some_and(|h| self.count_stamp(topic, h));
        let header_time = !r.log_time;
        let t = match header {
            Some(h) if header_time => h,
            _ => log_time_ns as f64 * 1e-9,
        };
        self.al
            .take(r, &self.vals, t, back && header_time)
            .map_err(|e| self.err(format!("{}: {e}", place())))?;
        self.messages += 1;
        self.flush(false)
    }

    /// Counts a header stamp of `topic`; whether it repeats or goes back.
    fn count_stamp(&mut self, topic: &str, h: f64) -> bool {
        // One lookup a message; the topic's name is copied only the first time.
        match self.stamps.get_mut(topic) {
            Some(s) => {
                let back = h <= s.0;
                s.1 += u64::from(back);
                s.0 = s.0.max(h);
                s.2 += 1;
                back
            }
            None => {
                self.stamps.insert(topic.to_string(), (h, 0, 1));
                false
            }
        }
    }

    /// The first pass: a message's header stamp counted, read at its offset where it has
    /// one (else decoded), nothing aligned.
    fn survey(&mut self, topic: &str, r: &Reading, data: &[u8]) -> Result<(), LogError> {
        let data = if !r.defs.is_ros1() && data.starts_with(&ZSTD_MAGIC) {
            if unzstd(&mut self.zstd, &mut self.unpacked, data).is_err() {
                return Ok(()); // the second pass names it
            }
            &self.unpacked[..]
        } else {
            data
        };
        let h = match r.stamp_at {
            Some(_) => r.quick_stamp(data),
            None => decode_kept(&r.defs, &r.ty, data, r.defs.is_ros1(), &mut self.vals)
                .ok()
                .and_then(|_| r.stamp(&self.vals)),
        };
        if let Some(h) = h {
            self.count_stamp(topic, h);
        }
        self.messages += 1;
        Ok(())
    }

    /// Hands the steps the stamps have passed to `each`, each checked against the bounds
    /// of docs/formats.md "Bounds" (a bag's numbers are refused as a log's are, naming the
    /// step).
    fn flush(&mut self, end: bool) -> Result<(), LogError> {
        let (file, each) = (self.file, &mut self.each);
        self.al.flush(end, &mut |r: &Record| {
            r.check_bounds().map_err(|message| LogError::Line {
                file: file.to_string(),
                line: r.step,
                message,
            })?;
            each(r)
        })
    }

    /// A pose in the library's frame at `t`, with the speed and yaw rate.
    pub fn pose(&mut self, t: f64, pose: Pose, speed: f64, yaw_rate: f64) -> Result<(), LogError> {
        let s = PoseSample {
            x: pose.x_m,
            y: pose.y_m,
            yaw: pose.yaw_rad,
            speed: Some(speed),
            yaw_rate: Some(yaw_rate),
        };
        self.al.t0.get_or_insert(t);
        self.al.poses.push(t, s);
        self.pushed(t)
    }

    /// The command and the gear a report logs at `t`: the speed, the steering command
    /// (`cmd`, `cmd_type`) and the gear, each where the report has it.
    pub fn report(
        &mut self,
        t: f64,
        speed: Option<f64>,
        steering: Option<(f64, f64)>,
        gear: Option<Gear>,
    ) -> Result<(), LogError> {
        if let Some(v) = speed {
            self.al.speeds.push(t, v);
        }
        if let Some((cmd, kind)) = steering {
            self.al.steering(t, cmd, kind);
        }
        if let Some(g) = gear {
            self.al.gears.push(t, g);
        }
        self.pushed(t)
    }

    fn pushed(&mut self, t: f64) -> Result<(), LogError> {
        self.al.watermark = self.al.watermark.max(t);
        self.messages += 1;
        self.flush(false)
    }

    /// The last steps, and what the reading found; a bag without the odometry is an error
    /// naming the topics it has.
    pub fn finish(mut self, channels: Vec<(String, String)>) -> Result<BagInfo, LogError> {
        if self.topics.survey {
            return Ok(BagInfo {
                messages: self.messages,
                stamps: self.stamp_counts(),
                ..BagInfo::default()
            });
        }
        if self.al.t0.is_none() {
            let list: Vec<String> = channels
                .iter()
                .map(|(t, ty)| format!("{t} ({ty})"))
                .collect();
            let has = if list.is_empty() {
                "no topics".into()
            } else {
                list.join(", ")
            };
            return Err(self.err(format!(
                "no message on the odometry topic {} (the bag has: {has}); name it with --topics odom=/topic",
                self.topics.odom
            )));
        }
        self.flush(true)?;
        Ok(BagInfo {
            messages: self.messages,
            steps: self.al.next,
            gap_steps: self.al.gap_steps,
            channels,
            warnings: self.stamp_warnings(),
            stamps: self.stamp_counts(),
            dropped: self.al.dropped(),
        })
    }

    /// Per topic with header stamps: the messages whose stamp repeats or goes back, and
    /// the messages with a stamp.
    fn stamp_counts(&self) -> Vec<(String, u64, u64)> {
        let mut v: Vec<_> = self
            .stamps
            .iter()
            .map(|(t, &(_, back, total))| (t.clone(), back, total))
            .collect();
        v.sort();
        v
    }

    /// A warning for each topic some of whose header stamps repeat or go back (a driver
    /// that stamps whole seconds, a clock that jumped): such messages fall on the same
    /// instant, and steps between them are lost.
    fn stamp_warnings(&self) -> Vec<String> {
        let mut w: Vec<String> = self
            .stamps
            .iter()
            .filter(|(_, s)| s.1 > 0)
            .map(|(topic, &(_, back, total))| {
                let share = 100.0 * STAMP_FALLBACK_SHARE;
                let what = if self.topics.log_time {
                    "(the log time was used: --time log)".to_string()
                } else if self.topics.fallback.iter().any(|f| f == topic) {
                    format!(
                        "(more than {share} %: the whole topic took the bag's log time \
                         instead)"
                    )
                } else {
                    format!(
                        "(at most {share} %: the header stamps were kept; --time log takes \
                         the bag's log time instead)"
                    )
                };
                format!(
                    "{}: {back} of {total} messages of {topic} repeat or go back in their \
                     header stamp {what}",
                    self.file
                )
            })
            .collect();
        w.sort();
        w
    }
}

/// What a bag's reading found besides the records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BagInfo {
    /// Messages read of the topics used.
    pub messages: u64,
    /// Control steps, those left out in gaps included.
    pub steps: u64,
    /// Control steps left out inside gaps of the poses (longer than [`GAP_S`]).
    pub gap_steps: u64,
    /// Topic → message type, of every channel of the bag.
    pub channels: Vec<(String, String)>,
    /// What the reader assumed of an unfinished recording (no `metadata.yaml`, an MCAP
    /// cut off inside a record), for the command to say.
    pub warnings: Vec<String>,
    /// Per topic with header stamps (in name order): the messages whose stamp repeats or
    /// goes back, and the messages with a stamp.
    pub stamps: Vec<(String, u64, u64)>,
    /// Messages of the topics read that no control step took, by cause.
    pub dropped: Dropped,
}

/// Reads an MCAP bag's bytes (`file` names it in errors) and hands each control step's
/// record to `each`. A bag without the odometry topic, or with a message that does not
/// decode, is an error naming the topic and the message's place in the file.
pub fn read_mcap(
    file: &str,
    bytes: &[u8],
    topics: &Topics,
    vehicle: Vehicle,
    mut each: impl FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    read_mcap_from(file, bytes, topics, vehicle, 0, &mut each)
}

/// [`read_mcap`] with the steps numbered from `first_step` (a bag of several files).
fn read_mcap_from(
    file: &str,
    bytes: &[u8],
    topics: &Topics,
    vehicle: Vehicle,
    first_step: u64,
    each: impl FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    let mut feed = Feed::new(file, topics, vehicle, first_step, each);
    if !bytes.starts_with(mcap::MAGIC) {
        return Err(feed.err("not an MCAP file: bad magic number".into()));
    }
    let fallback = shipped_defs();
    let mut schemas: HashMap<u16, (String, String, Vec<u8>)> = HashMap::default();
    let mut chans: HashMap<u16, (String, String, u16)> = HashMap::default();
    let mut defs_of: HashMap<u16, Option<Reading>> = HashMap::default();
    let mut channels = Vec::new();
    // The records one by one (chunks decompressed by the reader), each record's strings
    // checked against its length before the mcap crate parses it.
    let mut reader = mcap::sans_io::LinearReader::new();
    let (mut fed, mut k) = (0usize, 0usize);
    let bad = |k: usize, e: &dyn std::fmt::Display| {
        format!("after message {k}: a bad or truncated MCAP: {e}")
    };
    let mut cut = None;
    while let Some(ev) = reader.next_event() {
        let ev = match ev {
            // The file ends inside a record (a recording that never finished, its last
            // chunk half written): what came before it is whole, and is read.
            Err(e) if fed == bytes.len() && k > 0 => {
                cut = Some(format!(
                    "{file}: ends inside a record after message {k} ({e}; a recording that \
                     never finished?): read up to there"
                ));
                break;
            }
            ev => ev,
        };
        let (opcode, body) = match ev.map_err(|e| feed.err(bad(k, &e)))? {
            mcap::sans_io::LinearReadEvent::ReadRequest(n) => {
                let n = n.min(bytes.len() - fed);
                reader.insert(n).copy_from_slice(&bytes[fed..fed + n]);
                reader.notify_read(n);
                fed += n;
                continue;
            }
            mcap::sans_io::LinearReadEvent::Record { opcode, data } => (opcode, data),
        };
        if ![
            mcap::records::op::SCHEMA,
            mcap::records::op::CHANNEL,
            mcap::records::op::MESSAGE,
        ]
        .contains(&opcode)
        {
            continue;
        }
        strings_fit(opcode, body).map_err(|e| feed.err(bad(k, &e)))?;
        let record = mcap::parse_record(opcode, body).map_err(|e| feed.err(bad(k, &e)))?;
        let (header, data) = match record {
            mcap::records::Record::Schema { header, data } => {
                schemas.insert(header.id, (header.name, header.encoding, data.into_owned()));
                continue;
            }
            mcap::records::Record::Channel(c) => {
                chans.insert(c.id, (c.topic, c.message_encoding, c.schema_id));
                continue;
            }
            mcap::records::Record::Message { header, data } => (header, data),
            _ => continue,
        };
        let Some((topic, encoding, schema_id)) = chans.get(&header.channel_id) else {
            let e = format!(
                "a message of channel {} before its channel",
                header.channel_id
            );
            return Err(feed.err(bad(k, &e)));
        };
        let entry = defs_of.entry(header.channel_id).or_insert_with(|| {
            let (name, enc, text) = schemas.get(schema_id)?;
            let def = (enc == "ros2msg").then_some(&text[..]);
            topic_defs(topic, name, def, topics, &fallback, &mut channels)
        });
        let this = k;
        k += 1;
        let Some(reading) = entry else { continue };
        let place = || {
            format!(
                "topic {topic} message {this} (log time {} ns)",
                header.log_time
            )
        };
        if encoding != "cdr" {
            let e = format!("{}: encoding `{encoding}`, not cdr", place());
            return Err(feed.err(e));
        }
        feed.message(topic, reading, &data, header.log_time, place)?;
    }
    let mut info = feed.finish(channels)?;
    info.warnings.extend(cut);
    Ok(info)
}

/// Whether the strings of a Schema or Channel record fit in its body: the mcap crate
/// allocates a string's stated length before reading it (a schema name of length
/// `ffffffff` asked for 4 GiB).
fn strings_fit(opcode: u8, body: &[u8]) -> Result<(), String> {
    let len_at = |at: usize| {
        body.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| format!("a record of {} bytes is cut short", body.len()))
    };
    // Steps over a length-prefixed field that must end by `end`.
    let field = |at: &mut usize, end: usize, what: &str| -> Result<(), String> {
        let n = len_at(*at)?;
        if n > end.saturating_sub(*at + 4) {
            return Err(format!("{what} of {n} bytes is longer than its record"));
        }
        *at += 4 + n;
        Ok(())
    };
    if opcode == mcap::records::op::SCHEMA {
        let mut at = 2;
        field(&mut at, body.len(), "a schema name")?;
        field(&mut at, body.len(), "a schema encoding")?;
    } else if opcode == mcap::records::op::CHANNEL {
        let mut at = 4;
        field(&mut at, body.len(), "a channel topic")?;
        field(&mut at, body.len(), "a message encoding")?;
        let map_end = at + 4 + len_at(at)?;
        if map_end > body.len() {
            return Err("a channel's metadata is longer than its record".into());
        }
        at += 4;
        while at < map_end {
            field(&mut at, map_end, "a metadata key")?;
            field(&mut at, map_end, "a metadata value")?;
        }
    }
    Ok(())
}

impl BagInfo {
    /// Adds what another file of the bag found.
    fn add(&mut self, other: BagInfo) {
        self.messages += other.messages;
        self.steps += other.steps;
        self.gap_steps += other.gap_steps;
        self.channels.extend(other.channels);
        self.warnings.extend(other.warnings);
        self.dropped.add(other.dropped);
        for (topic, back, total) in other.stamps {
            match self.stamps.iter_mut().find(|s| s.0 == topic) {
                Some(s) => (s.1, s.2) = (s.1 + back, s.2 + total),
                None => self.stamps.push((topic, back, total)),
            }
        }
    }

    /// The topics whose header stamps repeat or go back in more than
    /// [`STAMP_FALLBACK_SHARE`] of their messages.
    pub fn unsound_stamps(&self) -> Vec<String> {
        self.stamps
            .iter()
            .filter(|(_, back, total)| *back as f64 > STAMP_FALLBACK_SHARE * *total as f64)
            .map(|s| s.0.clone())
            .collect()
    }
}

/// Whether a log path is a ROS bag: an `.mcap`, `.db3` or `.bag` file (or one compressed
/// whole, `.mcap.zstd`), a file that starts as a ROS 1 bag does, or a bag's folder (with
/// its `metadata.yaml`, or, from a recording that never finished, without it but with
/// its storage files).
pub fn is_bag(path: &std::path::Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    ["mcap", "db3", "bag"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e))
        || zstd_inner(path).is_some()
        || path.join("metadata.yaml").is_file()
        || path.is_dir() && !storage_files(path).unwrap_or_default().is_empty()
        || path.is_file() && starts_with(path, super::bag1::MAGIC)
}

/// Whether a file's first bytes are `magic`.
fn starts_with(path: &std::path::Path, magic: &[u8]) -> bool {
    let mut head = vec![0; magic.len()];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|_| head == magic)
}

/// The storage kind (`mcap`, `db3`) of a file that rosbag2 compressed whole
/// (`compression_mode: file`): `x.mcap.zstd` → `mcap`.
fn zstd_inner(path: &std::path::Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".zstd")?;
    ["mcap", "db3"]
        .into_iter()
        .find(|k| stem.ends_with(&format!(".{k}")))
}

/// The storage files (`.mcap`, `.db3`, each perhaps `.zstd`) of a bag's folder, in name
/// order.
fn storage_files(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut v: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "mcap" || e == "db3") || zstd_inner(p).is_some()
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Refuses a bag folder whose `metadata.yaml` names a compression other than zstd (the
/// only one rosbag2 ships); zstd, by file or by message, is read wherever it is met.
fn check_compression(dir: &std::path::Path) -> Result<(), String> {
    let meta = dir.join("metadata.yaml");
    let Ok(text) = std::fs::read_to_string(&meta) else {
        return Ok(());
    };
    let docs = yaml_rust2::YamlLoader::load_from_str(&text)
        .map_err(|e| format!("{}: not YAML: {e}", meta.display()))?;
    let info = docs.first().map(|d| &d["rosbag2_bagfile_information"]);
    let format = info
        .and_then(|i| i["compression_format"].as_str())
        .unwrap_or("");
    if !format.is_empty() && format != "zstd" {
        return Err(format!(
            "{}: compression_format `{format}` is not read (zstd is)",
            meta.display()
        ));
    }
    Ok(())
}

/// Reads a bag and hands each control step's record to `each`: a ROS 2 bag (an `.mcap`
/// or `.db3` file, or a bag's folder of them in name order, zstd-compressed by file or
/// by message or not) or a ROS 1 bag (`.bag`). MCAP and ROS 1 files are mapped, not read
/// into memory; sqlite3 files are streamed by their queries; a file compressed whole is
/// unpacked to a temporary file first.
pub fn read_bag(
    path: &std::path::Path,
    topics: &Topics,
    vehicle: Vehicle,
    mut each: impl FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    let file = path.display().to_string();
    let ferr = |message: String| LogError::File {
        file: file.clone(),
        message,
    };
    let files: Vec<std::path::PathBuf> = if path.is_dir() {
        check_compression(path).map_err(ferr)?;
        storage_files(path).map_err(|e| LogError::Io(e, file.clone()))?
    } else {
        vec![path.to_path_buf()]
    };
    if files.is_empty() {
        return Err(ferr("a bag folder without .mcap or .db3 files".into()));
    }
    // The first pass: which topics' stamps are unsound, so that each such topic takes the
    // log time as a whole, never message by message.
    let mut topics = topics.clone();
    if !topics.log_time {
        let survey = Topics {
            survey: true,
            ..topics.clone()
        };
        let s = read_files(&files, &survey, vehicle, &mut |_| Ok(()))?;
        topics.fallback = s.unsound_stamps();
    }
    let mut info = BagInfo::default();
    if path.is_dir() && !path.join("metadata.yaml").is_file() {
        info.warnings.push(format!(
            "{file}: no metadata.yaml (a recording that never finished?): its {} storage \
             file(s) are read in name order, as `ros2 bag reindex` would list them",
            files.len()
        ));
    }
    info.add(read_files(&files, &topics, vehicle, &mut each)?);
    Ok(info)
}

/// The storage files of a bag, one after the other, the steps numbered on.
fn read_files(
    files: &[std::path::PathBuf],
    topics: &Topics,
    vehicle: Vehicle,
    each: &mut dyn FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    let mut info = BagInfo::default();
    let mut step = 0u64;
    for f in files {
        let name = f.display().to_string();
        let i = match zstd_inner(f) {
            Some(kind) => {
                let unpacked = unzstd_file(f, kind)?;
                read_file(unpacked.path(), &name, topics, vehicle, step, each)?
            }
            None => read_file(f, &name, topics, vehicle, step, each)?,
        };
        step += i.steps;
        info.add(i);
    }
    Ok(info)
}

/// A storage file compressed whole by rosbag2 (`x.mcap.zstd`), unpacked into a temporary
/// file of its kind (sqlite3 reads only files), removed when dropped.
fn unzstd_file(f: &std::path::Path, kind: &str) -> Result<tempfile::NamedTempFile, LogError> {
    let name = f.display().to_string();
    let io = |e: std::io::Error| LogError::Io(e, name.clone());
    let mut out = tempfile::Builder::new()
        .prefix("acres-bag-")
        .suffix(&format!(".{kind}"))
        .tempfile()
        .map_err(io)?;
    let src = std::fs::File::open(f).map_err(io)?;
    zstd::stream::copy_decode(src, out.as_file_mut()).map_err(|e| LogError::File {
        file: name.clone(),
        message: format!("a bad zstd file: {e}"),
    })?;
    Ok(out)
}

/// One storage file at `f` (`name` names it in errors): sqlite3 by its extension, ROS 1
/// by its first line, MCAP otherwise.
fn read_file(
    f: &std::path::Path,
    name: &str,
    topics: &Topics,
    vehicle: Vehicle,
    step: u64,
    each: &mut dyn FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    if f.extension().is_some_and(|e| e == "db3") {
        return read_db3_noting_journal(f, name, topics, vehicle, step, each);
    }
    let fh = std::fs::File::open(f).map_err(|e| LogError::Io(e, name.to_string()))?;
    // SAFETY: the file is only read; a bag changed by another program while it is
    // replayed can give wrong records, as reading it in pieces could.
    let map = unsafe { memmap2::Mmap::map(&fh) }.map_err(|e| LogError::Io(e, name.to_string()))?;
    if map.starts_with(b"#ROSBAG") {
        super::bag1::read_bag1(name, &map, topics, vehicle, step, each)
    } else {
        read_mcap_from(name, &map, topics, vehicle, step, each)
    }
}

/// A `.db3` file, with a rollback journal beside it named: the writer stopped inside a
/// transaction, and sqlite3 reads the file as of its last commit.
fn read_db3_noting_journal(
    f: &std::path::Path,
    name: &str,
    topics: &Topics,
    vehicle: Vehicle,
    step: u64,
    each: &mut dyn FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    let journal = std::path::PathBuf::from(format!("{}-journal", f.display()));
    let hot = journal.is_file().then(|| {
        format!(
            "a rollback journal lies beside it ({}): the writer stopped before it \
             committed (a recording that never finished?), and only what it had \
             committed is read",
            journal.display()
        )
    });
    let mut i =
        super::db3::read_db3(f, name, topics, vehicle, step, each).map_err(|e| match &hot {
            Some(h) => e.noted(h),
            None => e,
        })?;
    i.warnings.extend(hot.map(|h| format!("{name}: {h}")));
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 720 rays from −135° to 135° onto 360 beams: every beam ahead and to the sides gets
    /// its nearest ray, the 90° behind none; NaN and +inf are no return, −inf and a range
    /// below range_min are 0 m, beyond range_max no return.
    #[test]
    fn a_720_ray_scan_of_270_degrees_resamples_to_the_nearest_return_per_beam() {
        let (n, a0, a1) = (720, (-135f64).to_radians(), 135f64.to_radians());
        let inc = (a1 - a0) / (n - 1) as f64;
        let mut r: Vec<f64> = (0..n).map(|j| 10.0 + j as f64 * 0.01).collect();
        r[0] = f64::NAN;
        r[719] = f64::NEG_INFINITY;
        r[360] = f64::INFINITY; // at +0.19°: beam 0 keeps its other ray
        r[400] = 0.05; // below range_min
        r[500] = 50.0; // beyond range_max
        let s = resample_scan(a0, inc, 0.1, 40.0, &r, 360);
        let covered = s.iter().filter(|b| b.is_some()).count();
        // Beams at −135° … 135°: 271 bearings; 225° … 315° behind are unseen.
        assert_eq!(covered, 271, "{covered}"); // beam 225 (−135°) keeps ray 1 beside the NaN
        assert!(s[180].is_none() && s[200].is_none());
        // Beam 0: rays 359 (−0.19°) and 360 (inf): the finite one.
        assert_eq!(s[0], Some(10.0 + 359.0 * 0.01));
        // Beam 135 (135°): ray 719 is −inf, taken as 0 m.
        assert_eq!(s[135], Some(0.0));
        // Ray 400 (below range_min) is at about 20.2°: its beam reads 0 m.
        let b400 = ((a0 + 400.0 * inc).to_degrees().round() as i64).rem_euclid(360) as usize;
        assert_eq!(s[b400], Some(0.0));
        // Ray 500 (beyond range_max) leaves its beam to its neighbour ray.
        let b500 = ((a0 + 500.0 * inc).to_degrees().round() as i64).rem_euclid(360) as usize;
        assert!(s[b500].unwrap() < 40.0);
        // Each beam has the minimum of its rays: beam 10 from rays near 10°.
        let want = (0..n)
            .filter(|&j| ((a0 + j as f64 * inc).to_degrees().round() as i64).rem_euclid(360) == 10)
            .map(|j| r[j])
            .fold(f64::INFINITY, f64::min);
        assert_eq!(s[10], Some(want));
    }

    fn data(name: &str) -> std::path::PathBuf {
        crate::formats::test_data(&format!("bags/{name}"))
    }

    fn veh() -> Vehicle {
        Vehicle::of(&crate::config::Config::builtin())
    }

    /// Odometry whose header stamps are whole seconds (make.py): by its stamps the 4 s
    /// give 4 steps, with a warning counting the 196 stamps that repeat; with the log time
    /// (`--time log`) every message is its own step (issue 64: 112 of 5,570 steps kept,
    /// and no way to use the log time).
    #[test]
    fn repeated_header_stamps_are_counted_and_the_log_time_can_be_taken() {
        let bag = data("whole_seconds");
        let count = |topics: &Topics| {
            let mut n = 0;
            let info = read_bag(&bag, topics, veh(), |_| {
                n += 1;
                Ok(())
            })
            .unwrap();
            (n, info.warnings)
        };
        // By default the survey finds 196 of 200 stamps repeated, over 1 %: the whole
        // topic takes the log time, every message its own step.
        let (n, w) = count(&Topics::default());
        assert_eq!(n, 200);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("196 of 200 messages of /odom")
                && w[0].contains("took the bag's log time"),
            "{w:?}"
        );
        // Without the survey's verdict the header stamps give 4 steps.
        let header = Topics {
            survey: false,
            fallback: Vec::new(),
            ..Topics::default()
        };
        let files = [data("whole_seconds/whole_seconds.mcap")];
        let mut k = 0;
        read_files(&files, &header, veh(), &mut |_| {
            k += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(k, 4);
        let log = Topics {
            log_time: true,
            ..Topics::default()
        };
        let (n, w) = count(&log);
        assert_eq!(n, 200);
        assert!(w[0].contains("the log time was used"), "{w:?}");
        // A bag with good stamps: no warning, either way the same steps.
        let (mut a, mut b) = (0, 0);
        let i = read_bag(&data("drive"), &log, veh(), |_| {
            a += 1;
            Ok(())
        })
        .unwrap();
        read_bag(&data("drive"), &Topics::default(), veh(), |_| {
            b += 1;
            Ok(())
        })
        .unwrap();
        assert!(
            i.warnings.is_empty() && a == 301 && b == 301,
            "{:?} {a} {b}",
            i.warnings
        );
    }

    /// Messages no step took, by cause. PoseStamped at 10 Hz with no pose from 2 to 3.5 s
    /// and twists at 50 Hz: the 74 twists strictly inside the gap (2.02 … 3.48 s) are
    /// dropped for the gap, nothing else. Odometry stamped in whole seconds, kept on its
    /// header stamps: 4 steps take one message each (the last of each second), the 192
    /// other repeats are dropped for their stamps and the first of each second, sound
    /// but overtaken by its repeats, as superseded.
    #[test]
    fn dropped_messages_are_counted_by_cause() {
        let topics = Topics::parse("odom=/pose").unwrap();
        let info = read_bag(&data("pose_twist"), &topics, veh(), |_| Ok(())).unwrap();
        let want = Dropped {
            gap: 74,
            ..Dropped::default()
        };
        assert_eq!((info.dropped, info.messages), (want, 288));
        let files = [data("whole_seconds/whole_seconds.mcap")];
        let header = Topics::default();
        let mut n = 0;
        let info = read_files(&files, &header, veh(), &mut |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        let want = Dropped {
            stamp: 192,
            superseded: 4,
            ..Dropped::default()
        };
        assert_eq!((info.dropped, n), (want, 4));
        // With the log time (the survey's verdict) every message makes its step.
        let info = read_bag(&data("whole_seconds"), &header, veh(), |_| Ok(())).unwrap();
        assert_eq!(info.dropped, Dropped::default());
    }

    /// The survey's stamps, read at their offset without decoding, are the decoded ones:
    /// the same counts on every test bag (CDR, ROS 1, zstd by message, sqlite3); and a
    /// topic falls back at one repeat over 1 % of its messages, not at 1 % itself.
    #[test]
    fn the_survey_reads_the_stamps_the_decoder_does() {
        let survey = Topics {
            survey: true,
            ..Topics::default()
        };
        for bag in [
            "drive/drive.mcap",
            "whole_seconds/whole_seconds.mcap",
            "ros1/drive.bag",
            "ros1/drive_lz4.bag",
            "zstd_message/zstd_message.mcap",
            "drive_db3/drive_db3.db3",
        ] {
            let files = [data(bag)];
            let quick = read_files(&files, &survey, veh(), &mut |_| Ok(())).unwrap();
            let full = read_files(&files, &Topics::default(), veh(), &mut |_| Ok(())).unwrap();
            assert_eq!(quick.stamps, full.stamps, "{bag}");
            assert!(
                quick.stamps.iter().any(|s| s.0 == "/odom" && s.2 >= 200),
                "{bag}"
            );
        }
        let at = |back: u64| BagInfo {
            stamps: vec![("/odom".into(), back, 200)],
            ..BagInfo::default()
        };
        assert!(at(2).unsound_stamps().is_empty());
        assert_eq!(at(3).unsound_stamps(), ["/odom"]);
    }

    /// A recording stopped 14 s in (make.py copies the folder with the rosbags writer still
    /// open): no metadata.yaml, the MCAP without summary or footer and cut inside its last
    /// chunk. It is a bag, read up to its last whole chunk with two warnings; the drive's
    /// records there are the drive's (x = 3 t, wrapping every 6 s). Its sqlite3 form holds
    /// only a rollback journal's worth: refused, naming the journal.
    #[test]
    fn an_unfinished_recording_is_read_up_to_where_it_stops() {
        let dir = data("unfinished");
        assert!(is_bag(&dir));
        let mut recs = Vec::new();
        let info = read_bag(&dir, &Topics::default(), veh(), |r| {
            recs.push(r.clone());
            Ok(())
        })
        .unwrap();
        // 1 MiB chunks of about 640 steps: the first whole, the second cut off.
        assert!((500..700).contains(&recs.len()), "{}", recs.len());
        assert_eq!(info.warnings.len(), 2, "{:?}", info.warnings);
        assert!(info.warnings[0].contains("no metadata.yaml"));
        assert!(info.warnings[1].contains("ends inside a record"));
        for (k, r) in recs.iter().enumerate() {
            let x = 3.0 * (k % 300) as f64 * STEP_S;
            assert!((r.state.pose.x_m - x).abs() < 1e-6, "{k}");
        }
        let db3 = data("unfinished_db3");
        assert!(is_bag(&db3));
        let e = read_bag(&db3, &Topics::default(), veh(), |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("rollback journal") && e.contains("unfinished_db3.db3"),
            "{e}"
        );
        // Read only: the journal is still there.
        assert!(db3.join("unfinished_db3.db3-journal").is_file());
    }

    /// The bag written by rosbags (tests/data/bags/make.py): 6 s at 50 Hz give 301 control
    /// steps, each with the odometry's pose and speed, the logged command, the gear, and
    /// the scan's wall ahead at 20 − x m.
    #[test]
    fn the_rosbags_bag_gives_a_record_per_control_step() {
        let mut recs = Vec::new();
        let info = read_bag(&data("drive"), &Topics::default(), veh(), |r| {
            recs.push(r.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(recs.len(), 301);
        assert_eq!(info.gap_steps, 0);
        assert!(
            info.channels
                .iter()
                .any(|(t, ty)| t == "/diagnostics_text" && ty == "std_msgs/String")
        );
        for (k, r) in recs.iter().enumerate() {
            assert_eq!(r.step, k as u64);
            assert!((r.t - k as f64 * STEP_S).abs() < 1e-6, "{k}: {}", r.t);
            let x = 3.0 * k as f64 * STEP_S;
            assert!((r.state.pose.x_m - x).abs() < 1e-6, "{k}");
            assert_eq!((r.state.speed_mps, r.state.gear), (3.0, Gear::High));
            let l = r.logged.unwrap();
            assert_eq!((l.speed_mps, l.curvature_per_m), (3.0, 0.0));
            // The latest scan, taken at or before the step (every 0.1 s).
            let scan_x = 3.0 * (k / 5 * 5) as f64 * STEP_S;
            let ahead = r.scan.as_ref().unwrap()[0];
            assert!((ahead - (20.0 - scan_x)).abs() < 1e-3, "{k}: {ahead}");
        }
    }

    /// The offsets of the top-level records of opcode `op` in an MCAP file.
    fn records_of(bytes: &[u8], op: u8) -> Vec<usize> {
        let (mut at, mut out) = (8, Vec::new());
        while at + 9 <= bytes.len() {
            let len = u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap()) as usize;
            if bytes[at] == op {
                out.push(at);
            }
            at += 9 + len;
        }
        out
    }

    /// A schema name or channel topic whose length says `ffffffff` (issue 63: the mcap
    /// crate asked for 4 GiB) is refused as longer than its record, naming the file.
    #[test]
    fn a_string_longer_than_its_record_is_refused_before_allocating() {
        let bytes = std::fs::read(data("pose_twist/pose_twist.mcap")).unwrap();
        // A schema's name length follows its id; a channel's topic, its two ids.
        for (op, at, what) in [(0x03, 2, "schema name"), (0x04, 4, "channel topic")] {
            let k = records_of(&bytes, op)[0] + 9 + at;
            let mut bad = bytes.clone();
            bad[k..k + 4].copy_from_slice(&[0xff; 4]);
            let e = read_mcap("bad.mcap", &bad, &Topics::default(), veh(), |_| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("bad.mcap") && e.contains(what) && e.contains("longer than its record"),
                "{e}"
            );
        }
    }

    /// A cut bag is read up to its last whole message, with a warning naming the file
    /// (issue 64: an unfinished recording was refused whole); cut inside its first record,
    /// it is an error. A bag without the odometry topic names the topics it has.
    #[test]
    fn cut_bags_and_missing_topics_are_named() {
        let bytes = std::fs::read(data("drive/drive.mcap")).unwrap();
        let cut = &bytes[..bytes.len() * 2 / 3];
        let mut n = 0;
        let info = read_mcap("cut.mcap", cut, &Topics::default(), veh(), |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        // About two thirds of the 6 s drive's 301 steps.
        assert!((150..290).contains(&n), "{n}");
        assert!(
            info.warnings.len() == 1
                && info.warnings[0].starts_with("cut.mcap: ends inside a record"),
            "{:?}",
            info.warnings
        );
        let e = read_mcap("cut.mcap", &bytes[..40], &Topics::default(), veh(), |_| {
            Ok(())
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("cut.mcap") && e.contains("truncated"), "{e}");
        let topics = Topics::parse("odom=/nothing").unwrap();
        let e = read_mcap("d.mcap", &bytes, &topics, veh(), |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/nothing") && e.contains("/odom (nav_msgs/Odometry)"),
            "{e}"
        );
        assert!(Topics::parse("lidar=/x").unwrap_err().contains("lidar"));
        let e = read_mcap(
            "x.mcap",
            b"not a bag at all",
            &Topics::default(),
            veh(),
            |_| Ok(()),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("x.mcap"), "{e}");
    }

    /// PoseStamped at 10 Hz with a 1.5 s gap and TwistStamped at 50 Hz (written by
    /// rosbags): 50 Hz steps with the poses interpolated, the speed and yaw rate of the
    /// twist, and the 74 steps inside the gap left out and counted.
    #[test]
    fn a_10_hz_pose_with_a_twist_and_a_gap_aligns_to_50_hz() {
        let topics = Topics::parse("odom=/pose").unwrap();
        let mut recs = Vec::new();
        let info = read_bag(&data("pose_twist"), &topics, veh(), |r| {
            recs.push(r.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!((info.steps, info.gap_steps), (251, 74));
        assert_eq!(recs.len(), 251 - 74);
        for r in &recs {
            let t = r.t;
            assert!(
                !(2.0 + 1e-6..3.5 - 1e-6).contains(&t),
                "{t} is inside the gap"
            );
            assert!(
                (r.state.pose.x_m - 2.0 * t).abs() < 1e-6,
                "{t}: {:?}",
                r.state.pose
            );
            assert!((r.state.pose.y_m - 2.0 * t).abs() < 1e-6);
            assert!((r.state.pose.yaw_rad - std::f64::consts::FRAC_PI_4).abs() < 1e-9);
            assert_eq!((r.state.speed_mps, r.state.yaw_rate_rps), (2.0, 0.1));
            assert!(r.scan.is_none() && r.logged.is_none());
        }
        assert_eq!(recs.last().unwrap().step, 250);
    }

    /// Two poses 2^31 − 1 s apart (issue 63: one bad stamp kept the aligner stepping
    /// through 10^11 empty steps): the gap's steps are counted at once, and the steps on
    /// either side of it are built.
    #[test]
    fn a_gap_of_68_years_is_counted_not_walked() {
        let mut al = Aligner::new(veh());
        let p = PoseSample {
            x: 0.0,
            y: 0.0,
            yaw: 0.0,
            speed: None,
            yaw_rate: None,
        };
        let far = f64::from(i32::MAX);
        for t in [0.0, 0.02, far] {
            al.poses.push(t, p);
        }
        (al.t0, al.watermark) = (Some(0.0), far);
        let mut steps = Vec::new();
        al.flush(true, &mut |r| {
            steps.push(r.step);
            Ok(())
        })
        .unwrap();
        let last = (far / STEP_S).round() as u64;
        assert_eq!(steps[..2], [0, 1]);
        assert_eq!(steps.last(), Some(&last));
        assert_eq!(steps.len() as u64 + al.gap_steps, last + 1);
    }

    fn records(path: &std::path::Path) -> Vec<Record> {
        let mut recs = Vec::new();
        read_bag(path, &Topics::default(), veh(), |r| {
            recs.push(r.clone());
            Ok(())
        })
        .unwrap();
        recs
    }

    /// The drive in sqlite3 storage (rosbags) gives the records of its MCAP twin, decoded
    /// by the definitions the bag carries and, with its message_definitions table dropped,
    /// by the shipped ones (which thus match rosbags' layouts of the same types).
    #[test]
    fn a_sqlite3_bag_reads_as_its_mcap_twin() {
        let mcap = records(&data("drive"));
        assert_eq!(records(&data("drive_db3")), mcap);
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("old.db3");
        std::fs::copy(data("drive_db3/drive_db3.db3"), &db).unwrap();
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute("DROP TABLE message_definitions", [])
            .unwrap();
        assert_eq!(records(&db), mcap);
        std::fs::write(&db, b"SQLite format 3\0 but not really").unwrap();
        let e = read_bag(&db, &Topics::default(), veh(), |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("old.db3") && e.contains("sqlite3"), "{e}");
    }

    /// rosbag2's zstd compression as rosbags writes it, by message and by file, in both
    /// storages: the records of the uncompressed twin. A compression rosbag2 does not
    /// ship is refused naming the metadata; a message that says it unpacks to 4 GiB is
    /// refused before it is unpacked; a bad compressed file names itself.
    #[test]
    fn zstd_bags_read_as_their_uncompressed_twin() {
        let mcap = records(&data("drive"));
        for twin in [
            "zstd_message",
            "zstd_message_db3",
            "zstd_file",
            "zstd_file_db3",
        ] {
            assert_eq!(records(&data(twin)), mcap, "{twin}");
        }
        let f = data("zstd_file/zstd_file.mcap.zstd");
        assert!(is_bag(&f) && is_bag(&data("zstd_file")));
        assert_eq!(records(&f), mcap);

        let dir = tempfile::tempdir().unwrap();
        let meta = std::fs::read_to_string(data("zstd_file/metadata.yaml")).unwrap();
        std::fs::write(
            dir.path().join("metadata.yaml"),
            meta.replace("compression_format: zstd", "compression_format: lz4"),
        )
        .unwrap();
        std::fs::copy(&f, dir.path().join("zstd_file.mcap.zstd")).unwrap();
        let e = read_bag(dir.path(), &Topics::default(), veh(), |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("metadata.yaml") && e.contains("`lz4`"), "{e}");

        let bad = dir.path().join("bad.mcap.zstd");
        std::fs::write(&bad, b"\x28\xb5\x2f\xfd not really").unwrap();
        let e = read_bag(&bad, &Topics::default(), veh(), |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.mcap.zstd") && e.contains("zstd"), "{e}");

        // A frame header that gives a content size of 4 GiB (single segment, 8-byte size).
        let mut frame = ZSTD_MAGIC.to_vec();
        frame.push(0b1110_0000);
        frame.extend((4u64 << 30).to_le_bytes());
        let (mut dec, mut out) = (None, Vec::new());
        let e = unzstd(&mut dec, &mut out, &frame).unwrap_err();
        assert!(e.contains("4294967296"), "{e}");
        assert!(out.capacity() < 1 << 20);
        // A frame that states no size (a streaming writer's) is streamed: its bytes come
        // back, and no buffer of the whole bound is made for it.
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        std::io::Write::write_all(&mut enc, &[7u8; 1000]).unwrap();
        let frame = enc.finish().unwrap();
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(&frame).unwrap(),
            None
        );
        let mut out = Vec::new();
        unzstd(&mut dec, &mut out, &frame).unwrap();
        assert!(out == [7u8; 1000] && out.capacity() < 1 << 20);
    }

    /// Each role's fields are found by the first of their paths the type has: the pose
    /// of Odometry, PoseStamped and PoseWithCovarianceStamped, the speed only where the
    /// type has a twist; a type without a required field is named with the paths tried.
    #[test]
    fn pose_types_resolve_their_own_paths() {
        let mut defs = shipped_defs();
        defs.add(
            "geometry_msgs/PoseWithCovarianceStamped",
            "std_msgs/Header header\ngeometry_msgs/PoseWithCovariance pose\n",
        )
        .unwrap();
        for (ty, speed) in [
            ("nav_msgs/Odometry", true),
            ("geometry_msgs/PoseStamped", false),
            ("geometry_msgs/PoseWithCovarianceStamped", false),
        ] {
            let r = Reading::new(ty.into(), defs.clone(), Role::Odom);
            assert!(r.slot_idx[..6].iter().all(Option::is_some), "{ty}");
            assert_eq!(r.slot_idx[6].is_some(), speed, "{ty}");
            assert!(r.stamp_idx.is_some() && r.stamp_at == Some(4), "{ty}");
        }
        let r = Reading::new("geometry_msgs/Twist".into(), defs, Role::Odom);
        let e = r.get(&[], 0).unwrap_err();
        assert!(
            e.contains("pose.pose.position.x` or `pose.position.x"),
            "{e}"
        );
    }

    /// A steering command of a wheel angle (type 2) is logged as the curvature of its
    /// road wheel angle, tan(angle / ratio) / wheelbase; a curvature (type 3) as it is; a
    /// yaw rate (type 4) is not a curvature and is left out.
    #[test]
    fn steering_commands_give_the_logged_curvature() {
        let defs = shipped_defs();
        let r = Reading::new("ds_dbw_msgs/SteeringCmd".into(), defs, Role::SteeringCmd);
        // The message as decode_kept leaves it: the stamp, then cmd and cmd_type.
        let msg = |cmd: f64, kind: f64| {
            let mut v = vec![
                Value::Num(1.0),
                Value::Num(0.0),
                Value::Num(0.0),
                Value::Num(0.0),
            ];
            v[r.slot_idx[0].unwrap()] = Value::Num(kind);
            v[r.slot_idx[1].unwrap()] = Value::Num(cmd);
            v
        };
        let v = veh();
        let mut al = Aligner::new(v);
        al.take(&r, &msg(60.0, 2.0), 1.0, false).unwrap();
        let want = (60.0 / v.steering_ratio).to_radians().tan() / v.wheelbase_m;
        assert!((al.curvatures.at(1.0).unwrap().1 - want).abs() < 1e-12);
        al.take(&r, &msg(-0.05, 3.0), 2.0, false).unwrap();
        assert_eq!(al.curvatures.at(2.0).unwrap().1, -0.05);
        al.take(&r, &msg(0.3, 4.0), 3.0, false).unwrap();
        assert_eq!(al.curvatures.at(3.0).unwrap().0, 2.0);
    }
}
