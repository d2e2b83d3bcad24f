//! `acres sim`: the chain and the simulated Polaris in one process.

use crate::Global;
use crate::output;
use acres::formats::scenario::Scenario;
use acres::jobs::sim;
use anyhow::Context;
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
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The scenario file (JSON, data/scenarios/README.md).
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
    /// Output format of the summary: `table` or `json`.
    #[arg(long, value_parser = ["table", "json"], default_value = "table")]
    format: String,
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    let config = global.load_config()?;
    let scenario = Scenario::load(args.scenario.as_deref())?;
    let route = scenario.route()?;
    let summary = if let Some(plot) = &args.plot {
        // The plot needs the records: the log is kept in memory for it.
        let format = crate::plot::image_format(None, plot)?;
        let mut log = Vec::new();
        let s = sim::run(&config, &scenario, route.clone(), Some(&mut log))?;
        if let Some(p) = &args.log {
            output::write_output(p, &log)?;
            global.status(&format!("wrote {}", p.display()));
        }
        let bytes = acres::plot::pure_pursuit_of_log(&config, &scenario, &route, &log, &s, format)?;
        output::write_output(plot, &bytes)?;
        global.status(&format!("wrote {}", plot.display()));
        s
    } else {
        match &args.log {
            Some(p) => {
                let mut f = acres::formats::atomic::AtomicFile::create(p)
                    .with_context(|| format!("writing {}", p.display()))?;
                let s = sim::run(&config, &scenario, route, Some(&mut f))?;
                f.commit()
                    .with_context(|| format!("writing {}", p.display()))?;
                global.status(&format!("wrote {}", p.display()));
                s
            }
            None => sim::run(&config, &scenario, route, None)?,
        }
    };
    if args.format == "json" {
        return output::print_json(&summary);
    }
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
    if summary.interventions.is_empty() {
        t.push_str("interventions: none\n");
    }
    for (rule, n) in &summary.interventions {
        t.push_str(&format!("interventions {rule}: {n} steps\n"));
    }
    output::print(&t)
}
