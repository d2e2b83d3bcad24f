//! The chain and the plant in lockstep, in one process (ARCHITECTURE.md: `acres sim`):
//! physics at 120 Hz, the chain and the drive-by-wire commands at 50 Hz, a scenario file
//! for the ground, the route, the obstacles and the start.
//!
//! Each control step: the world's scan at the vehicle's mount point, the chain's command
//! row, then the row as drive-by-wire commands (ULC speed `|v|`, 0 while the brake holds;
//! steering by curvature; the gear), then physics until the next control step. A log
//! record is one control step: the state, the scan, the row and the DBW report.

use crate::chain::{Chain, ChainInput, CommandRow, Gear, VehicleState as ChainState};
use crate::config::Config;
use crate::dbw::{Dbw, DbwCommands, SteeringCmd, UlcCmd};
use crate::envelope::Grip;
use crate::path::{Path, RouteFile};
use crate::shield::Pose;
use crate::vehicle::{Ground, Vehicle, VehicleDynamics};
use crate::world::{Obstacle, Plane, World, footprint};
use geo::Coord;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;

/// The start of a scenario: the rear axle's pose and the speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
    #[serde(default)]
    pub speed_mps: f64,
}

/// The route of a scenario: a shipped route by name, a file beside the scenario, or
/// the route itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RouteRef {
    Name(String),
    Inline(RouteFile),
}

/// A scenario (`data/scenarios/*.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    pub ground: Plane,
    pub route: RouteRef,
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    pub start: Start,
    /// The longest simulated time, s.
    pub duration_s: f64,
    /// The shield's obstacle rule on (default) or off.
    #[serde(default = "yes")]
    pub shield: bool,
    /// The shield's corner rule on (default) or off.
    #[serde(default = "yes")]
    pub corner_rule: bool,
    /// Whether the log records the scan (default yes).
    #[serde(default = "yes")]
    pub record_scan: bool,
}

fn yes() -> bool {
    true
}

/// An error of a scenario or a run; it names the key or the object.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{file}: {message}")]
    Scenario { file: String, message: String },
    #[error(transparent)]
    Path(#[from] crate::path::PathError),
    #[error(transparent)]
    Chain(#[from] crate::chain::ChainError),
    #[error("writing the log: {0}")]
    Log(#[from] std::io::Error),
}

/// The default scenario, the reference's opening figure.
pub const DEFAULT_SCENARIO: &str = include_str!("../data/scenarios/opening.json");

impl Scenario {
    /// Parses a scenario; `file` names it in errors and resolves a route file beside it.
    pub fn from_json_str(file: &str, text: &str) -> Result<Scenario, SimError> {
        let err = |message: String| SimError::Scenario {
            file: file.to_string(),
            message,
        };
        let de = &mut serde_json::Deserializer::from_str(text);
        let s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            err(format!("key `{key}`: {}", e.into_inner()))
        })?;
        let st = &s.start;
        for (k, v) in [
            ("start.x_m", st.x_m),
            ("start.y_m", st.y_m),
            ("start.yaw_rad", st.yaw_rad),
            ("start.speed_mps", st.speed_mps),
        ] {
            if !v.is_finite() {
                return Err(err(format!("key `{k}`: not a finite number")));
            }
        }
        if !(s.duration_s.is_finite() && s.duration_s > 0.0 && s.duration_s <= 3600.0) {
            return Err(err("key `duration_s`: must be in (0, 3600] s".into()));
        }
        if !(s.ground.slope_pct.is_finite()
            && s.ground.slope_pct.abs() <= 100.0
            && s.ground.slope_dir_deg.is_finite())
        {
            return Err(err(
                "key `ground`: slope_pct in [−100, 100] and a finite slope_dir_deg".into(),
            ));
        }
        Ok(s)
    }

    /// The route, resolved: inline, a file beside `dir`, or a shipped route by name.
    pub fn path(&self, dir: Option<&std::path::Path>) -> Result<Path, SimError> {
        match &self.route {
            RouteRef::Inline(r) => Ok(Path::new(&r.name, &r.points)?),
            RouteRef::Name(n) => {
                if let Some(p) = dir.map(|d| d.join(n)).filter(|p| p.exists()) {
                    return Ok(Path::load(&p)?);
                }
                Path::builtin(n).ok_or_else(|| SimError::Scenario {
                    file: self.name.clone(),
                    message: format!("key `route`: no route `{n}` beside the scenario or shipped"),
                })
            }
        }
    }
}

