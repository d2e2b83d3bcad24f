//! Test rigs on the simulated Polaris (vehicle-software.md "Validation" and "Speed
//! Envelope"): the steering step, the stop test and the follow test, each on one ground
//! class and state. `acres envelope measure` runs them for every class; the validation
//! tests of [sim] assert their results.

use crate::chain::envelope::{Grip, GroundClass};
use crate::chain::path::{Direction, Path, PathPoint};
use crate::chain::scan::Scan;
use crate::chain::shield::{Command, Shield};
use crate::chain::{Chain, ChainInput};
use crate::config::Config;
use crate::ground::map::Map;
use crate::plant::dbw::DbwCommands;
use crate::plant::vehicle::GroundState;
use crate::plant::world::{Plane, World};
use crate::plant::{Plant, StartPose};
use serde::Serialize;
use std::sync::Arc;

/// A straight lane of one class from a point along a heading.
fn lane(x0: f64, y0: f64, yaw: f64, class: GroundClass, speed_mps: f64, length_m: f64) -> Path {
    let (sy, cy) = yaw.sin_cos();
    let n = (length_m / 0.5) as usize + 1;
    let pts: Vec<PathPoint> = (0..n)
        .map(|i| PathPoint {
            x: x0 + cy * 0.5 * i as f64,
            y: y0 + sy * 0.5 * i as f64,
            speed_mps,
            class: Some(class),
            direction: Direction::Forward,
        })
        .collect();
    Path::new("rig lane", &pts).expect("a straight lane is a path")
}

fn flat(class: GroundClass, state: GroundState) -> Plane {
    Plane {
        class: Some(class),
        state,
        slope_pct: 0.0,
        slope_dir_deg: 0.0,
    }
}

/// The result of a steering step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SteeringStep {
    pub wheel_lift: bool,
    /// The vehicle rolled over (the run ends there).
    pub rolled_over: bool,
    /// The largest lateral acceleration after the step, m/s².
    pub max_lateral_accel_mps2: f64,
    /// The smallest inner load ratio after the step (≤ 0: a wheel lifted).
    pub min_inner_load: f64,
}

/// The steering step of vehicle-software.md "Validation" on a simulated Polaris in the
/// process: see [`steering_step_on`].
pub fn steering_step(
    config: &Config,
    class: GroundClass,
    state: GroundState,
    speed_mps: f64,
    curvature_per_m: f64,
    corner_rule: bool,
) -> SteeringStep {
    let mut rig = PlantRig::new(config, World::new(flat(class, state), vec![]));
    steering_step_on(
        config,
        &mut rig,
        class,
        speed_mps,
        curvature_per_m,
        corner_rule,
    )
    .expect("the plant rig does not fail")
}

/// The steering step on a rig: the vehicle starts at `speed_mps` and holds it straight
/// for 2 s, then the request steps to `curvature_per_m` at the same speed for 6 s,
/// through the chain's shield (with or without its corner rule) and actuator limits, at
/// 50 Hz from the measured state (on a bridge: the last observation).
pub fn steering_step_on(
    config: &Config,
    rig: &mut dyn Rig,
    class: GroundClass,
    speed_mps: f64,
    curvature_per_m: f64,
    corner_rule: bool,
) -> Result<SteeringStep, String> {
    let first = rig.start(speed_mps)?;
    let start = first
        .state
        .ok_or("the rig gives no pose (a bridge without observations)")?;
    // The reference path: a lane along the start heading.
    let p = start.pose;
    let route = lane(p.x_m, p.y_m, p.yaw_rad, class, speed_mps, 400.0);
    let shield = Shield::new(config, Grip::Unknown)
        .expect("the unknown grip table always exists")
        .with_rules(corner_rule, true);
    let mut chain = Chain::new(config, route, Grip::Unknown)
        .map_err(|e| e.to_string())?
        .with_shield(shield);
    let mut out = SteeringStep {
        wheel_lift: false,
        rolled_over: false,
        max_lateral_accel_mps2: 0.0,
        min_inner_load: 1.0,
    };
    let mut sample = first;
    for k in 0..400u64 {
        let stepped = k >= 100;
        let state = sample.state.ok_or("the rig lost the pose")?;
        let scan = sample
            .scan
            .take()
            .unwrap_or_else(|| Scan::empty(config.control.corridor.beams as usize));
        let request = Command {
            curvature_per_m: if stepped { curvature_per_m } else { 0.0 },
            speed_mps,
        };
        let input = ChainInput {
            step: k,
            state,
            scan: &scan,
            proposal: None,
        };
        let row = chain
            .step_fixed(&input, request)
            .map_err(|e| e.to_string())?;
        rig.send(&crate::plant::row_commands(&row))?;
        sample = rig.tick()?;
        if stepped {
            out.wheel_lift |= sample.wheel_lift;
            out.min_inner_load = out.min_inner_load.min(sample.min_inner_load);
            out.max_lateral_accel_mps2 = out.max_lateral_accel_mps2.max(sample.max_abs_ay_mps2);
            out.rolled_over |= sample.rolled_over;
        }
        if sample.rolled_over {
            break;
        }
    }
    Ok(out)
}

