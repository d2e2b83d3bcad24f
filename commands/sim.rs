//! `acres sim`: the chain and the simulated Polaris in one process.

use crate::Global;
use crate::output::{self, Format};
use acres::formats::scenario::Scenario;
use acres::jobs::sim;
use std::path::PathBuf;

/// Run a scenario: the command chain and the simulated Polaris in lockstep.
///
/// Physics at 120 Hz, the chain and the drive-by-wire commands at 50 Hz. Without
/// --scenario it runs the reference's opening figure (data/scenarios/opening.json, built
/// in): gravel, the vehicle starts 2.2 m beside the path at 3 m/s, an object on the path;
/// the vehicle steers onto the path and stops before the object. The summary gives the
/// time, the distance, whether it collided and stopped (at rest, below 0.05 m/s, through
/// at least the last second of the run, and since when), the final gap from the footprint to
/// the nearest obstacle, the largest lateral acceleration, wheel lift and the interventions
/// of each shield rule. The run ends at the scenario's duration, at a collision, after 1 s
/// at rest at the route's end or after 3 s standing anywhere.
///
/// Exit status: 0 when the verdict is ok, 4 when it says FAIL (a collision by the vehicle,
/// struck at rest by an actor, rolled over, slid out of the geofence, stopped inside the
/// obstacle margin); with --suite, 4 when a case a careful driver avoids (must-avoid or
/// clear; every case of a suite without classes) collides under the rule the run is judged
/// by (the last mode run: --moving, else the configured one). 1 error, 2 usage.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The scenario file (JSON, data/scenarios/README.md), or a shipped scenario's name
    /// (`opening`, `opening_no_shield_collides`, `crossing_person`, `farm_terrace_wet`,
    /// `field_loop_dry`, `lane_downhill_wet`, with or without `.json`), found from anywhere
    /// where no file of that name is here.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Write the log: JSON Lines, one record per control step (the state, the scan, the
    /// command row, the DBW report); written atomically.
    #[arg(long, value_name = "FILE.jsonl")]
    log: Option<PathBuf>,
    /// Also draw the run (.png or .svg): the path, the trace, the look-ahead points and
    /// arcs, the stop distances and the final gap, as `acres plot pure-pursuit` does.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// What the moving-object rule sees: `off` (the reference's shield), `tracker` (moving
    /// objects from the scans, the default of control_v1.json) or `oracle` (the true
    /// states of the scenario's actors, to measure the tracker's share).
    #[arg(long, value_name = "MODE", value_parser = ["off", "tracker", "oracle"])]
    moving: Option<String>,
    /// Run a suite of 30 generated scenarios instead of one: `crossing-person`,
    /// `oncoming-vehicle`, `running-child`, `crossing-machine` or `static-clutter`
    /// (docs/validation.md "Moving actors"). Without --moving it runs each scenario with
    /// the moving-object rule off (the reference's shield) and as configured, and prints
    /// per scenario the careful driver's class, the closest approach, the contact, the
    /// time lost and its bound, then the counts; --plot draws each scenario's closest
    /// approach (its time lost in `static-clutter`).
    #[arg(long, value_name = "NAME",
          value_parser = ["crossing-person", "oncoming-vehicle", "running-child",
                          "crossing-machine", "static-clutter"],
          conflicts_with_all = ["scenario", "log"])]
    suite: Option<String>,
    /// The image size in pixels, WxH (default: 1100 wide; the height of a map-like plot
    /// follows what it shows).
    #[arg(long, value_name = "WxH", value_parser = crate::output::size)]
    size: Option<(u32, u32)>,
    /// The summary's format: `table` (with a verdict line), `json` or `csv` (one row).
    /// Where the log or the plot goes to stdout (`-`), the summary goes to stderr.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// The exit status when the verdict says FAIL.
pub const EXIT_FAILED: u8 = 4;

