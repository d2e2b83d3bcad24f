//! The tracker of the moving-object rule (an acres extension, docs/rules.md "Moving
//! objects"): it turns successive scans into objects with a position and a velocity.
//!
//! Each control step: the returns become points of the world frame (by the vehicle's
//! pose); returns of neighbouring beams closer than `cluster_gap_m`, or on the straight
//! line of the two before (a face grazed by the beams), form a cluster; a
//! cluster larger than `max_size_m` is structure (a wall, a hedge) and is not tracked.
//! Each track takes the nearest cluster within `gate_m` of where it was predicted
//! (nearest pairs first); a cluster left over starts a track; a track unseen for
//! `max_missed_s` ends. A track's velocity is the least-squares slope of its centroids
//! over the last `window_s`; it is a moving object once that spans half the window, its
//! speed is `min_speed_mps` or more and its centroid has left its own extent (twice its
//! radius and 0.5 m from where the track began: a static object's returns,
//! however the view turns, stay on its surface). Each moving object carries an interval of
//! speeds: the fit's ± `speed_sigmas` standard errors, or up to its kind's top speed while
//! it is young (just set off, or back from occlusion). Limits: a person (0.6 m across) gives a return
//! on at least one beam of a 360-beam scan out to about 34 m (0.6 m / 1°); a cluster's
//! centroid is that of the returns it shows, so a body turning its side moves it.

use crate::chain::scan::{Scan, ScanGeometry, floor_i64};
use crate::chain::shield::Pose;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering::{self, Equal, Greater, Less};

/// How the tracker tells a moving object from a static one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MotionTest {
    /// The centroid has left its own extent (twice its radius and 0.5 m): clusters
    /// larger than `max_size_m` are structure.
    #[default]
    Travel,
    /// The cluster's returns land where the rays of a scan at least `free_min_age_s` old
    /// passed freely (docs/rules.md): clusters up to `structure_size_m` are tracked; a
    /// lone return keeps the travel test. Experimental (issue [machines]).
    FreeSpace,
}

/// Block `tracker` of `control_v1.json` (an acres extension; every key has a default).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrackerConfig {
    /// Returns of neighbouring beams closer than this form one cluster, m.
    pub cluster_gap_m: f64,
    /// A cluster larger than this (its box's diagonal) is structure, not tracked, m.
    pub max_size_m: f64,
    /// How far from its predicted place a track may find its cluster, m.
    pub gate_m: f64,
    /// The span of centroids the velocity is fitted over, s.
    pub window_s: f64,
    /// A track at least this fast is a moving object, m/s.
    pub min_speed_mps: f64,
    /// A track unseen this long ends, s.
    pub max_missed_s: f64,
    /// The half width of a track's speed interval in standard errors of its fitted speed.
    pub speed_sigmas: f64,
    /// A track is young (its speed not yet known) for the fit window and this long after
    /// it starts to move or comes back from occlusion, s.
    pub young_extra_s: f64,
    /// A track up to this radius is person-sized, m.
    pub person_radius_m: f64,
    /// The fastest a person-sized track may be while young, m/s (a child sprinting).
    pub person_top_speed_mps: f64,
    /// The fastest a larger track may be while young, m/s (a farm machine).
    pub machine_top_speed_mps: f64,
    /// A return of the next beam that continues the straight line of the two before it
    /// (within this distance, m) joins their cluster however far it lies: a face seen at a
    /// grazing angle is one cluster, not a row of one-return fragments that slide along
    /// it as the vehicle moves. 0: off.
    pub surface_tolerance_m: f64,
    /// The share of a beam spacing at its range by which a small object's centroid may
    /// jump as beams gain or lose it: the speed interval is at least
    /// `±share · 1.5 · r·Δθ / W` wide (a jump inside a fit window of span W tilts the
    /// slope by up to 1.5 jump / W), an error the fit's residual does not show.
    pub quantum_share: f64,
    /// How a moving object is told from a static one.
    pub motion_test: MotionTest,
    /// With the free-space test: a cluster larger than this is structure, m (a sanity
    /// bound; size no longer decides motion).
    pub structure_size_m: f64,
    /// With the free-space test: scans are remembered this often, s, for this long, s.
    pub free_every_s: f64,
    pub free_history_s: f64,
    /// With the free-space test: only remembered scans at least this old count, s.
    pub free_min_age_s: f64,
    /// With the free-space test: how far beyond a return a past ray must have passed, and
    /// how far beside it every past ray must have passed, m.
    pub free_radial_m: f64,
    pub free_lateral_m: f64,
    /// With the free-space test: how much nearer, in beam spacings at its range, a surface
    /// met by one beam alone may come a beam toward the next (where its neighbour's
    /// return gives no slope).
    pub free_lone_spacings: f64,
    /// With the free-space test: how many of a cluster's returns must land in free space
    /// (a large object moving along its length shows only its leading part there).
    pub free_min_returns: u32,
    /// With the free-space test: a run of one or two returns within this many beam
    /// spacings (at its range, and `cluster_gap_m`) of a neighbouring return is a fragment
    /// of a larger surface, which the travel test moves only where free space confirms
    /// it (0: no fragments; docs/rules.md).
    pub free_fragment_spacings: f64,
    /// With the free-space test: the travel test applies beside it only to tracks up to
    /// this radius, m (larger ones' centroids slide as the view turns; experimental).
    pub free_travel_max_radius_m: f64,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            cluster_gap_m: 0.5,
            max_size_m: 5.0,
            gate_m: 1.0,
            window_s: 0.5,
            min_speed_mps: 0.5,
            max_missed_s: 0.3,
            speed_sigmas: 2.0,
            young_extra_s: 0.3,
            person_radius_m: 0.6,
            person_top_speed_mps: 3.5,
            machine_top_speed_mps: 6.0,
            surface_tolerance_m: 0.05,
            quantum_share: 0.5,
            motion_test: MotionTest::FreeSpace,
            structure_size_m: 12.0,
            free_every_s: 0.1,
            free_history_s: 1.0,
            free_min_age_s: 0.2,
            free_radial_m: 0.3,
            free_lateral_m: 0.3,
            free_lone_spacings: 10.0,
            free_min_returns: 2,
            free_fragment_spacings: 12.0,
            free_travel_max_radius_m: 1.5,
        }
    }
}

/// A moving object in the world frame: where it is, its velocity, a radius about its
/// position that holds what was seen of it, and the interval its speed along that
/// velocity's heading may lie in (both ends the estimate's speed where it is known).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct MovingObject {
    pub x_m: f64,
    pub y_m: f64,
    pub vx_mps: f64,
    pub vy_mps: f64,
    pub radius_m: f64,
    pub speed_lo_mps: f64,
    pub speed_hi_mps: f64,
    /// The track's number (the actor's index + 1 for the true states; 0: none).
    #[serde(default)]
    pub id: u64,
}

/// A track as a log shows it: its number, where it is, its velocity and speed interval
/// (0 where it has none), its radius, whether it is a moving object, and how long it has
/// been tracked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrackView {
    pub id: u64,
    pub x_m: f64,
    pub y_m: f64,
    pub vx_mps: f64,
    pub vy_mps: f64,
    pub speed_lo_mps: f64,
    pub speed_hi_mps: f64,
    pub radius_m: f64,
    pub moving: bool,
    pub age_s: f64,
}