/// What a rig measured over one control tick (50 Hz).
#[derive(Debug, Clone, Default)]
pub struct Sample {
    /// The signed speed at the end of the tick, m/s.
    pub speed_mps: f64,
    /// The distance travelled since the start, m (odometry).
    pub distance_m: f64,
    /// The largest lateral acceleration and the smallest inner load ratio of the tick.
    pub max_abs_ay_mps2: f64,
    pub min_inner_load: f64,
    pub wheel_lift: bool,
    /// The vehicle has rolled over (a rig that cannot tell says false).
    pub rolled_over: bool,
    /// The state and scan the chain needs, where the rig has them.
    pub state: Option<crate::chain::VehicleState>,
    pub scan: Option<Scan>,
}

/// A vehicle the test rigs drive: in the process ([`PlantRig`]) or through a vehicle
/// bridge ([`crate::jobs::bridge::client::BridgeRig`]).
pub trait Rig {
    /// Puts the vehicle at its start pose moving at `speed_mps` with the DBW enabled in
    /// high gear; returns the first sample.
    fn start(&mut self, speed_mps: f64) -> Result<Sample, String>;
    /// Sends commands; they apply at the next physics step.
    fn send(&mut self, cmds: &DbwCommands) -> Result<(), String>;
    /// Advances one control tick (0.02 s) and returns what it measured.
    fn tick(&mut self) -> Result<Sample, String>;
}

/// The rig of a simulated Polaris in the process, on a world.
pub struct PlantRig {
    config: Config,
    world: World,
    plant: Option<Plant>,
    distance: f64,
}

impl PlantRig {
    /// A rig on `world`; the vehicle starts at the origin heading east.
    pub fn new(config: &Config, world: World) -> PlantRig {
        PlantRig {
            config: config.clone(),
            world,
            plant: None,
            distance: 0.0,
        }
    }

    fn sample(&self, mut s: Sample) -> Sample {
        let p = self.plant.as_ref().expect("started");
        s.speed_mps = p.speed_mps();
        s.distance_m = self.distance;
        s.state = Some(p.chain_state());
        s.scan = Some(p.scan());
        s
    }
}

impl Rig for PlantRig {
    fn start(&mut self, speed_mps: f64) -> Result<Sample, String> {
        let start = StartPose {
            speed_mps,
            ..StartPose::default()
        };
        self.plant = Some(Plant::new(&self.config, self.world.clone(), start, true));
        self.distance = 0.0;
        Ok(self.sample(Sample {
            min_inner_load: 1.0,
            ..Sample::default()
        }))
    }

    fn send(&mut self, cmds: &DbwCommands) -> Result<(), String> {
        self.plant.as_mut().expect("started").apply(cmds);
        Ok(())
    }

