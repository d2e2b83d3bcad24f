//! The plant obeys (docs/architecture.md): [`dbw`] (the drive-by-wire model), [`vehicle`]
//! (the dynamic single track) and [`world`] (ground, obstacles, the scan). [`Plant`] is the
//! simulated Polaris as one object: the three stepped together at 120 Hz. `acres sim`, the test rigs
//! of [`crate::jobs::measure`] and the bridge drive it; the chain or a client commands it.

pub mod actors;
pub mod dbw;
pub mod vehicle;
pub mod world;

#[cfg(test)]
mod hill_tests;

use crate::chain::scan::Scan;
use crate::chain::shield::Pose;
use crate::chain::{CommandRow, Gear, VehicleState as ChainState};
use crate::config::{Config, VehicleGeometry};
use crate::plant::dbw::{Dbw, DbwCommands, DbwError, DbwReport, GearCmd, SteeringCmd, UlcCmd};
use crate::plant::vehicle::{Ground, StepInfo, Vehicle, VehicleDynamics};
use crate::plant::world::{World, footprint};
use geo::{Coord, Polygon};

/// The start of a vehicle: its rear-axle pose and signed speed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StartPose {
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
    pub speed_mps: f64,
}

/// One simulated vehicle in its world.
#[derive(Debug, Clone)]
pub struct Plant {
    pub vehicle: Vehicle,
    pub dbw: Dbw,
    pub world: World,
    geom: VehicleGeometry,
    beams: usize,
    reach_m: f64,
    step: u64,
    /// A brake held by the bridge outside the DBW (a client that disconnected): full
    /// pressure, no throttle.
    pub hold_brake: bool,
}

impl Plant {
    /// A vehicle at `start` with the DBW disabled in park, or, with `enabled`, enabled in
    /// the gear of the start speed (high, or reverse for a negative speed).
    pub fn new(config: &Config, world: World, start: StartPose, enabled: bool) -> Plant {
        let geom = config.control.vehicle.clone();
        let dynamics = VehicleDynamics::of_config(config);
        let mut vehicle = Vehicle::new(dynamics, start.x_m, start.y_m, start.yaw_rad);
        vehicle.s.vx_mps = start.speed_mps;
        let mut dbw = Dbw::new(&config.control.dbw, geom.wheelbase_m);
        if enabled {
            let on = DbwCommands {
                dbw: Some(crate::plant::dbw::commands::EnableCmd {
                    enable: true,
                    disable: false,
                }),
                ..DbwCommands::default()
            };
            dbw.apply(0, &on, start.speed_mps);
            dbw.set_gear(if start.speed_mps < 0.0 { 2 } else { 4 });
        }
        Plant {
            vehicle,
            dbw,
            world,
            beams: config.control.corridor.beams as usize,
            reach_m: config.control.corridor.range_m,
            geom,
            step: 0,
            hold_brake: false,
        }
    }

    /// The index of the next physics step.
    pub fn step_index(&self) -> u64 {
        self.step
    }

    /// The simulated time, s.
    pub fn time_s(&self) -> f64 {
        self.step as f64 / crate::plant::dbw::PHYSICS_HZ as f64
    }

    /// Whether the next physics step is a control (and report) step, at 50 Hz.
    pub fn is_control_step(&self) -> bool {
        Dbw::is_report_step(self.step)
    }

    /// The signed speed, m/s.
    pub fn speed_mps(&self) -> f64 {
        self.vehicle.speed_mps()
    }

    /// The scan of the shield from the mount point.
    pub fn scan(&self) -> Scan {
        self.scan_into(Vec::new())
    }

    /// [`Plant::scan`] written into the memory of an earlier scan's ranges.
    pub fn scan_into(&self, ranges: Vec<f64>) -> Scan {
        let s = &self.vehicle.s;
        let g = &self.geom;
        let (sy, cy) = s.yaw_rad.sin_cos();
        let mount = Coord {
            x: s.x_m + cy * g.scan_mount_x_m - sy * g.scan_mount_y_m,
            y: s.y_m + sy * g.scan_mount_x_m + cy * g.scan_mount_y_m,
        };
        (self.world).scan_into(mount, s.yaw_rad, self.beams, self.reach_m, ranges)
    }