impl MovingObject {
    /// An object whose velocity is known exactly (the simulator's true states).
    pub fn known(x_m: f64, y_m: f64, vx_mps: f64, vy_mps: f64, radius_m: f64) -> MovingObject {
        let v = vx_mps.hypot(vy_mps);
        MovingObject {
            x_m,
            y_m,
            vx_mps,
            vy_mps,
            radius_m,
            speed_lo_mps: v,
            speed_hi_mps: v,
            id: 0,
        }
    }
}

/// A cluster of one scan.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cluster {
    x: f64,
    y: f64,
    radius: f64,
    /// Its main run of returns in the tracker's points: the first and how many.
    first: u32,
    count: u32,
    /// A fragment: one or two returns close to a neighbouring return (a part of a larger
    /// surface seen at a grazing angle), with the free-space test.
    fragment: bool,
}

/// A grid cell as a key whose order is that of (column, row): a column's cells are
/// adjacent in a sorted list of keys.
fn cell_key((x, y): (i16, i16)) -> u32 {
    let flip = |v: i16| u32::from((v as u16) ^ 0x8000);
    flip(x) << 16 | flip(y)
}

/// The cell of a key shifted to make room for an index (`key << 32 | index`).
fn cell_of(e: u64) -> (i16, i16) {
    let unflip = |v: u64| ((v as u16) ^ 0x8000) as i16;
    (unflip(e >> 48), unflip(e >> 32))
}

/// The low 32 bits of a packed key: the index it carries.
const LOW: u64 = u32::MAX as u64;

/// A coordinate's grid index relative to the origin's, held in i16 (coordinates beyond
/// 32,767 cells of the origin share the edge cells). Monotone and never more than one
/// apart for indices one apart, so cells within the gate stay neighbours.
fn grid_index(v: f64, origin: i64) -> i16 {
    let rel = floor_i64(v).saturating_sub(origin);
    rel.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

/// A pair's key as (distance², track, cluster).
fn unpack_pair(key: &u128) -> (f64, usize, usize) {
    let d2 = f64::from_bits((key >> 64) as u64);
    let low = u128::from(LOW);
    (d2, ((key >> 32) & low) as usize, (key & low) as usize)
}

/// How the length of `(dx, dy)` compares with `bound`, exactly as
/// `dx.hypot(dy).partial_cmp(&bound)` has it, mostly without libm's `hypot` (about 45
/// instructions; a dense scene's tracker called it 370 times a control step). The sum of
/// squares is within 2.3e-16 of the square of the length, `hypot` within an ulp of the
/// length, so where the sum lies more than 1e-12 either side of bound² it decides; `hypot`
/// decides the rest, and a bound outside [1e-145, 1e145] (where squares leave f64's
/// normal range) or a length whose square is not finite.
fn hypot_cmp((dx, dy): (f64, f64), bound: f64) -> Option<Ordering> {
    let (sum, b2) = (dx * dx + dy * dy, bound * bound);
    if (1e-145..=1e145).contains(&bound) && sum <= f64::MAX {
        if sum < b2 * (1.0 - 1e-12) {
            return Some(Less);
        }
        if sum > b2 * (1.0 + 1e-12) {
            return Some(Greater);
        }
    }
    dx.hypot(dy).partial_cmp(&bound)
}

/// The 360-beam scan of `world` seen from a vehicle at `pose` (the sensor 1.9 m ahead of
/// the rear axle, 40 m reach): the tests' view of a scene.
#[cfg(test)]
pub(crate) fn scan_of(world: &crate::plant::world::World, pose: Pose) -> Scan {
    let (s, c) = pose.yaw_rad.sin_cos();
    let at = geo::Coord {
        x: pose.x_m + 1.9 * c,
        y: pose.y_m + 1.9 * s,
    };
    world.scan(at, pose.yaw_rad, 360, 40.0)
}

/// The pair count of a track or cluster that association has paired.
const PAIRED: u8 = u8::MAX;

/// A track takes its cluster of time `t`: a centroid more, and its radius grown (within
/// half of `max_size`).
fn take(k: &mut Track, c: Cluster, ci: usize, t: f64, max_size: f64) {
    // Back from occlusion: what it did while unseen is not known, so it is young again.
    if t - k.last_seen_s > OCCLUDED_S {
        k.moving_since = None;
    }
    if k.history.len() == HISTORY {
        k.history.pop_front();
    }
    k.history.push_back((t, c.x, c.y));
    k.radius = k.radius.max(c.radius).min(max_size / 2.0);
    k.last_seen_s = t;
    k.cluster = ci;
    k.last_count = c.count;
    k.fragment = c.fragment;
}

/// A track unseen longer than this has been occluded, s (more than a 10 Hz log's step).
const OCCLUDED_S: f64 = 0.15;

/// How long after its returns were last seen in free space a track still counts as
/// moving, s (a few remembered scans: the leading face of a slow machine does not enter
/// free space at every step).
const FREE_HOLD_S: f64 = 0.5;

/// With the free-space test, how far a centroid must move from where its track began
/// before the track gets a velocity and the test, m: a walker's first quarter metre.
const FREE_START_M: f64 = 0.25;

/// The most returns of one cluster the free-space test looks at (spread over it): a
/// machine's leading face is a good share of its cluster.
const FREE_SAMPLES: usize = 24;

/// How far beyond twice its radius a centroid must travel to be moving, m.
const TRAVEL_MARGIN_M: f64 = 0.5;

/// The most centroids a track keeps (the window at 50 Hz is well inside it).
const HISTORY: usize = 64;

#[derive(Debug, Clone, PartialEq)]
struct Track {
    /// Its number, from 1 in the order tracks start.
    id: u64,
    /// When it was first seen, s.
    first_seen_s: f64,
    /// The first centroid: a static object's centroid never leaves its own extent.
    origin: (f64, f64),
    /// (t, x, y) of the centroids, oldest first.
    history: std::collections::VecDeque<(f64, f64, f64)>,
    radius: f64,
    last_seen_s: f64,
    velocity: Option<(f64, f64)>,
    /// The standard error of the fitted velocity (each axis), m/s, and the span of the
    /// centroids it was fitted over, s.
    sigma_v: f64,
    fit_span_s: f64,
    /// Since when it has been moving (unseen for a while and back, since it came back).
    moving_since: Option<f64>,
    /// The cluster it took this step (an index into the tracker's clusters).
    cluster: usize,
    /// With the free-space test: when its returns were last seen in free space, s.
    free_at: Option<f64>,
    /// With the free-space test: when free space last confirmed the travel test (a
    /// return in free space, or an earlier centroid's place seen empty), s.
    confirmed_at: Option<f64>,
    /// The returns of the cluster it last took.
    last_count: u32,
    /// Whether the cluster it last took was a fragment of a larger surface.
    fragment: bool,
    /// The free-space memory's generation its earlier places were last tested against.
    left_gen: u64,
}

impl Track {
    /// Track `id`, started by cluster `c` at time `t`.
    fn start(id: u64, c: Cluster, t: f64) -> Track {
        Track {
            id,
            first_seen_s: t,
            origin: (c.x, c.y),
            history: std::iter::once((t, c.x, c.y)).collect(),
            radius: c.radius,
            last_seen_s: t,
            velocity: None,
            sigma_v: 0.0,
            fit_span_s: 0.0,
            moving_since: None,
            cluster: usize::MAX,
            free_at: None,
            confirmed_at: None,
            last_count: c.count,
            fragment: c.fragment,
            left_gen: u64::MAX,
        }
    }

    fn predicted(&self, t: f64) -> (f64, f64) {
        let &(t0, x, y) = self.history.back().expect("a track has a centroid");
        let (vx, vy) = self.velocity.unwrap_or((0.0, 0.0));
        (x + vx * (t - t0), y + vy * (t - t0))
    }

    /// The velocity: the least-squares slope of the centroids over the last `window` s,
    /// where they span at least half of it. (A fit over a shorter part, taken where it
    /// is faster, saw a walker who just set off sooner but made the rule brake for
    /// walkers it could pass in front of: docs/validation.md "Moving actors".)
    fn fit(&mut self, window: f64) {
        let Some(&(t_end, _, _)) = self.history.back() else {
            return;
        };
        let first = self.history.partition_point(|p| p.0 < t_end - window);
        let recent = self.history.range(first..);
        let t_first = recent.clone().next().map_or(t_end, |p| p.0);
        let fit = if t_end - t_first < window / 2.0 {
            None
        } else {
            slope(recent, t_end)
        };
        self.velocity = fit.map(|f| f.velocity);
        self.sigma_v = fit.map_or(0.0, |f| f.sigma_v);
        self.fit_span_s = t_end - t_first;
    }

    /// Whether it is a moving object: a velocity at least `min_speed` fast, and the
    /// centroid out of its own extent. With the free-space test (`free_mode`: the largest
    /// radius the travel test applies to): its returns seen in free space, or the travel
    /// test, which a fragment or a cluster of three returns or more passes only while free
    /// space confirms it.
    fn is_moving(&self, min_speed: f64, free_mode: Option<f64>) -> bool {
        let fast = self
            .velocity
            .is_some_and(|v| hypot_cmp(v, min_speed) != Some(Less));
        let &(t, _, _) = self.history.back().expect("a track has a centroid");
        let held = |at: Option<f64>| at.is_some_and(|f| t - f <= FREE_HOLD_S);
        let free = free_mode.is_some() && held(self.free_at);
        let travel = free_mode.is_none_or(|r| {
            self.radius <= r && (!self.needs_confirming() || held(self.confirmed_at))
        });
        fast && (free || (travel && self.left_its_extent()))
    }

    /// With the free-space test, whether the travel test needs free space to confirm it:
    /// for a fragment of a larger surface, or a cluster of three returns or more (whose
    /// centroid slides as the view turns); not for a lone small object.
    fn needs_confirming(&self) -> bool {
        self.fragment || self.last_count >= 3
    }

    /// With the free-space test, whether the test is worth its cost: not for a track that
    /// was only ever one return and needs no confirming (a far post's return, which the
    /// travel test moves after 0.5 m anyway, no later than free space could).
    fn free_tested(&self) -> bool {
        self.last_count >= 2 || self.radius > 0.0 || self.fragment
    }

    /// Whether the centroid lies `d` m or more from where the track began.
    fn travelled_at_least(&self, d: f64) -> bool {
        let &(_, x, y) = self.history.back().expect("a track has a centroid");
        matches!(
            hypot_cmp((x - self.origin.0, y - self.origin.1), d),
            Some(Greater | Equal)
        )
    }

    /// Whether the centroid has left its own extent (twice the radius and 0.5 m from
    /// where the track began): a static object's returns stay on its surface.
    fn left_its_extent(&self) -> bool {
        let &(_, x, y) = self.history.back().expect("a track has a centroid");
        let travelled = (x - self.origin.0, y - self.origin.1);
        let bound = 2.0 * self.radius + TRAVEL_MARGIN_M;
        matches!(hypot_cmp(travelled, bound), Some(Greater | Equal))
    }
}

/// A least-squares fit of a track's centroids: the velocity and its standard error.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fit {
    velocity: (f64, f64),
    /// The standard error of each axis's slope, m/s: the residual's spread over the
    /// spread of the times, `σ_res / √Σ(t − t̄)²` (`σ_res √(12 / (n W²))` for n samples
    /// evenly over a window W).
    sigma_v: f64,
}