    fn tick(&mut self) -> Result<Sample, String> {
        let mut s = Sample {
            min_inner_load: 1.0,
            ..Sample::default()
        };
        let p = self.plant.as_mut().expect("started");
        loop {
            let info = p.physics();
            self.distance += p.speed_mps().abs() / crate::plant::dbw::PHYSICS_HZ as f64;
            s.max_abs_ay_mps2 = s.max_abs_ay_mps2.max(p.vehicle.s.ay_mps2.abs());
            s.min_inner_load = s.min_inner_load.min(info.inner_load_ratio);
            s.wheel_lift |= info.wheel_lift;
            s.rolled_over |= info.rolled_over;
            if p.is_control_step() {
                break;
            }
        }
        Ok(self.sample(s))
    }
}

/// The result of a stop-and-hold test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HoldTest {
    /// When the vehicle came to rest (speed below 1 mm/s), s after the stop command.
    pub rest_s: Option<f64>,
    /// The largest distance from the rest position in the 30 s after it, m.
    pub moved_m: f64,
}

/// The hold test of vehicle-software.md "Validation" (hold_tests): the vehicle at
/// `speed_mps` on its pose in `world` gets the ULC stop command (speed 0) for 45 s.
pub fn hold_test(config: &Config, world: World, start: StartPose) -> HoldTest {
    let stop = crate::plant::dbw::DbwCommands {
        ulc_cmd: Some(crate::plant::dbw::UlcCmd {
            cmd: 0.0,
            cmd_type: 1,
            enable: true,
            ..crate::plant::dbw::UlcCmd::default()
        }),
        ..crate::plant::dbw::DbwCommands::default()
    };
    let mut plant = Plant::new(config, world, start, true);
    let hz = crate::plant::dbw::PHYSICS_HZ as u64;
    let mut rest: Option<(u64, f64, f64)> = None;
    let mut moved = 0.0f64;
    while plant.step_index() < 45 * hz {
        if plant.is_control_step() {
            plant.apply(&stop);
        }
        plant.physics();
        let (step, s) = (plant.step_index(), &plant.vehicle.s);
        match rest {
            None if plant.speed_mps().abs() < 1e-3 => rest = Some((step, s.x_m, s.y_m)),
            Some((t0, x0, y0)) if step <= t0 + 30 * hz => {
                moved = moved.max((s.x_m - x0).hypot(s.y_m - y0));
            }
            _ => {}
        }
    }
    HoldTest {
        rest_s: rest.map(|(t, _, _)| t as f64 / hz as f64),
        moved_m: moved,
    }
}

/// The speed below which a stop's tail is counted, m/s.
pub const TAIL_SPEED_MPS: f64 = 0.5;

/// The result of a stop test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StopTest {
    /// The largest speed over the command while reaching and holding it, m/s.
    pub overshoot_mps: f64,
    /// The speed when the stop was commanded, m/s.
    pub speed_at_stop_mps: f64,
    /// From the stop command to rest, m.
    pub stop_distance_m: f64,
    /// The deceleration of the stop: the largest held over 0.5 s, m/s² (the onset of
    /// braking is the response time of the envelope, not part of it).
    pub decel_mps2: f64,
    /// The distance covered after the speed fell below [`TAIL_SPEED_MPS`], m.
    pub tail_m: f64,
    /// From the stop command to rest, s.
    pub stop_time_s: f64,
}

fn ulc(speed: f64) -> crate::plant::dbw::DbwCommands {
    crate::plant::dbw::DbwCommands {
        ulc_cmd: Some(crate::plant::dbw::UlcCmd {
            cmd: speed,
            cmd_type: 1,
            enable: true,
            ..crate::plant::dbw::UlcCmd::default()
        }),
        gear_cmd: Some(crate::plant::dbw::GearCmd {
            cmd: 4,
            ..crate::plant::dbw::GearCmd::default()
        }),
        ..crate::plant::dbw::DbwCommands::default()
    }
}