/// The summary of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub time_s: f64,
    pub distance_m: f64,
    pub collided: bool,
    pub stopped: bool,
    /// The gap from the footprint to the nearest obstacle at the end, m (null without
    /// obstacles).
    pub gap_m: Option<f64>,
    pub max_lateral_accel_mps2: f64,
    pub wheel_lift: bool,
    /// Rule code → number of control steps it intervened.
    pub interventions: BTreeMap<String, u64>,
    pub final_speed_mps: f64,
}

/// One control step of the log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogRecord {
    pub step: u64,
    pub t: f64,
    pub state: ChainState,
    /// The scan ranges, null for no return (omitted where the scenario records none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<Vec<Option<f64>>>,
    pub row: CommandRow,
    pub dbw: crate::dbw::DbwReport,
}

/// Runs a scenario to its end (its duration, a collision, 1 s standing at the route's end
/// or 3 s standing anywhere); writes the log where one is given.
pub fn run(
    config: &Config,
    scenario: &Scenario,
    route: Path,
    mut log: Option<&mut dyn Write>,
) -> Result<Summary, SimError> {
    let shield = crate::shield::Shield::new(config, Grip::Unknown)
        .expect("the unknown grip table always exists")
        .with_rules(scenario.corner_rule, scenario.shield);
    let mut chain = Chain::new(config, route, Grip::Unknown)?.with_shield(shield);
    let geom = &config.control.vehicle;
    let k = &config.control.corridor;
    let dynamics = VehicleDynamics {
        wheelbase_m: geom.wheelbase_m,
        ..VehicleDynamics::default()
    };
    let st = scenario.start;
    let mut veh = Vehicle::new(dynamics, st.x_m, st.y_m, st.yaw_rad);
    veh.s.vx_mps = st.speed_mps;
    let mut dbw = Dbw::new(&config.control.dbw, geom.wheelbase_m);
    let on: DbwCommands = DbwCommands {
        dbw: Some(crate::dbw::commands::EnableCmd {
            enable: true,
            disable: false,
        }),
        ..DbwCommands::default()
    };
    dbw.apply(0, &on, st.speed_mps);
    dbw.set_gear(if st.speed_mps < 0.0 { 2 } else { 4 });
    let world = World::new(scenario.ground, scenario.obstacles.clone());
    let start_fp = footprint(st.x_m, st.y_m, st.yaw_rad, geom);
    for (i, o) in scenario.obstacles.iter().enumerate() {
        let one = World::new(scenario.ground, vec![o.clone()]);
        if one.collides(&start_fp) {
            return Err(SimError::Scenario {
                file: scenario.name.clone(),
                message: format!("key `obstacles[{i}]`: the obstacle is over the start pose"),
            });
        }
    }
    let steps = (scenario.duration_s * crate::dbw::PHYSICS_HZ as f64).round() as u64;
    let mut control = 0u64;
    let (mut distance, mut max_ay, mut lift, mut collided) = (0.0, 0.0f64, false, false);
    let mut interventions: BTreeMap<String, u64> = BTreeMap::new();
    let mut standing_at_end = 0u64;
    let mut standing = 0u64;
    let mut t_end = 0.0;
    for step in 0..steps {
        let v = veh.speed_mps();
        if Dbw::is_report_step(step) {
            let s = &veh.s;
            let (sy, cy) = s.yaw_rad.sin_cos();
            let mount = Coord {
                x: s.x_m + cy * geom.scan_mount_x_m - sy * geom.scan_mount_y_m,
                y: s.y_m + sy * geom.scan_mount_x_m + cy * geom.scan_mount_y_m,
            };
            let scan = world.scan(mount, s.yaw_rad, k.beams as usize, k.range_m);
            let report = dbw.report(step, "polaris", v, s.ax_mps2);
            let state = ChainState {
                pose: Pose {
                    x_m: s.x_m,
                    y_m: s.y_m,
                    yaw_rad: s.yaw_rad,
                },
                speed_mps: v,
                yaw_rate_rps: s.yaw_rate_rps,
                gear: Gear::from_number(report.gear_report.gear).unwrap_or(Gear::Park),
            };
            let row = chain.step(&ChainInput {
                step: control,
                state,
                scan: &scan,
                proposal: None,
            })?;
            for i in &row.interventions {
                *interventions.entry(i.rule.code().to_string()).or_default() += 1;
            }
            let speed = if row.brake_hold {
                0.0
            } else {
                row.speed_mps.abs()
            };
            let cmds = DbwCommands {
                ulc_cmd: Some(UlcCmd {
                    cmd: speed,
                    cmd_type: 1,
                    enable: true,
                    ..UlcCmd::default()
                }),
                steering_cmd: Some(SteeringCmd {
                    cmd: row.curvature_per_m,
                    cmd_type: 3,
                    enable: true,
                    ..SteeringCmd::default()
                }),
                gear_cmd: Some(crate::dbw::GearCmd {
                    cmd: row.gear.number(),
                    ..crate::dbw::GearCmd::default()
                }),
                ..DbwCommands::default()
            };
            dbw.apply(step, &cmds, v);
            if collided_now(&world, &veh, geom) {
                collided = true;
            }
            if row.finished {
                standing_at_end += 1;
            } else {
                standing_at_end = 0;
            }
            if v.abs() < 0.05 && row.speed_mps == 0.0 {
                standing += 1;
            } else {
                standing = 0;
            }
            if let Some(w) = log.as_deref_mut() {
                let rec = LogRecord {
                    step: control,
                    t: step as f64 / crate::dbw::PHYSICS_HZ as f64,
                    state,
                    scan: scenario.record_scan.then(|| {
                        scan.ranges()
                            .iter()
                            .map(|r| r.is_finite().then_some(*r))
                            .collect()
                    }),
                    row,
                    dbw: report,
                };
                serde_json::to_writer(&mut *w, &rec).map_err(std::io::Error::from)?;
                w.write_all(b"\n")?;
            }
            control += 1;
            // The end: a collision, 1 s standing at the route's end, or 3 s standing.
            if collided || standing_at_end >= 50 || standing >= 150 {
                t_end = step as f64 / crate::dbw::PHYSICS_HZ as f64;
                break;
            }
        }
        let act = dbw.step(step, v);
        let ground = Ground {
            class: scenario.ground.class,
            state: scenario.ground.state,
            grade: scenario.ground.grade(veh.s.yaw_rad),
        };
        let info = veh.step(&act, &ground);
        lift |= info.wheel_lift;
        max_ay = max_ay.max(veh.s.ay_mps2.abs());
        distance += veh.speed_mps().abs() / crate::dbw::PHYSICS_HZ as f64;
        t_end = (step + 1) as f64 / crate::dbw::PHYSICS_HZ as f64;
    }
    let f = footprint(veh.s.x_m, veh.s.y_m, veh.s.yaw_rad, geom);
    Ok(Summary {
        scenario: scenario.name.clone(),
        time_s: t_end,
        distance_m: distance,
        collided,
        stopped: veh.speed_mps().abs() < 0.05,
        gap_m: (!world.obstacles().is_empty()).then(|| world.gap(&f)),
        max_lateral_accel_mps2: max_ay,
        wheel_lift: lift,
        interventions,
        final_speed_mps: veh.speed_mps(),
    })
}