/// The least-squares slope of (t, x, y) samples in one pass (times taken from `t0`, so
/// the sums stay small), and its standard error from the residual pooled over both axes;
/// None for fewer than 3.
fn slope<'a>(samples: impl Iterator<Item = &'a (f64, f64, f64)>, t0: f64) -> Option<Fit> {
    let (mut n, mut st, mut sx, mut sy, mut stt, mut stx, mut sty) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut sxx, mut syy) = (0.0, 0.0);
    let first = samples.into_iter().map(|&(t, x, y)| (t - t0, x, y));
    // Positions from the first sample's, so the squares stay small too.
    let mut base: Option<(f64, f64)> = None;
    for (t, x, y) in first {
        let (bx, by) = *base.get_or_insert((x, y));
        let (x, y) = (x - bx, y - by);
        n += 1.0;
        st += t;
        sx += x;
        sy += y;
        stt += t * t;
        stx += t * x;
        sty += t * y;
        sxx += x * x;
        syy += y * y;
    }
    let den = n * stt - st * st;
    if !(n >= 3.0 && den > 0.0) {
        return None;
    }
    let (bx, by) = ((n * stx - st * sx) / den, (n * sty - st * sy) / den);
    // Centred sums: S_tt = den / n; the residual sum of squares S_xx − b² S_tt.
    let s_tt = den / n;
    let rss = |sqq: f64, sq: f64, b: f64| (sqq - sq * sq / n - b * b * s_tt).max(0.0);
    let res2 = (rss(sxx, sx, bx) + rss(syy, sy, by)) / (2.0 * (n - 2.0));
    Some(Fit {
        velocity: (bx, by),
        sigma_v: (res2 / s_tt).sqrt(),
    })
}

/// The tracker: its tracks and reusable buffers.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    cfg: TrackerConfig,
    tracks: Vec<Track>,
    clusters: Vec<Cluster>,
    /// The pairs within the gate as keys (distance², track, cluster), in the order found.
    pairs: Vec<u128>,
    /// The pairs that share their track or their cluster with another pair, sorted.
    contested: Vec<u128>,
    /// The tracks' predictions by grid cell of the gate's size (the cell's key, then the
    /// track), sorted: association looks at the 3 × 3 cells around a cluster, not at
    /// every track (a dense scene has hundreds of both).
    cells: Vec<u64>,
    /// The clusters by grid cell, the same way.
    by_cell: Vec<u64>,
    /// Where the scan was taken from: the grid's cells are counted from its cell.
    origin: (f64, f64),
    /// How many pairs each track and each cluster is in (at most 2 counted); then
    /// [`PAIRED`] once association has paired it this step.
    track_pairs: Vec<u8>,
    cluster_pairs: Vec<u8>,
    predicted: Vec<(f64, f64)>,
    /// The angle between neighbouring beams of the last scan, rad.
    beam_step: f64,
    /// The number of the last track started.
    next_id: u64,
    /// The time of the last scan taken, s.
    t_last: f64,
    /// This scan's returns in the world frame, and where each run of them begins.
    points: Vec<(f64, f64)>,
    starts: Vec<usize>,
    /// The remembered scans of the free-space test.
    free: crate::chain::free_space::FreeSpace,
}

