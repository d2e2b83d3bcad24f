//! A report CSV of a bridge client that has no pose (dbw_client.py's: `t` and the fields of
//! each `dbw_report`, flattened as `report.field`), replayed with the observation log
//! beside it (docs/formats.md "Report CSV with observations"): JSON Lines of the bridge's
//! observations (`t`, `x`, `y`, `yaw_deg`, `vx`, `yaw_rate`, in the bridge's frame; lines
//! with a `type`, such as the `dbw_report` lines of a raw dump of the stream, are skipped).
//!
//! The observations (10 Hz) give the poses, the reports (50 Hz) the logged command
//! (`ulc_report.vel_ref`; `steering_report.cmd` with its `cmd_type`) and the gear
//! (`gear_report.gear`); both are aligned to 50 Hz control steps as a ROS 2 bag's topics
//! are ([`crate::formats::ros::bag`]).

use crate::chain::Gear;
use crate::chain::shield::Pose;
use crate::formats::log::{LogError, Record};
use crate::formats::ros::bag::{BagInfo, Feed, Topics, Vehicle};
use crate::jobs::bridge::frame;
use std::io::BufRead;
use std::path::Path;

/// One observation: its time and the pose, speed and yaw rate in the library's frame.
fn observation(v: &serde_json::Value) -> Option<(f64, Pose, f64, f64)> {
    if v.get("type").is_some() {
        return None;
    }
    let n = |k: &str| v.get(k).and_then(|x| x.as_f64());
    let (x, y, yaw) = frame::pose_from_bridge(n("x")?, n("y")?, n("yaw_deg")?);
    let pose = Pose {
        x_m: x,
        y_m: y,
        yaw_rad: yaw,
    };
    Some((
        n("t")?,
        pose,
        n("vx")?,
        frame::flip(n("yaw_rate").unwrap_or(0.0)),
    ))
}

/// Reads the observations of a JSON Lines file, in order; a line that is not JSON is an
/// error naming it, a line that is not an observation is skipped.
fn observations(path: &Path) -> Result<Vec<(f64, Pose, f64, f64)>, LogError> {
    let file = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| LogError::Io(e, file.clone()))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| LogError::Io(e, file.clone()))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| LogError::Line {
            file: file.clone(),
            line: i as u64 + 1,
            message: e.to_string(),
        })?;
        out.extend(observation(&v));
    }
    if out.is_empty() {
        return Err(LogError::File {
            file,
            message: "no observation (lines with t, x, y, yaw_deg and vx)".into(),
        });
    }
    Ok(out)
}

/// Replays a report CSV with its observation log: each control step's record to `each`.
pub fn read_reports(
    reports: &Path,
    observations_path: &Path,
    vehicle: Vehicle,
    each: impl FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    let obs = observations(observations_path)?;
    let file = reports.display().to_string();
    let topics = Topics::default();
    let mut feed = Feed::new(&file, &topics, vehicle, 0, each);
    let mut rd = csv::Reader::from_path(reports).map_err(|e| feed.err(e.to_string()))?;
    let headers = rd.headers().map_err(|e| feed.err(e.to_string()))?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let t_col = col("t").ok_or_else(|| feed.err("no column `t`".into()))?;
    let (speed, steer, kind, gear) = (
        col("ulc_report.vel_ref"),
        col("steering_report.cmd"),
        col("steering_report.cmd_type"),
        col("gear_report.gear"),
    );
    let mut next_obs = obs.iter().peekable();
    for row in rd.records() {
        let row = row.map_err(|e| feed.err(e.to_string()))?;
        let line = row.position().map_or(0, |p| p.line());
        let num = |c: Option<usize>| c.and_then(|i| row.get(i)?.trim().parse::<f64>().ok());
        let t = num(Some(t_col)).ok_or_else(|| LogError::Line {
            file: file.clone(),
            line,
            message: "column `t`: not a number".into(),
        })?;
        while let Some(&&(to, pose, v, w)) = next_obs.peek().filter(|o| o.0 <= t) {
            feed.pose(to, pose, v, w)?;
            next_obs.next();
        }
        let steering = num(steer).zip(num(kind));
        let g = num(gear).and_then(|g| Gear::from_number(g as u8));
        feed.report(t, num(speed), steering, g)?;
    }
    for &(to, pose, v, w) in next_obs {
        feed.pose(to, pose, v, w)?;
    }
    feed.finish(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Observations at 10 Hz in the bridge's frame (heading south-east at 2 m/s) and
    /// reports at 50 Hz: the records step at 50 Hz with the poses interpolated and turned
    /// into the library's frame, the speed of the observations, and the logged command of
    /// the reports (a steering wheel angle turned into its curvature).
    #[test]
    fn reports_with_observations_give_records_at_50_hz() {
        let dir = tempfile::tempdir().unwrap();
        let (obs, csv) = (dir.path().join("obs.jsonl"), dir.path().join("reports.csv"));
        let (c, s) = (45f64.to_radians().cos(), 45f64.to_radians().sin());
        let mut o = String::new();
        for k in 0..=20 {
            let t = 10.0 + k as f64 * 0.1;
            let d = 2.0 * (t - 10.0);
            o.push_str(&format!(
                "{{\"t\":{t},\"x\":{},\"y\":{},\"yaw_deg\":45.0,\"vx\":2.0,\"yaw_rate\":0.05}}\n",
                d * c,
                d * s
            ));
            o.push_str("{\"type\":\"dbw_report\",\"t\":0}\n");
        }
        std::fs::write(&obs, o).unwrap();
        let mut r = String::from(
            "t,ulc_report.vel_ref,steering_report.cmd,steering_report.cmd_type,gear_report.gear\n",
        );
        for k in 0..=100 {
            r.push_str(&format!("{},2.0,30.0,2,4\n", 10.0 + k as f64 * 0.02));
        }
        std::fs::write(&csv, r).unwrap();
        let v = Vehicle::of(&crate::config::Config::builtin());
        let mut recs = Vec::new();
        read_reports(&csv, &obs, v, |r| {
            recs.push(r.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(recs.len(), 101);
        let k = (30.0 / v.steering_ratio).to_radians().tan() / v.wheelbase_m;
        for r in &recs {
            let d = 2.0 * r.t;
            assert!((r.state.pose.x_m - d * c).abs() < 1e-9, "{r:?}");
            assert!(
                (r.state.pose.y_m + d * s).abs() < 1e-9,
                "south is −y: {r:?}"
            );
            assert!((r.state.pose.yaw_rad + 45f64.to_radians()).abs() < 1e-9);
            assert_eq!((r.state.speed_mps, r.state.yaw_rate_rps), (2.0, -0.05));
            assert_eq!(r.state.gear, Gear::High);
            let l = r.logged.unwrap();
            assert_eq!(l.speed_mps, 2.0);
            assert!((l.curvature_per_m - k).abs() < 1e-12);
        }
        std::fs::write(&obs, "{\"type\":\"dbw_report\"}\n").unwrap();
        let e = read_reports(&csv, &obs, v, |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("obs.jsonl") && e.contains("no observation"),
            "{e}"
        );
    }
}