/// Runs the command; returns whether the verdict is ok (for a suite: no judged collision).
pub fn run(args: Args, global: &Global) -> anyhow::Result<bool> {
    let mut config = global.load_config()?;
    if let Some(m) = &args.moving {
        config.control.shield.moving_obstacle = m.parse().map_err(anyhow::Error::msg)?;
    }
    let plot_format = match &args.plot {
        Some(p) => Some(crate::plot::image_format(None, p)?),
        None => None,
    };
    let stdout_taken = output::check_outputs(&[
        ("--log", args.log.as_deref(), output::Kind::Text),
        (
            "--plot",
            args.plot.as_deref(),
            plot_format.map_or(output::Kind::Text, crate::plot::image_kind),
        ),
    ])?;
    if let Some(name) = &args.suite {
        return run_suite(&args, name, &config, global, stdout_taken);
    }
    let scenario = Scenario::load(args.scenario.as_deref())?;
    let route = scenario.route()?;
    if let Some(d) = scenario.far_start_m(&route) {
        eprintln!(
            "acres: warning: {}: the start is {d:.1} m from the route; the driver heads for \
             the route's nearest point",
            scenario.file
        );
    }
    let spec = |format| acres::plot::ImageSpec {
        format,
        size: args.size,
    };
    let summary = match (&args.plot, plot_format) {
        (Some(plot), Some(format)) => {
            // The plot needs the records: the log is kept in memory for it.
            let mut log = Vec::new();
            let s = sim::run(&config, &scenario, route.clone(), Some(&mut log))?;
            let bytes = acres::plot::pure_pursuit_of_log(
                &config,
                &scenario,
                &route,
                &log,
                &s,
                spec(format),
            )?;
            if let Some(p) = &args.log {
                output::write_output(p, &log)?;
                wrote(global, p);
            }
            output::write_output(plot, &bytes)?;
            wrote(global, plot);
            s
        }
        _ => match &args.log {
            Some(p) => {
                let mut f = output::Writer::create(p)?;
                let s = sim::run(&config, &scenario, route, Some(&mut f))?;
                f.commit(p)?;
                wrote(global, p);
                s
            }
            None => sim::run(&config, &scenario, route, None)?,
        },
    };
    output::emit(
        args.format,
        &summary,
        || summary_table(&summary),
        || summary_csv(&summary),
        stdout_taken,
    )?;
    if args.log.is_none() && args.plot.is_none() && args.format == Format::Table {
        global.status("(--plot run.png draws the run; --log run.jsonl keeps every step)");
    }
    Ok(summary.ok)
}

/// Says that a file was written, unless it was stdout.
fn wrote(global: &Global, path: &std::path::Path) {
    if !output::is_stdout(path) {
        global.status(&format!("wrote {}", path.display()));
    }
}

/// The summary as one CSV row under its header.
fn summary_csv(s: &acres::jobs::sim::Summary) -> Vec<Vec<String>> {
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    let rules: Vec<String> = s
        .interventions
        .iter()
        .map(|(r, n)| format!("{r}:{n}"))
        .collect();
    let (verdict, ok) = s.verdict();
    let head = [
        "scenario",
        "time_s",
        "distance_m",
        "collided",
        "stopped",
        "at_rest_since_s",
        "gap_m",
        "max_lateral_accel_mps2",
        "wheel_lift",
        "rolled_over",
        "finished_route",
        "slide_first_s",
        "slide_max_offset_m",
        "slide_left_fence_s",
        "final_speed_mps",
        "final_class",
        "obstacle_margin_m",
        "interventions",
        "contacts",
        "closest_actor_m",
        "moving_rule",
        "moving_first_action",
        "moving_first_action_s",
        "ok",
        "verdict",
    ];
    let row = vec![
        s.scenario.clone(),
        s.time_s.to_string(),
        s.distance_m.to_string(),
        s.collided.to_string(),
        s.stopped.to_string(),
        opt(s.at_rest_since_s),
        opt(s.gap_m),
        s.max_lateral_accel_mps2.to_string(),
        s.wheel_lift.to_string(),
        s.rolled_over.to_string(),
        s.finished_route.to_string(),
        opt(s.slide.map(|x| x.first_s)),
        opt(s.slide.map(|x| x.max_offset_m)),
        opt(s.slide.and_then(|x| x.left_fence_s)),
        s.final_speed_mps.to_string(),
        s.final_class.map_or(String::new(), |c| c.to_string()),
        s.obstacle_margin_m.to_string(),
        rules.join(";"),
        s.contacts.len().to_string(),
        opt(s.closest_actor_m),
        format!("{:?}", s.moving_rule).to_lowercase(),
        s.moving_first_action.map_or("", |a| a.kind).to_string(),
        opt(s.moving_first_action.map(|a| a.t_s)),
        ok.to_string(),
        verdict,
    ];
    vec![head.iter().map(|h| h.to_string()).collect(), row]
}