/// The stop test of the speed envelope on a simulated Polaris in the process, on flat
/// ground of a class and state: see [`stop_test_on`].
pub fn stop_test(
    config: &Config,
    class: GroundClass,
    state: GroundState,
    speed_mps: f64,
) -> StopTest {
    let mut rig = PlantRig::new(config, World::new(flat(class, state), vec![]));
    stop_test_on(config, &mut rig, speed_mps).expect("the plant rig does not fail")
}

/// The stop test ("Speed Envelope": measured stops) on a rig: from rest the ULC speed
/// command `speed_mps` until the speed has settled (the overshoot is the largest
/// excess), then the ULC stop command (speed 0) until rest, at 50 Hz; distances by the
/// rig's odometry.
pub fn stop_test_on(
    config: &Config,
    rig: &mut dyn Rig,
    speed_mps: f64,
) -> Result<StopTest, String> {
    let hz = 50u64;
    let accel = config.control.dbw.ulc.limit_accel_mps2.max(0.1);
    let stop_at = ((speed_mps / accel + 8.0) * hz as f64).ceil() as u64;
    let mut s = rig.start(0.0)?;
    let mut vmax = 0.0f64;
    for _ in 0..stop_at {
        rig.send(&ulc(speed_mps))?;
        s = rig.tick()?;
        vmax = vmax.max(s.speed_mps);
    }
    let (d_stop, v_stop) = (s.distance_m, s.speed_mps);
    let window = (hz / 2) as usize;
    let mut speeds: std::collections::VecDeque<f64> = std::collections::VecDeque::new();
    let (mut decel, mut tail_from, mut ticks) = (0.0f64, None, 0u64);
    speeds.push_back(v_stop);
    while ticks < 60 * hz {
        rig.send(&ulc(0.0))?;
        s = rig.tick()?;
        ticks += 1;
        let v = s.speed_mps;
        speeds.push_back(v);
        if speeds.len() > window + 1 {
            speeds.pop_front();
        }
        if speeds.len() == window + 1 {
            decel = decel.max((speeds[0] - v) / 0.5);
        }
        if tail_from.is_none() && v < TAIL_SPEED_MPS {
            tail_from = Some(s.distance_m);
        }
        if v.abs() < 1e-3 {
            break;
        }
    }
    Ok(StopTest {
        overshoot_mps: (vmax - speed_mps).max(0.0),
        speed_at_stop_mps: v_stop,
        stop_distance_m: s.distance_m - d_stop,
        decel_mps2: decel,
        tail_m: s.distance_m - tail_from.unwrap_or(s.distance_m),
        stop_time_s: ticks as f64 / hz as f64,
    })
}

/// The result of a follow test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FollowTest {
    /// The gap from the front of the footprint to the wall at rest, m.
    pub gap_m: f64,
    /// The obstacle margin the shield used, m.
    pub margin_used_m: f64,
    /// The largest speed on the way, m/s.
    pub max_speed_mps: f64,
    pub collided: bool,
}