/// The farthest a return may lie from the one before and still continue a surface's line,
/// m: a face grazed at 1 degree from 30 m spreads its returns about this far apart.
const SURFACE_STEP_M: f64 = 10.0;

/// Whether return `p` of beam `i` continues the straight line through the returns `a` and
/// `b` of beams `i − 2` and `i − 1` (within `tol` of the line, beyond `b` and at most
/// [`SURFACE_STEP_M`] from it): three consecutive returns of one flat face.
fn continues_line(
    a: Option<(usize, f64, f64)>,
    b: Option<(usize, f64, f64)>,
    (i, p): (usize, (f64, f64)),
    tol: f64,
) -> bool {
    let (Some((ia, ax, ay)), Some((ib, bx, by))) = (a, b) else {
        return false;
    };
    if ia + 2 != i || ib + 1 != i {
        return false;
    }
    let (ux, uy) = (bx - ax, by - ay);
    let len = ux.hypot(uy);
    let (wx, wy) = (p.0 - bx, p.1 - by);
    if len.is_nan() || len <= 0.0 || wx.hypot(wy) > SURFACE_STEP_M {
        return false;
    }
    // Off the line by the cross product; beyond b by the dot product.
    let off = (ux * wy - uy * wx).abs() / len;
    off <= tol && ux * wx + uy * wy > 0.0
}

/// A run of returns as a cluster: its centroid and radius; None where it is larger than
/// `max_size` (its box's diagonal).
fn summarize<'a>(
    run: impl Iterator<Item = &'a (f64, f64)> + Clone,
    max_size: f64,
) -> Option<Cluster> {
    let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
    let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
    for p in run.clone() {
        lo = (lo.0.min(p.0), lo.1.min(p.1));
        hi = (hi.0.max(p.0), hi.1.max(p.1));
        sx += p.0;
        sy += p.1;
        n += 1.0;
    }
    if n == 0.0 || hypot_cmp((hi.0 - lo.0, hi.1 - lo.1), max_size) == Some(Greater) {
        return None;
    }
    let (x, y) = (sx / n, sy / n);
    let r2 = run
        .map(|p| (p.0 - x) * (p.0 - x) + (p.1 - y) * (p.1 - y))
        .fold(0.0, f64::max);
    let radius = r2.sqrt();
    Some(Cluster {
        x,
        y,
        radius,
        first: 0,
        count: n as u32,
        fragment: false,
    })
}

impl Tracker {
    /// A tracker with no tracks.
    pub fn new(cfg: TrackerConfig) -> Tracker {
        Tracker {
            cfg,
            ..Tracker::default()
        }
    }

    /// Its configuration.
    pub fn config(&self) -> TrackerConfig {
        self.cfg
    }

    /// The time of the last scan taken, s.
    pub fn last_time_s(&self) -> f64 {
        self.t_last
    }

    /// Takes the scan of time `t_s` seen from `pose`.
    pub fn update(&mut self, t_s: f64, pose: Pose, scan: &Scan, geometry: &ScanGeometry) {
        self.t_last = t_s;
        self.cluster(pose, scan, geometry);
        self.associate(t_s);
        let (window, missed) = (self.cfg.window_s, self.cfg.max_missed_s);
        self.tracks.retain(|k| t_s - k.last_seen_s <= missed);
        let min_speed = self.cfg.min_speed_mps;
        let free_mode = self.cfg.motion_test == MotionTest::FreeSpace;
        for ki in 0..self.tracks.len() {
            let k = &self.tracks[ki];
            if k.last_seen_s != t_s {
                continue;
            }
            // With the travel test, a track still within its own extent is not moving; it
            // needs no velocity (its gate is wide enough for a walker's 3 cm a step).
            // With the free-space test, a track whose centroid has moved `FREE_START_M`
            // from where it began (a post's stays put) gets a velocity and the test, but
            // not one that was only ever a lone return (its travel test is as quick).
            let fits = k.left_its_extent()
                || (free_mode && k.free_tested() && k.travelled_at_least(FREE_START_M));
            let k = &mut self.tracks[ki];
            if fits {
                k.fit(window);
            } else {
                k.velocity = None;
            }
            if free_mode {
                self.free_test(ki, t_s);
            }
            let travel = self.free_travel();
            let k = &mut self.tracks[ki];
            // Moving from now, or since it started to; a track that stops is not.
            k.moving_since = if k.is_moving(min_speed, travel) {
                k.moving_since.or(Some(t_s))
            } else {
                None
            };
        }
        if free_mode {
            let c = &self.cfg;
            let slots = (c.free_history_s / c.free_every_s.max(1e-3)).ceil() as usize + 1;
            self.free
                .remember(t_s, pose, scan, geometry, (c.free_every_s, slots));
        }
    }

    /// With the free-space test, the largest radius the travel test still applies to;
    /// None with the travel test alone.
    fn free_travel(&self) -> Option<f64> {
        (self.cfg.motion_test == MotionTest::FreeSpace).then_some(self.cfg.free_travel_max_radius_m)
    }

    /// The largest cluster tracked, m: `max_size_m` with the travel test, the sanity
    /// bound `structure_size_m` with the free-space test.
    fn size_cap(&self) -> f64 {
        match self.cfg.motion_test {
            MotionTest::Travel => self.cfg.max_size_m,
            MotionTest::FreeSpace => self.cfg.structure_size_m,
        }
    }

    /// The free-space test of track `ki`'s cluster of time `t`: where the track moves at
    /// `min_speed_mps` or more and `free_min_returns` of its cluster's returns (of two or
    /// more) land in the free space of a remembered scan, it is in free space now; it
    /// counts as moving for [`FREE_HOLD_S`] after (a machine that stops, whose centroid
    /// then slides as the view turns, stops being moving).
    fn free_test(&mut self, ki: usize, t: f64) {
        let k = &self.tracks[ki];
        let fast = k
            .velocity
            .is_some_and(|v| hypot_cmp(v, self.cfg.min_speed_mps) != Some(Less));
        if !fast {
            let k = &mut self.tracks[ki];
            (k.free_at, k.confirmed_at) = (None, None);
            return;
        }
        // A test passed within the last remembered scan's step stays passed: no scan has
        // been remembered since that could tell more.
        let fresh = |at: Option<f64>| at.is_some_and(|a| t - a < self.cfg.free_every_s);
        if fresh(k.free_at) && (fresh(k.confirmed_at) || !k.needs_confirming()) {
            return;
        }
        let Some(c) = self.clusters.get(k.cluster) else {
            return;
        };
        let m = crate::chain::free_space::Margins {
            radial_m: self.cfg.free_radial_m,
            lateral_m: self.cfg.free_lateral_m,
            min_age_s: self.cfg.free_min_age_s,
            lone_spacings: self.cfg.free_lone_spacings,
        };
        let confirming = k.needs_confirming();
        if !k.free_tested() {
            return;
        }
        // Up to `FREE_SAMPLES` returns spread over the cluster, until enough are free.
        let (a, n) = (c.first as usize, c.count as usize);
        let end = (a + n).min(self.points.len());
        let need = (self.cfg.free_min_returns.max(1) as usize).min((n / 3).max(1));
        let free = self.points[a..end]
            .iter()
            .step_by(n.div_ceil(FREE_SAMPLES).max(1))
            .filter(|&&p| self.free.is_free(p, t, m))
            .take(need)
            .count();
        if free >= need {
            self.tracks[ki].free_at = Some(t);
        }
        // Whether an earlier place is now seen empty changes only with a newly remembered
        // scan.
        let generation = self.free.generation();
        if !confirming {
            return;
        }
        let confirmed = if free >= 1 {
            true
        } else if self.tracks[ki].left_gen != generation {
            self.tracks[ki].left_gen = generation;
            self.left_behind(ki, t, m)
        } else {
            false
        };
        if confirmed {
            self.tracks[ki].confirmed_at = Some(t);
        }
    }