/// The summary as text, a line a figure.
fn summary_table(summary: &acres::jobs::sim::Summary) -> String {
    let mut t = String::new();
    t.push_str(&format!("scenario: {}\n", summary.scenario));
    t.push_str(&format!("time: {:.2} s\n", summary.time_s));
    t.push_str(&format!("distance: {:.2} m\n", summary.distance_m));
    t.push_str(&format!("collided: {}\n", summary.collided));
    match summary.at_rest_since_s {
        Some(r) if summary.stopped => t.push_str(&format!(
            "stopped: true (at rest from {r:.2} s to the end)\n"
        )),
        _ => t.push_str("stopped: false\n"),
    }
    match summary.gap_m {
        Some(g) => t.push_str(&format!("gap: {g:.2} m\n")),
        None => t.push_str("gap: - (no obstacles)\n"),
    }
    t.push_str(&format!(
        "largest lateral acceleration: {:.2} m/s²\n",
        summary.max_lateral_accel_mps2
    ));
    t.push_str(&format!("wheel lift: {}\n", summary.wheel_lift));
    t.push_str(&format!("rolled over: {}\n", summary.rolled_over));
    t.push_str(&format!("finished the route: {}\n", summary.finished_route));
    match summary.slide {
        None => t.push_str("slid: no\n"),
        Some(s) => {
            t.push_str(&format!(
                "slid: from {:.2} s, up to {:.2} m off the path",
                s.first_s, s.max_offset_m
            ));
            match s.left_fence_s {
                Some(f) => t.push_str(&format!(", out of the geofence at {f:.2} s\n")),
                None => t.push('\n'),
            }
        }
    }
    if summary.interventions.is_empty() {
        t.push_str("interventions: none\n");
    }
    for (rule, n) in &summary.interventions {
        t.push_str(&format!("interventions {rule}: {n} steps\n"));
    }
    t.push_str(&format!(
        "moving-object rule: {}\n",
        match summary.moving_rule {
            acres::config::MovingMode::Off => "off",
            acres::config::MovingMode::Tracker => "tracker",
            acres::config::MovingMode::Oracle => "ORACLE (the true actor states)",
        }
    ));
    if let Some(c) = summary.closest_actor_m {
        t.push_str(&format!("closest approach to an actor: {c:.2} m\n"));
    }
    if let Some(a) = summary.moving_first_action {
        t.push_str(&format!(
            "moving-object rule first acted: {} at {:.2} s\n",
            a.kind, a.t_s
        ));
    }
    for c in &summary.contacts {
        let who = match c.by {
            acres::jobs::sim::ContactBy::Vehicle => "by the vehicle",
            acres::jobs::sim::ContactBy::Actor => "by the actor, the vehicle at rest",
        };
        let name = if c.name.is_empty() {
            String::new()
        } else {
            format!(" {:?}", c.name)
        };
        t.push_str(&format!(
            "contact: {} {}{name} at {:.2} s, {who}; vehicle {:.2} m/s, {} {:.2} m/s\n",
            c.kind, c.index, c.t_s, c.ego_speed_mps, c.kind, c.actor_speed_mps
        ));
    }
    t.push_str(&format!("verdict: {}\n", summary.verdict().0));
    t
}