/// The follow test: from rest on a straight lane of the class, the chain (default driver
/// and shield) drives at the speed of the route (`speed_mps`) toward a wall across the
/// lane 120 m ahead, until it stands; the gap to the wall is what the obstacle margin
/// left.
pub fn follow_test(
    config: &Config,
    class: GroundClass,
    state: GroundState,
    speed_mps: f64,
) -> FollowTest {
    use crate::plant::world::Obstacle;
    let wall_x = 120.0;
    let wall = Obstacle::Box {
        x_m: wall_x + 0.25,
        y_m: 0.0,
        half_length_m: 0.25,
        half_width_m: 4.0,
        yaw_rad: 0.0,
    };
    let world = World::new(flat(class, state), vec![wall]);
    let route = lane(0.0, 0.0, 0.0, class, speed_mps, wall_x + 40.0);
    let mut chain =
        Chain::new(config, route, Grip::Unknown).expect("the unknown grip table always exists");
    let margin = chain.shield().class_limits(Some(class)).obstacle_margin_m;
    let mut plant = Plant::new(config, world, StartPose::default(), true);
    let hz = crate::plant::dbw::PHYSICS_HZ as u64;
    let (mut control, mut standing, mut vmax, mut collided) = (0u64, 0u32, 0.0f64, false);
    while plant.step_index() < 180 * hz {
        if plant.is_control_step() {
            let scan = plant.scan();
            let input = ChainInput {
                step: control,
                state: plant.chain_state(),
                scan: &scan,
                proposal: None,
            };
            let row = chain.step(&input).expect("the plant's state is finite");
            plant.apply_row(&row);
            control += 1;
            collided |= plant.collided();
            if plant.speed_mps().abs() < 1e-3 && row.speed_mps == 0.0 && plant.time_s() > 2.0 {
                standing += 1;
                if standing >= 50 {
                    break;
                }
            } else {
                standing = 0;
            }
            if collided {
                break;
            }
        }
        plant.physics();
        vmax = vmax.max(plant.speed_mps());
    }
    FollowTest {
        gap_m: plant.gap_m().unwrap_or(f64::INFINITY),
        margin_used_m: margin,
        max_speed_mps: vmax,
        collided,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vehicle-software.md "Validation", steering step: a curvature step to 0.2 1/m at a
    /// held 7.8 m/s (12.2 m/s² asked) without the corner rule. The tires give at most
    /// μ g, so the vehicle rolls over where μ is above the rollover threshold (dry
    /// pavement: μ 0.85 and 0.9 against about 0.74) and slides wide, wheels down,
    /// everywhere else (a departure from the reference, which rolls over on every class).
    #[test]
    fn without_the_corner_rule_a_step_rolls_over_only_where_the_grip_allows() {
        let cfg = Config::builtin();
        let p = crate::plant::vehicle::VehicleDynamics::default();
        let threshold = p.track_m / (2.0 * p.cg_height_m);
        for class in GroundClass::ALL {
            for state in [GroundState::Dry, GroundState::Wet] {
                let r = steering_step(&cfg, class, state, 7.8, 0.2, false);
                let (mu, _) = crate::plant::vehicle::ground(Some(class), state);
                // The roll shift lowers the SSF's 0.79 to about 0.74.
                let expect = mu > threshold - 0.05;
                assert_eq!(r.wheel_lift, expect, "{class} {state:?}: {r:?}");
                assert_eq!(r.rolled_over, expect, "{class} {state:?}: {r:?}");
                let g = crate::ground::class::G;
                assert!(
                    r.max_lateral_accel_mps2 <= 1.02 * mu * g,
                    "{class} {state:?}: {r:?}"
                );
                assert!(
                    r.max_lateral_accel_mps2 > 0.9 * mu.min(threshold) * g,
                    "{r:?}"
                );
            }
        }
    }

    /// With the corner rule no step lifts a wheel and the largest lateral acceleration
    /// stays near the reference's 3.9 m/s² (at most 4.5), at every held speed up to 7.8.
    #[test]
    fn with_the_corner_rule_no_step_lifts_a_wheel() {
        let cfg = Config::builtin();
        let mut largest = 0.0f64;
        for class in GroundClass::ALL {
            for state in [GroundState::Dry, GroundState::Wet] {
                for speed in [3.0, 5.6, 7.8] {
                    let r = steering_step(&cfg, class, state, speed, 0.2, true);
                    assert!(!r.wheel_lift, "{class} {state:?} {speed}: {r:?}");
                    assert!(r.max_lateral_accel_mps2 <= 4.5, "{class} {state:?}: {r:?}");
                    largest = largest.max(r.max_lateral_accel_mps2);
                }
            }
        }
        // The rule caps the command at 1.5 m/s²; the speed falls behind the curvature.
        assert!(largest > 2.0, "largest lateral acceleration {largest}");
    }

    /// vehicle-software.md "Validation", measured stops: a stop from 7 m/s takes 14.4 m
    /// to 18.4 m on every class and ground state; the controller limits the deceleration
    /// to 1.5 m/s², the grip does not.
    #[test]
    fn a_stop_from_7_mps_is_within_the_reference_range_on_every_class() {
        let cfg = Config::builtin();
        for class in GroundClass::ALL {
            for state in [GroundState::Dry, GroundState::Wet] {
                let r = stop_test(&cfg, class, state, 7.0);
                assert!(
                    (r.speed_at_stop_mps - 7.0).abs() < 0.1,
                    "{class} {state:?}: {r:?}"
                );
                assert!(
                    (14.4..=18.4).contains(&r.stop_distance_m),
                    "{class} {state:?}: {r:?}"
                );
                // The controller limit 1.5 m/s², with the overshoot of its brake demand.
                assert!(
                    (1.45..=1.7).contains(&r.decel_mps2),
                    "{class} {state:?}: {r:?}"
                );
                assert!(r.tail_m > 0.0 && r.tail_m < 0.5, "{class} {state:?}: {r:?}");
                assert!(r.overshoot_mps < 0.5, "{class} {state:?}: {r:?}");
            }
        }
    }

    /// The follow test stops before the wall, the gap near the margin the shield used.
    #[test]
    fn the_follow_test_stops_before_the_wall() {
        let cfg = Config::builtin();
        let r = follow_test(&cfg, GroundClass::Gravel, GroundState::Dry, 6.9);
        assert!(!r.collided, "{r:?}");
        assert!(r.max_speed_mps > 6.0, "{r:?}");
        assert!(
            r.gap_m > 1.5 && (r.gap_m - r.margin_used_m).abs() < 0.6,
            "{r:?}"
        );
    }
}

/// A lane window of the map for a hold run: its grade along the heading (rise over run),
/// its centre and the heading along the lane's axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneWindow {
    pub grade: f64,
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
}