    /// Whether some earlier centroid of track `ki` (between `free_min_age_s` and
    /// `free_history_s` before `t`, one every `free_every_s`) is now seen empty.
    fn left_behind(&self, ki: usize, t: f64, m: crate::chain::free_space::Margins) -> bool {
        let c = &self.cfg;
        let mut last = f64::INFINITY;
        self.tracks[ki].history.iter().rev().any(|&(th, x, y)| {
            let age = t - th;
            if age < c.free_min_age_s || age > c.free_history_s || last - th < c.free_every_s {
                return false;
            }
            last = th;
            self.free.was_left((x, y), th, m)
        })
    }

    /// The speed interval of a moving track at time `t_s`, m/s: its fitted speed ±
    /// `speed_sigmas` standard errors or the centroid's jumps (`quantum_share`), whichever
    /// is wider (not below 0; not above its kind's top speed unless
    /// the estimate is); while young, up to its kind's top speed.
    fn speed_interval(&self, k: &Track, speed: f64, t_s: f64) -> (f64, f64) {
        let c = &self.cfg;
        let &(_, x, y) = k.history.back().expect("a track has a centroid");
        let spacing = (x - self.origin.0).hypot(y - self.origin.1) * self.beam_step;
        let quantum = c.quantum_share * 1.5 * spacing / k.fit_span_s.max(1e-3);
        let half = (c.speed_sigmas * k.sigma_v).max(quantum);
        let top = if k.radius <= c.person_radius_m {
            c.person_top_speed_mps
        } else {
            c.machine_top_speed_mps
        };
        let young = k
            .moving_since
            .is_some_and(|t0| t_s - t0 < c.window_s + c.young_extra_s);
        let hi = if young { top } else { (speed + half).min(top) };
        ((speed - half).max(0.0), hi.max(speed))
    }

    /// The tracks that move, as objects.
    pub fn moving(&self, out: &mut Vec<MovingObject>) {
        out.clear();
        for k in &self.tracks {
            let Some((vx, vy)) = k.velocity else { continue };
            // The returns of a static object stay on its surface: its centroid moves
            // within its extent however the view changes. A moving one leaves it.
            if !k.is_moving(self.cfg.min_speed_mps, self.free_travel()) {
                continue;
            }
            let &(t, x, y) = k.history.back().expect("a track has a centroid");
            let (lo, hi) = self.speed_interval(k, vx.hypot(vy), t);
            out.push(MovingObject {
                x_m: x,
                y_m: y,
                vx_mps: vx,
                vy_mps: vy,
                radius_m: k.radius,
                speed_lo_mps: lo,
                speed_hi_mps: hi,
                id: k.id,
            });
        }
    }

    /// Every track, moving or not, as a log shows it at time `t_s`.
    pub fn tracks(&self, t_s: f64, out: &mut Vec<TrackView>) {
        out.clear();
        let min_speed = self.cfg.min_speed_mps;
        for k in &self.tracks {
            let &(t, x, y) = k.history.back().expect("a track has a centroid");
            let moving = k.is_moving(min_speed, self.free_travel());
            let (vx, vy) = if moving {
                k.velocity.unwrap_or((0.0, 0.0))
            } else {
                (0.0, 0.0)
            };
            let (lo, hi) = if moving {
                self.speed_interval(k, vx.hypot(vy), t)
            } else {
                (0.0, 0.0)
            };
            out.push(TrackView {
                id: k.id,
                x_m: x,
                y_m: y,
                vx_mps: vx,
                vy_mps: vy,
                speed_lo_mps: lo,
                speed_hi_mps: hi,
                radius_m: k.radius,
                moving,
                age_s: t_s - k.first_seen_s,
            });
        }
    }

    /// The clusters of a scan, world frame: runs of neighbouring beams whose returns are
    /// within `cluster_gap_m` (and 3 beam spacings at their range) of each other; the last
    /// run joins the first across beam 0. Flat buffers, reused: no allocation a step.
    fn cluster(&mut self, pose: Pose, scan: &Scan, geometry: &ScanGeometry) {
        self.origin = (pose.x_m, pose.y_m);
        let (s, c) = pose.yaw_rad.sin_cos();
        let step = std::f64::consts::TAU / geometry.beams().max(1) as f64;
        self.beam_step = step;
        self.points.clear();
        self.starts.clear();
        let mut prev: Option<(usize, f64, f64)> = None;
        let mut before: Option<(usize, f64, f64)> = None;
        let (gap_m, tol) = (self.cfg.cluster_gap_m, self.cfg.surface_tolerance_m);
        let (points, starts) = (&mut self.points, &mut self.starts);
        geometry.for_each_indexed_point(scan, |i, bx, by| {
            let p = (pose.x_m + c * bx - s * by, pose.y_m + s * bx + c * by);
            // Neighbouring returns of one surface lie about r·Δθ apart, more where the
            // beam grazes it: the gap grows with the range.
            let gap = gap_m + 3.0 * scan.ranges()[i] * step;
            let joins = prev.is_some_and(|(j, x, y)| {
                j + 1 == i && (p.0 - x).powi(2) + (p.1 - y).powi(2) <= gap * gap
            });
            let surface = !joins && tol > 0.0 && continues_line(before, prev, (i, p), tol);
            if surface {
                // The return before may have started a run of its own: it joins the one
                // before it.
                let at = points.len() - 1;
                if starts.last() == Some(&at) && at > 0 {
                    starts.pop();
                }
            } else if !joins {
                starts.push(points.len());
            }
            points.push(p);
            before = prev;
            prev = Some((i, p.0, p.1));
        });
        self.clusters.clear();
        let n_runs = self.starts.len();
        let wrap = n_runs >= 2 && self.joins_across_zero(scan, geometry.beams());
        for k in 0..n_runs {
            if wrap && k == 0 {
                continue;
            }
            let end = self.starts.get(k + 1).copied().unwrap_or(self.points.len());
            let run = &self.points[self.starts[k]..end];
            let first = if wrap && k == n_runs - 1 {
                &self.points[..self.starts[1]]
            } else {
                &[][..]
            };
            let fragment =
                self.cfg.motion_test == MotionTest::FreeSpace && self.is_fragment(k, step);
            if let Some(c) = summarize(run.iter().chain(first), self.size_cap()) {
                self.clusters.push(Cluster {
                    first: self.starts[k] as u32,
                    fragment,
                    ..c
                });
            }
        }
    }