    /// The `dbw_report` of this instant.
    /// The brake the bridge holds (`hold_brake`) is outside the DBW, like the driver's
    /// pedal: it shows as `pressure_input` and in the output, with the throttle at 0.
    pub fn report(&self, agent: &str) -> DbwReport {
        let mut r = self
            .dbw
            .report(self.step, agent, self.speed_mps(), self.vehicle.s.ax_mps2);
        if self.hold_brake {
            let bar = self.vehicle.p.brake_bar_max;
            let b = &mut r.brake_report;
            b.pressure_input = bar;
            b.pressure_output = b.pressure_output.max(bar);
            b.percent_output = b.percent_output.max(100.0);
            r.throttle_report.percent_output = 0.0;
        }
        r
    }

    /// The state the chain sees.
    pub fn chain_state(&self) -> ChainState {
        let s = &self.vehicle.s;
        ChainState {
            pose: Pose {
                x_m: s.x_m,
                y_m: s.y_m,
                yaw_rad: s.yaw_rad,
            },
            speed_mps: s.vx_mps,
            yaw_rate_rps: s.yaw_rate_rps,
            gear: Gear::from_number(self.dbw.gear()).unwrap_or(Gear::Park),
            // The pitch the vehicle measures, as a grade.
            grade: self.ground().grade,
        }
    }

    /// Applies DBW commands now; returns the command types the model does not have.
    pub fn apply(&mut self, cmds: &DbwCommands) -> Vec<DbwError> {
        self.dbw.apply(self.step, cmds, self.speed_mps())
    }

    /// Applies a command row of the chain ([`row_commands`]).
    pub fn apply_row(&mut self, row: &CommandRow) {
        self.apply(&row_commands(row));
    }

    /// The ground under the centre of gravity.
    pub fn ground(&self) -> Ground {
        let s = &self.vehicle.s;
        let b = self.vehicle.p.wheelbase_m - self.vehicle.p.cg_to_front_m;
        let (sy, cy) = s.yaw_rad.sin_cos();
        self.world
            .ground_at(s.x_m + cy * b, s.y_m + sy * b, s.yaw_rad)
    }

    /// One physics step.
    pub fn physics(&mut self) -> StepInfo {
        let ground = self.ground();
        self.dbw.grade_sin = ground.grade / (1.0 + ground.grade * ground.grade).sqrt();
        let mut act = self.dbw.step(self.step, self.speed_mps());
        if self.hold_brake {
            act.throttle_pct = 0.0;
            act.brake_bar = act.brake_bar.max(self.vehicle.p.brake_bar_max);
        }
        let info = self.vehicle.step(&act, &ground);
        self.step += 1;
        if !self.world.actors().is_empty() {
            let s = &self.vehicle.s;
            let ego = crate::plant::actors::EgoView {
                x_m: s.x_m,
                y_m: s.y_m,
                yaw_rad: s.yaw_rad,
                speed_mps: s.vx_mps,
                front_m: self.geom.front_m(),
                rear_m: self.geom.rear_overhang_m,
                half_width_m: self.geom.width_m / 2.0,
            };
            self.world.advance(self.time_s(), &ego);
        }
        info
    }

    /// Puts the vehicle at a pose with a speed along its heading (a bridge reset); the
    /// drive-by-wire keeps its state.
    pub fn place(&mut self, start: StartPose) {
        let p = self.vehicle.p.clone();
        self.vehicle = Vehicle::new(p, start.x_m, start.y_m, start.yaw_rad);
        self.vehicle.s.vx_mps = start.speed_mps;
    }

    /// The footprint at the current pose.
    pub fn footprint(&self) -> Polygon<f64> {
        let s = &self.vehicle.s;
        footprint(s.x_m, s.y_m, s.yaw_rad, &self.geom)
    }

    /// Whether the footprint touches an obstacle or an actor.
    pub fn collided(&self) -> bool {
        self.world.collides(&self.footprint())
    }

    /// What the footprint touches, if anything.
    pub fn touch(&self) -> Option<crate::plant::world::Touch> {
        self.world.touch(&self.footprint())
    }

    /// The gap from the footprint to the nearest obstacle or actor, m (None without).
    pub fn gap_m(&self) -> Option<f64> {
        self.world
            .has_objects()
            .then(|| self.world.gap(&self.footprint()))
    }
}

/// The DBW commands of a command row: ULC speed `|v|` (0 while the brake holds),
/// steering by curvature, the gear.
pub fn row_commands(row: &CommandRow) -> DbwCommands {
    DbwCommands {
        ulc_cmd: Some(UlcCmd {
            cmd: if row.brake_hold {
                0.0
            } else {
                row.speed_mps.abs()
            },
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
        gear_cmd: Some(GearCmd {
            cmd: row.gear.number(),
            ..GearCmd::default()
        }),
        ..DbwCommands::default()
    }
}