/// `--suite`: the suite in the modes asked for, a table of each scenario's closest
/// approach and contact, the counts beside the reference's.
fn run_suite(
    args: &Args,
    name: &str,
    config: &acres::config::Config,
    global: &Global,
    stdout_taken: bool,
) -> anyhow::Result<bool> {
    use acres::config::MovingMode;
    use acres::jobs::suite::{self, SuiteKind};
    let kind = SuiteKind::from_name(name).expect("clap checks the suite's name");
    let modes = match &args.moving {
        Some(m) => vec![m.parse::<MovingMode>().map_err(anyhow::Error::msg)?],
        None => {
            let configured = config.control.shield.moving_obstacle;
            if configured == MovingMode::Off {
                vec![MovingMode::Off]
            } else {
                vec![MovingMode::Off, configured]
            }
        }
    };
    let mut results = Vec::new();
    for m in modes {
        global.status(&format!(
            "running {} with the moving-object rule {}",
            kind.name(),
            mode_name(m)
        ));
        results.push(suite::run(config, kind, m)?);
    }
    if let Some(p) = &args.plot {
        let format = crate::plot::image_format(None, p)?;
        let bytes = acres::plot::suite(
            &results,
            acres::plot::ImageSpec {
                format,
                size: args.size,
            },
        )?;
        output::write_output(p, &bytes)?;
        wrote(global, p);
    }
    output::emit(
        args.format,
        &results,
        || suite_table(&results),
        || suite_csv(&results),
        stdout_taken,
    )?;
    let judged = results.last().expect("a suite runs in at least one mode");
    if args.format != Format::Table && !stdout_taken {
        global.status(&suite_verdict(judged));
    }
    Ok(judged.judged_collisions == 0)
}

/// A mode of the moving-object rule as the tables and messages print it.
fn mode_name(m: acres::config::MovingMode) -> String {
    format!("{m:?}").to_lowercase()
}

/// The verdict of a suite under the rule it is judged by: FAIL when a case a careful
/// driver avoids collides.
fn suite_verdict(r: &acres::jobs::suite::SuiteResult) -> String {
    let classed = r.runs.iter().any(|run| run.careful.is_some());
    let m = mode_name(r.moving);
    let n = r.judged_collisions;
    let (cases, which) = match (classed, n) {
        (false, _) => (
            "",
            "the cases have no careful-driver class: every case is judged",
        ),
        (true, 0 | 1) => (
            " in a case a careful driver avoids",
            "must-avoid or clear; grey and unavoidable cases are not judged",
        ),
        (true, _) => (
            " in cases a careful driver avoids",
            "must-avoid or clear; grey and unavoidable cases are not judged",
        ),
    };
    match n {
        0 => format!("verdict ({m}): no collision by the vehicle{cases} ({which}): ok"),
        1 => format!("verdict ({m}): 1 collision by the vehicle{cases} ({which}): FAIL"),
        n => format!("verdict ({m}): {n} collisions by the vehicle{cases} ({which}): FAIL"),
    }
}

/// The suite as CSV: a row per scenario and mode.
fn suite_csv(results: &[acres::jobs::suite::SuiteResult]) -> Vec<Vec<String>> {
    let mut rows = vec![
        [
            "suite",
            "moving_rule",
            "scenario",
            "careful_class",
            "closest_m",
            "collided_by_vehicle",
            "struck_by_actor",
            "time_lost_s",
            "time_bound_s",
            "within_bound",
            "moving_latency_s",
            "first_action",
            "first_action_after_s",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
    ];
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    for r in results {
        for run in &r.runs {
            rows.push(vec![
                r.suite.name().to_string(),
                mode_name(r.moving),
                run.name.clone(),
                run.careful.map_or("", |c| c.name()).to_string(),
                run.closest_m.to_string(),
                run.collided_by_vehicle.to_string(),
                run.struck_by_actor.to_string(),
                opt(run.time_lost_s),
                opt(run.time_bound_s),
                run.within_bound.to_string(),
                opt(run.moving_latency_s),
                run.first_action.map_or("", |f| f.kind).to_string(),
                opt(run.first_action.map(|f| f.after_s)),
            ]);
        }
    }
    rows
}

/// A suite run's contact as the table gives it.
fn contact(run: &acres::jobs::suite::SuiteRun) -> &'static str {
    if run.collided_by_vehicle {
        "by the vehicle"
    } else if run.struck_by_actor {
        "by the actor"
    } else {
        "-"
    }
}