    /// Whether run `k` is a fragment of a larger surface (with the free-space test): one or
    /// two returns within `cluster_gap_m` and `free_fragment_spacings` beam spacings (at
    /// their range) of the return before or after them. A face seen at a grazing angle
    /// gives a row of such fragments, which slide along it as the vehicle moves.
    fn is_fragment(&self, k: usize, step: f64) -> bool {
        if self.cfg.free_fragment_spacings <= 0.0 {
            return false;
        }
        let len = |j: usize| {
            let end = self.starts.get(j + 1).copied().unwrap_or(self.points.len());
            end - self.starts[j]
        };
        if len(k) > 2 {
            return false;
        }
        let (a, b) = (self.starts[k], self.starts[k] + len(k) - 1);
        let near = |p: (f64, f64), q: (f64, f64)| {
            let r = (p.0 - self.origin.0).hypot(p.1 - self.origin.1);
            let gap = self.cfg.cluster_gap_m + self.cfg.free_fragment_spacings * r * step;
            (p.0 - q.0).hypot(p.1 - q.1) <= gap
        };
        let before = a > 0 && near(self.points[a], self.points[a - 1]);
        let after = b + 1 < self.points.len() && near(self.points[b], self.points[b + 1]);
        before || after
    }

    /// Whether the first run and the last meet across beam 0: beams `beams − 1` and 0
    /// both returned, close together.
    fn joins_across_zero(&self, scan: &Scan, beams: usize) -> bool {
        let r = scan.ranges();
        if beams < 2 || !(r[0].is_finite() && r[beams - 1].is_finite()) {
            return false;
        }
        let (a, b) = (self.points[0], self.points[self.points.len() - 1]);
        let gap = self.cfg.cluster_gap_m
            + 3.0 * r[0].max(r[beams - 1]) * std::f64::consts::TAU / beams as f64;
        matches!(hypot_cmp((a.0 - b.0, a.1 - b.1), gap), Some(Less | Equal))
    }

    /// The (track, cluster) pairs within the gate, those of a full search over tracks and
    /// clusters, in no particular order. Tracks and clusters are sorted by grid cell of
    /// the gate's size (a packed integer key); for each of the three columns about a
    /// cluster, the first track of its 3 cells only moves forward as the clusters go by
    /// in order, so one pointer a column finds them all (a merge, no search, no hash).
    fn find_pairs(&mut self, t: f64) {
        self.pairs.clear();
        let gate2 = self.cfg.gate_m * self.cfg.gate_m;
        // Cells a hair wider than the gate: a pair within the gate is never two cells
        // apart, whatever the rounding of the divisions (and coordinates beyond the
        // key's range share the edge cells, which only adds pairs to test).
        let size = self.cfg.gate_m * (1.0 + 1e-9);
        let origin = (
            floor_i64(self.origin.0 / size),
            floor_i64(self.origin.1 / size),
        );
        let cell = |x: f64, y: f64| {
            (
                grid_index(x / size, origin.0),
                grid_index(y / size, origin.1),
            )
        };
        self.predicted.clear();
        self.predicted
            .extend(self.tracks.iter().map(|k| k.predicted(t)));
        self.cells.clear();
        let preds = self.predicted.iter().enumerate();
        self.cells
            .extend(preds.map(|(ki, &(x, y))| u64::from(cell_key(cell(x, y))) << 32 | ki as u64));
        self.cells.sort_unstable();
        self.by_cell.clear();
        let clusters = self.clusters.iter().enumerate();
        self.by_cell
            .extend(clusters.map(|(ci, c)| u64::from(cell_key(cell(c.x, c.y))) << 32 | ci as u64));
        self.by_cell.sort_unstable();
        for dx in [-1, 0, 1] {
            let mut at = 0;
            for &e in &self.by_cell {
                let ((cx, cy), ci) = (cell_of(e), (e & LOW) as usize);
                let Some(column) = cx.checked_add(dx) else {
                    continue;
                };
                let lo = cell_key((column, cy.saturating_sub(1)));
                let hi = cell_key((column, cy.saturating_add(1)));
                while at < self.cells.len() && ((self.cells[at] >> 32) as u32) < lo {
                    at += 1;
                }
                let c = self.clusters[ci];
                let near = self.cells[at..]
                    .iter()
                    .take_while(|&&k| (k >> 32) as u32 <= hi);
                for &k in near {
                    let ki = (k & LOW) as usize;
                    let (px, py) = self.predicted[ki];
                    let d2 = (c.x - px) * (c.x - px) + (c.y - py) * (c.y - py);
                    if d2 <= gate2 {
                        // A distance is not negative: its bits order as its value.
                        let key = u128::from(d2.to_bits()) << 64 | (ki as u128) << 32;
                        self.pairs.push(key | ci as u128);
                    }
                }
            }
        }
    }