fn collided_now(world: &World, veh: &Vehicle, geom: &crate::config::VehicleGeometry) -> bool {
    world.collides(&footprint(veh.s.x_m, veh.s.y_m, veh.s.yaw_rad, geom))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_run(log: Option<&mut dyn Write>) -> Summary {
        let s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
        let p = s.path(None).unwrap();
        run(&Config::builtin(), &s, p, log).unwrap()
    }

    #[test]
    fn the_opening_figure_stops_before_the_object() {
        // vehicle-software.md: the vehicle steers onto the path and stops 2.4 m or more
        // before the object (the obstacle margin of gravel), here at most 3.5 m.
        let s = default_run(None);
        assert!(!s.collided, "{s:?}");
        assert!(s.stopped, "{s:?}");
        let gap = s.gap_m.unwrap();
        assert!((2.4..=3.5).contains(&gap), "gap {gap} m: {s:?}");
        assert!(s.interventions.get("obstacle").copied().unwrap_or(0) > 0);
    }

    #[test]
    fn two_runs_give_identical_logs() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        default_run(Some(&mut a));
        default_run(Some(&mut b));
        assert!(!a.is_empty());
        assert_eq!(a, b);
    }

    /// vehicle-software.md "Validation", hold_tests: from 3 m/s a stop command held for
    /// 45 s on planes of 3.2 %, 5 % and 8 %, uphill and downhill, on several classes: at
    /// rest in 3.7 s or less, and 9 mm or less of motion in the 30 s after.
    #[test]
    fn hold_tests_on_slopes() {
        use crate::dbw::{Dbw, DbwCommands};
        use crate::envelope::GroundClass;
        use crate::vehicle::GroundState;
        let cfg = Config::builtin();
        let stop: DbwCommands =
            serde_json::from_str(r#"{"ulc_cmd": {"cmd": 0.0, "cmd_type": 1, "enable": true}}"#)
                .unwrap();
        for class in [
            GroundClass::Asphalt,
            GroundClass::Gravel,
            GroundClass::Grass,
            GroundClass::Field,
        ] {
            for state in [GroundState::Dry, GroundState::Wet] {
                for grade in [0.032, 0.05, 0.08, -0.032, -0.05, -0.08] {
                    let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
                    v.s.vx_mps = 3.0;
                    let mut d = Dbw::new(&cfg.control.dbw, 2.06);
                    d.apply(
                        0,
                        &serde_json::from_str(r#"{"dbw": {"enable": true}}"#).unwrap(),
                        3.0,
                    );
                    d.set_gear(4);
                    let ground = Ground {
                        class: Some(class),
                        state,
                        grade,
                    };
                    let mut rest: Option<(u64, f64, f64)> = None;
                    let mut moved = 0.0f64;
                    for step in 0..45 * 120u64 {
                        if Dbw::is_report_step(step) {
                            d.apply(step, &stop, v.speed_mps());
                        }
                        let a = d.step(step, v.speed_mps());
                        v.step(&a, &ground);
                        match rest {
                            None if v.speed_mps().abs() < 1e-3 => {
                                rest = Some((step, v.s.x_m, v.s.y_m))
                            }
                            Some((t0, x0, y0)) if step <= t0 + 30 * 120 => {
                                moved = moved.max((v.s.x_m - x0).hypot(v.s.y_m - y0));
                            }
                            _ => {}
                        }
                    }
                    let (t0, _, _) = rest.expect("comes to rest");
                    let t = t0 as f64 / 120.0;
                    assert!(t <= 3.7, "{class} {state:?} {grade}: at rest after {t} s");
                    assert!(moved <= 0.009, "{class} {state:?} {grade}: moved {moved} m");
                }
            }
        }
    }

    #[test]
    fn an_obstacle_over_the_start_is_refused() {
        let mut s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
        s.obstacles.push(Obstacle::Circle {
            x_m: 1.0,
            y_m: 2.2,
            radius_m: 0.3,
        });
        let p = s.path(None).unwrap();
        let e = run(&Config::builtin(), &s, p, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("obstacles[1]") && e.contains("start"), "{e}");
    }

    #[test]
    fn bad_scenarios_name_the_key() {
        let bad = DEFAULT_SCENARIO.replace("\"duration_s\"", "\"duration\"");
        let e = Scenario::from_json_str("s.json", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("s.json") && e.contains("duration"), "{e}");
        let bad = DEFAULT_SCENARIO.replace("\"duration_s\": 40.0", "\"duration_s\": -1");
        let e = Scenario::from_json_str("s.json", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("duration_s"), "{e}");
    }
}