/// The `n` steepest windows of the map's lanes, at least `spacing_m` apart: lane cells
/// every 2 m with 6 m of lane either way along x or y, by the grade's magnitude (the
/// reference's hold tests take 16, to 9 %).
pub fn steep_lane_windows(map: &Arc<Map>, n: usize, spacing_m: f64) -> Vec<LaneWindow> {
    let plane = Plane {
        class: None,
        state: GroundState::Dry,
        slope_pct: 0.0,
        slope_dir_deg: 0.0,
    };
    let world = World::new(plane, vec![]).with_map(map.clone());
    let g = &map.classes;
    let lane = |x: f64, y: f64| g.at(x, y).is_some_and(|c| c.is_lane());
    let (w, h) = (
        g.width as f64 * g.resolution_m,
        g.height as f64 * g.resolution_m,
    );
    let mut windows = Vec::new();
    for j in 0..(h / 2.0) as usize {
        for i in 0..(w / 2.0) as usize {
            let (x, y) = (1.0 + 2.0 * i as f64, 1.0 + 2.0 * j as f64);
            for yaw in [0.0, std::f64::consts::FRAC_PI_2] {
                let (s, c) = f64::sin_cos(yaw);
                if lane(x, y) && lane(x + 6.0 * c, y + 6.0 * s) && lane(x - 6.0 * c, y - 6.0 * s) {
                    let grade = world.ground_at(x, y, yaw).grade;
                    windows.push(LaneWindow {
                        grade,
                        x_m: x,
                        y_m: y,
                        yaw_rad: yaw,
                    });
                }
            }
        }
    }
    windows.sort_by(|a, b| b.grade.abs().total_cmp(&a.grade.abs()));
    let mut picked: Vec<LaneWindow> = Vec::new();
    for win in windows {
        if picked.len() < n
            && picked
                .iter()
                .all(|p| (p.x_m - win.x_m).hypot(p.y_m - win.y_m) > spacing_m)
        {
            picked.push(win);
        }
    }
    picked
}