    /// Each track takes the nearest cluster within its gate (nearest pairs first, ties
    /// in the order of (track, cluster)); the clusters left start tracks. A pair whose
    /// track and cluster are in no other pair is taken whatever the order, so only the
    /// contested pairs are sorted (in a scene of still posts, nearly none are).
    fn associate(&mut self, t: f64) {
        self.find_pairs(t);
        let cap = self.size_cap();
        let (tracks, clusters) = (&mut self.track_pairs, &mut self.cluster_pairs);
        tracks.clear();
        tracks.resize(self.tracks.len(), 0);
        clusters.clear();
        clusters.resize(self.clusters.len(), 0);
        for (_, ki, ci) in self.pairs.iter().map(unpack_pair) {
            tracks[ki] = (tracks[ki] + 1).min(2);
            clusters[ci] = (clusters[ci] + 1).min(2);
        }
        self.contested.clear();
        for &key in &self.pairs {
            let (_, ki, ci) = unpack_pair(&key);
            if tracks[ki] == 1 && clusters[ci] == 1 {
                take(&mut self.tracks[ki], self.clusters[ci], ci, t, cap);
                (tracks[ki], clusters[ci]) = (PAIRED, PAIRED);
            } else {
                self.contested.push(key);
            }
        }
        self.contested.sort_unstable();
        for (_, ki, ci) in self.contested.iter().map(unpack_pair) {
            if tracks[ki] == PAIRED || clusters[ci] == PAIRED {
                continue;
            }
            take(&mut self.tracks[ki], self.clusters[ci], ci, t, cap);
            (tracks[ki], clusters[ci]) = (PAIRED, PAIRED);
        }
        for (ci, c) in self.clusters.iter().enumerate() {
            if clusters[ci] != PAIRED {
                self.next_id += 1;
                let mut k = Track::start(self.next_id, *c, t);
                k.cluster = ci;
                self.tracks.push(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plant::world::{Obstacle, Plane, World};
    use geo::Coord;
    use proptest::prelude::*;

    /// The pairs of a search over every track and every cluster, ordered as association
    /// takes them.
    fn full_search(tr: &Tracker, t: f64) -> Vec<(f64, usize, usize)> {
        let gate2 = tr.cfg.gate_m * tr.cfg.gate_m;
        let mut pairs = Vec::new();
        for (ki, k) in tr.tracks.iter().enumerate() {
            let (px, py) = k.predicted(t);
            for (ci, c) in tr.clusters.iter().enumerate() {
                let d2 = (c.x - px) * (c.x - px) + (c.y - py) * (c.y - py);
                if d2 <= gate2 {
                    pairs.push((d2, ki, ci));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        pairs
    }

    /// The tracks after association done plainly: every pair nearest first, each taken
    /// where neither its track nor its cluster is taken yet; then the clusters left start
    /// tracks.
    fn greedy(tr: &Tracker, pairs: &[(f64, usize, usize)], t: f64) -> Vec<Track> {
        let mut tracks = tr.tracks.clone();
        let (mut k_done, mut c_done) = (vec![false; tracks.len()], vec![false; tr.clusters.len()]);
        for &(_, ki, ci) in pairs {
            if !k_done[ki] && !c_done[ci] {
                (k_done[ki], c_done[ci]) = (true, true);
                take(&mut tracks[ki], tr.clusters[ci], ci, t, tr.size_cap());
            }
        }
        let mut next = tr.next_id;
        let left = tr.clusters.iter().enumerate().zip(&c_done);
        for ((ci, c), _) in left.filter(|(_, done)| !**done) {
            next += 1;
            let mut k = Track::start(next, *c, t);
            k.cluster = ci;
            tracks.push(k);
        }
        tracks
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The grid's pairs are the full search's, and association pairs as taking them
        /// all nearest first does, over scans of moving clutter (returns that drift from
        /// step to step, so tracks and clusters meet, and several contest a pair).
        #[test]
        fn association_by_grid_equals_a_full_search(
            returns in prop::collection::vec(
                (0usize..360, 1.0f64..30.0, -0.5f64..0.5, any::<u8>()), 0..80),
            steps in 2usize..8,
            dt in prop::sample::select(vec![0.02, 0.2]),
        ) {
            let geometry = ScanGeometry::new(360, (0.0, 0.0), 40.0);
            let mut tr = Tracker::new(TrackerConfig::default());
            let pose = Pose::default();
            for k in 0..steps {
                // A return shows at the steps of its mask's bits (at 0.2 s a step, a
                // track unseen for two steps ends, renumbering those after it).
                let mut scan = Scan::empty(360);
                for &(b, r, drift, _) in returns.iter().filter(|r| r.3 >> k & 1 == 1) {
                    scan.set(b, (r + drift * k as f64).max(0.5)).unwrap();
                }
                let t = k as f64 * dt;
                let mut probe = tr.clone();
                probe.cluster(pose, &scan, &geometry);
                let want = full_search(&probe, t);
                let plain = greedy(&probe, &want, t);
                probe.associate(t);
                let mut got = probe.pairs.clone();
                got.sort_unstable();
                let got: Vec<_> = got.iter().map(unpack_pair).collect();
                prop_assert_eq!(&got, &want);
                prop_assert_eq!(&probe.tracks, &plain);
                tr.update(t, pose, &scan, &geometry);
            }
        }
    }

    /// A length about `bound`: far either side, or within a few ulps of it.
    fn near_or_far() -> impl Strategy<Value = (f64, f64, f64)> {
        let size = prop_oneof![
            Just(0.0),
            -1e3f64..1e3,
            -1e-150f64..1e-150,
            -1e160f64..1e160,
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::MIN_POSITIVE),
        ];
        (size.clone(), size, -4i64..=4, any::<bool>(), -1e3f64..1e3).prop_map(
            |(dx, dy, ulps, near, far)| {
                let length = dx.hypot(dy);
                let bound = if near && length.is_finite() && length > 0.0 {
                    f64::from_bits((length.to_bits() as i64 + ulps) as u64)
                } else if near {
                    (dx * dx + dy * dy).sqrt()
                } else {
                    far
                };
                (dx, dy, bound)
            },
        )
    }

    proptest! {
        /// The comparison without `hypot` decides as `hypot` does: at the bound, an ulp
        /// either side, far from it, for tiny, huge, zero and non-finite lengths and bounds.
        #[test]
        fn hypot_cmp_decides_as_hypot((dx, dy, bound) in near_or_far()) {
            prop_assert_eq!(hypot_cmp((dx, dy), bound), dx.hypot(dy).partial_cmp(&bound));
            prop_assert_eq!(hypot_cmp((dx, dy), -bound), dx.hypot(dy).partial_cmp(&-bound));
        }
    }

    /// Cells are counted from the origin's and clamped far from it: two places within the
    /// gate are in the same or neighbouring cells wherever they are, and a key sorts as
    /// its (column, row).
    #[test]
    fn far_places_stay_neighbours_in_the_grid() {
        for (x, origin) in [(0.3, 0), (-0.2, 0), (40_000.5, 0), (-1e12, 5), (1e300, -7)] {
            let (a, b) = (grid_index(x, origin), grid_index(x + 0.999, origin));
            assert!(b >= a && b - a <= 1, "{x}: {a} {b}");
        }
        assert_eq!(grid_index(-0.5, 0), -1);
        assert_eq!(grid_index(1e9, 0), i16::MAX);
        assert!(cell_key((-1, 5)) < cell_key((0, -5)));
        assert!(cell_key((0, -1)) < cell_key((0, 0)));
        assert_eq!(cell_of(u64::from(cell_key((-3, 7))) << 32 | 9), (-3, 7));
    }

    fn world(obstacles: Vec<Obstacle>) -> World {
        World::new(
            Plane {
                class: None,
                state: Default::default(),
                slope_pct: 0.0,
                slope_dir_deg: 0.0,
            },
            obstacles,
        )
    }

    /// Runs the tracker from a vehicle at `(vx·t, 0)` facing east over a person that
    /// walks from `p0` at `v`, for `n` steps of 0.02 s; the moving objects at the end.
    fn track(p0: (f64, f64), v: (f64, f64), ego_speed: f64, n: usize) -> Vec<MovingObject> {
        let g = ScanGeometry::new(360, (1.9, 0.0), 40.0);
        let mut t = Tracker::new(TrackerConfig::default());
        let mut out = Vec::new();
        for i in 0..n {
            let ts = i as f64 * 0.02;
            let w = world(vec![
                Obstacle::Circle {
                    x_m: p0.0 + v.0 * ts,
                    y_m: p0.1 + v.1 * ts,
                    radius_m: 0.3,
                },
                // A static box beside the path and a long wall: neither moves.
                Obstacle::Box {
                    x_m: 15.0,
                    y_m: 4.0,
                    half_length_m: 1.0,
                    half_width_m: 0.6,
                    yaw_rad: 0.3,
                },
                Obstacle::Box {
                    x_m: 20.0,
                    y_m: -9.0,
                    half_length_m: 15.0,
                    half_width_m: 0.2,
                    yaw_rad: 0.0,
                },
            ]);
            let pose = Pose {
                x_m: ego_speed * ts,
                y_m: 0.0,
                yaw_rad: 0.0,
            };
            let scan = scan_of(&w, pose);
            t.update(ts, pose, &scan, &g);
            t.moving(&mut out);
        }
        out
    }

    #[test]
    fn a_crossing_person_is_tracked_with_its_velocity_and_static_things_are_not() {
        for ego_speed in [0.0, 5.0] {
            let m = track((30.0, -6.0), (0.0, 1.4), ego_speed, 50);
            assert_eq!(m.len(), 1, "ego at {ego_speed} m/s: {m:?}");
            let o = m[0];
            assert!(
                (o.vy_mps - 1.4).abs() < 0.2 && o.vx_mps.abs() < 0.3,
                "{o:?}"
            );
            // The centroid is on the near side of the person, inside its radius.
            assert!((o.x_m - 30.0).abs() < 0.35 && (o.y_m - (-6.0 + 1.4 * 0.98)).abs() < 0.35);
        }
    }

    #[test]
    fn a_standing_person_is_not_a_moving_object() {
        assert!(track((25.0, 3.0), (0.0, 0.0), 6.0, 100).is_empty());
    }

    #[test]
    fn an_approaching_object_s_speed_is_measured() {
        let m = track((35.0, 2.0), (-4.0, 0.0), 5.0, 50);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!((m[0].vx_mps + 4.0).abs() < 0.3, "{m:?}");
    }

    /// The fit's standard error against a plain two-pass least squares: centred times,
    /// the slope, the residuals, `σ_res² = Σe² / (n − 2)` (pooled over x and y), and
    /// `σ_v = σ_res / √Σ(t − t̄)²`; for n evenly spaced samples over W that is
    /// `σ_res √(12 / (n (n + 1) / (n − 1) W²))`, close to the issue's `√(12 / (n W²))`.
    #[test]
    fn the_fit_s_standard_error_is_that_of_least_squares() {
        let n = 26;
        let samples: Vec<(f64, f64, f64)> = (0..n)
            .map(|i| {
                let t = 100.0 + i as f64 * 0.02;
                // A walker at (1.2, -0.7) m/s with centroid jitter of ±3 cm and ±1 cm.
                let e = if i % 2 == 0 { 0.03 } else { -0.03 };
                let f = if i % 3 == 0 { 0.01 } else { -0.005 };
                (t, 500.0 + 1.2 * t + e, -40.0 - 0.7 * t + f)
            })
            .collect();
        let fit = slope(samples.iter(), 100.5).unwrap();
        let tm = samples.iter().map(|s| s.0).sum::<f64>() / n as f64;
        let stt: f64 = samples.iter().map(|s| (s.0 - tm).powi(2)).sum();
        let line = |k: fn(&(f64, f64, f64)) -> f64| {
            let m = samples.iter().map(k).sum::<f64>() / n as f64;
            let b = samples.iter().map(|s| (s.0 - tm) * (k(s) - m)).sum::<f64>() / stt;
            let rss: f64 = samples
                .iter()
                .map(|s| (k(s) - m - b * (s.0 - tm)).powi(2))
                .sum();
            (b, rss)
        };
        let ((bx, rx), (by, ry)) = (line(|s| s.1), line(|s| s.2));
        assert!((fit.velocity.0 - bx).abs() < 1e-9 && (fit.velocity.1 - by).abs() < 1e-9);
        let sigma = ((rx + ry) / (2.0 * (n as f64 - 2.0)) / stt).sqrt();
        assert!(
            (fit.sigma_v - sigma).abs() < 1e-9,
            "{} {sigma}",
            fit.sigma_v
        );
        // About 0.03 m/s for ±3 cm over half a second at 50 Hz.
        assert!((0.02..0.06).contains(&fit.sigma_v), "{}", fit.sigma_v);
        // A straight line has no residual: the interval is the estimate alone.
        let exact: Vec<_> = (0..n)
            .map(|i| (i as f64 * 0.02, 3.0 + 1.4 * i as f64 * 0.02, 1.0))
            .collect();
        let f = slope(exact.iter(), 0.0).unwrap();
        assert!(
            f.sigma_v < 1e-9 && (f.velocity.0 - 1.4).abs() < 1e-9,
            "{f:?}"
        );
    }

    /// A person who sets off is young: its interval reaches a person's top speed (3.5 m/s)
    /// when it is first seen moving; from 1.2 s on it is the fit's (or the centroid's
    /// jumps') width about the estimate and holds the true speed. A standing person is never a moving object, so never swept at a
    /// top speed.
    #[test]
    fn a_walker_is_young_then_known_and_a_standing_person_is_neither() {
        let cfg = TrackerConfig::default();
        let first = (1..=120).find_map(|n| {
            track((30.0, -6.0), (0.0, 1.4), 5.0, n)
                .first()
                .map(|o| (n, *o))
        });
        let (n0, o) = first.expect("seen moving");
        assert_eq!(o.speed_hi_mps, cfg.person_top_speed_mps, "{o:?}");
        // Known 1.2 s on (the fit's first speeds dip below the moving speed once, and it
        // is young again when it moves on): each step's interval holds the true 1.4 m/s,
        // though the
        // estimate swings between about 1.0 and 1.6 m/s as beams gain and lose the body.
        for n in (n0 + 60..n0 + 110).step_by(5) {
            let m = track((30.0, -6.0), (0.0, 1.4), 5.0, n);
            let Some(o) = m.first() else { continue };
            let speed = o.vx_mps.hypot(o.vy_mps);
            assert!(
                o.speed_lo_mps <= speed && speed <= o.speed_hi_mps,
                "{n}: {o:?}"
            );
            assert!(o.speed_hi_mps < 2.5, "{n}: {o:?}");
            assert!(o.speed_lo_mps <= 1.4 && 1.4 <= o.speed_hi_mps, "{n}: {o:?}");
        }
        assert!(track((25.0, 3.0), (0.0, 0.0), 6.0, 100).is_empty());
    }

    /// The clusters of one scan from a vehicle at the origin facing east, the tracker's
    /// surface tolerance `tol`.
    fn clusters_of(obstacles: Vec<Obstacle>, tol: f64) -> Vec<Cluster> {
        let g = ScanGeometry::new(360, (1.9, 0.0), 40.0);
        let scan = world(obstacles).scan(Coord { x: 1.9, y: 0.0 }, 0.0, 360, 40.0);
        let mut t = Tracker::new(TrackerConfig {
            surface_tolerance_m: tol,
            ..TrackerConfig::default()
        });
        t.cluster(Pose::default(), &scan, &g);
        t.clusters
    }

    /// A wall 2.4 m beside the lane, grazed by the beams: without the surface join its far
    /// returns lie metres apart and each is a cluster of its own (a row of fragments that
    /// slide along it as the vehicle moves); with it the face is one run, longer than
    /// `max_size_m`, so structure. A post off the wall's line stays a cluster of its own;
    /// one standing on the line beyond the wall's end joins it (the risk docs/rules.md
    /// names).
    #[test]
    fn a_grazed_face_is_one_cluster_and_a_post_off_its_line_is_not() {
        let wall = Obstacle::Box {
            x_m: 15.0,
            y_m: 2.55,
            half_length_m: 10.0,
            half_width_m: 0.15,
            yaw_rad: 0.0,
        };
        let post = |x: f64, y: f64| Obstacle::Circle {
            x_m: x,
            y_m: y,
            radius_m: 0.15,
        };
        let near =
            |cs: &[Cluster], x: f64, y: f64| cs.iter().any(|c| (c.x - x).hypot(c.y - y) < 0.5);
        let apart = clusters_of(vec![wall.clone()], 0.0);
        assert!(apart.len() >= 5, "{apart:?}");
        let joined = clusters_of(vec![wall.clone(), post(20.0, -3.0)], 0.05);
        assert_eq!(joined.len(), 1, "{joined:?}");
        assert!(near(&joined, 20.0, -3.0), "{joined:?}");
        let alone = clusters_of(vec![post(27.5, 2.55)], 0.05);
        assert!(near(&alone, 27.5, 2.55), "{alone:?}");
        let in_line = clusters_of(vec![wall, post(27.5, 2.55)], 0.05);
        assert!(!near(&in_line, 27.5, 2.55), "{in_line:?}");
    }
}