/// A run's time lost as the table gives it: `unfinished` where it never finished its
/// route, `!` after a time beyond its bound.
fn lost(run: &acres::jobs::suite::SuiteRun) -> String {
    match run.time_lost_s {
        None => "unfinished".into(),
        Some(l) if !run.within_bound => format!("{} !", output::f2(l)),
        Some(l) => output::f2(l),
    }
}

/// The suite's table: a row per scenario (its careful class and time bound where it has
/// them), a column triple per mode, then the counts.
fn suite_table(results: &[acres::jobs::suite::SuiteResult]) -> String {
    let first = &results[0].runs;
    let classed = first.iter().any(|r| r.careful.is_some());
    let bounded = first.iter().any(|r| r.time_bound_s.is_some());
    let mut head = vec!["scenario".to_string()];
    if classed {
        head.push("class".into());
    }
    if bounded {
        head.push("bound s".into());
    }
    for r in results {
        let m = mode_name(r.moving);
        head.push(format!("closest m ({m})"));
        head.push(format!("contact ({m})"));
        head.push(format!("lost s ({m})"));
    }
    let mut rows = vec![head];
    for (i, run0) in first.iter().enumerate() {
        let mut row = vec![run0.name.clone()];
        if classed {
            row.push(run0.careful.map_or("-", |c| c.name()).to_string());
        }
        if bounded {
            row.push(run0.time_bound_s.map_or("-".into(), output::f2));
        }
        for r in results {
            let run = &r.runs[i];
            row.push(output::f2(run.closest_m));
            row.push(contact(run).to_string());
            row.push(lost(run));
        }
        rows.push(row);
    }
    let mut t = output::table(&rows);
    for r in results {
        t.push_str(&suite_counts(r));
    }
    let judged = results.last().expect("a suite runs in at least one mode");
    t.push_str(&suite_verdict(judged));
    t.push('\n');
    t
}

/// A suite result's counts in a line.
fn suite_counts(r: &acres::jobs::suite::SuiteResult) -> String {
    let label = match r.moving {
        acres::config::MovingMode::Off => "moving-object rule off (the reference's shield)",
        acres::config::MovingMode::Tracker => "moving-object rule with the tracker",
        acres::config::MovingMode::Oracle => {
            "moving-object rule with the ORACLE (true actor states)"
        }
    };
    // The reference does not publish its 30 scenarios; ours spread each one's parameter
    // over the whole window in which the bodies can meet, so the rule-off count differs.
    let compared = r
        .reference_collisions
        .filter(|_| r.moving == acres::config::MovingMode::Off);
    let reference = compared.map_or(String::new(), |n| {
        format!(
            " (reference: {n}/30 with its shield, on scenarios it does not publish; ours \
             spread over the whole window in which a collision is possible)"
        )
    });
    let must = if r.must_avoid_cases > 0 {
        format!(
            ", in must-avoid cases {}/{}",
            r.must_avoid_collisions, r.must_avoid_cases
        )
    } else {
        String::new()
    };
    format!(
        "{}: {label}: collisions by the vehicle {}/{}{must}, struck at rest by the actor {}/{}, \
         beyond the time bound {}, mean time lost {} s{reference}\n",
        r.suite.name(),
        r.collisions_by_vehicle,
        r.scenarios,
        r.struck_by_actor,
        r.scenarios,
        r.over_bound,
        output::f2(r.mean_time_lost_s),
    )
}
