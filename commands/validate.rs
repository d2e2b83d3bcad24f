//! `acres validate`: the reference's validation set on the simulated Polaris, as a table
//! of the reference's figure, ours and the verdict.

use crate::Global;
use crate::output::Format;
use acres::jobs::validate::{self, SETS, Verdict};

/// Run the reference's validation set on the simulated Polaris.
///
/// Sets (all by default): opening (the opening figure: the vehicle stops at least d_m
/// before the object); hold (the stop command from 3 m/s held 45 s on planes of 3.2, 5
/// and 8 % up and down on every class, dry and wet, and on the 16 steepest lane windows of
/// the farm map both ways, dry and wet: at rest in 3.7 s, 9 mm of motion at most in the
/// 30 s after); stop (stops from 7 m/s on every class and state: 14.4 to 18.4 m); steer
/// (the curvature step to 0.2 1/m at the held speed, with the corner rule: no wheel lift,
/// and the largest lateral acceleration against the reference's 3.9 m/s²; without it at
/// 7.8 m/s: the reference rolls over on each class, acres where μ g exceeds the rollover
/// threshold); dbw (the reference's 6 s ULC example, docs/validation.md "The DBW example at 6 s":
/// vel_meas against 1.8815 m/s);
/// physics (the vehicle model of the configuration against first principles: the
/// friction limit μ g, braking in a curve, a diagonal slope held where tan θ ≤ μ, the
/// side slope of wheel lift against the static stability factor, the kinematic radius
/// L / tan δ, the ULC's hold on 20 to 40 %, the park lock's axle, two-wheel drive).
/// Each line says pass, FAIL, or departs (documented): a
/// difference from the reference that docs/validation.md explains. Exits 1 when a line
/// fails.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The sets to run, comma-separated: opening, hold, stop, steer, dbw, physics.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(SETS))]
    only: Vec<String>,
    /// Output format: `table`, `json` or `csv` (a row per check).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Runs the sets; Ok(false) when a line failed.
pub fn run(args: Args, global: &Global) -> anyhow::Result<bool> {
    let config = global.load_config()?;
    global.status("running the validation set");
    let checks = validate::run(&config, &args.only);
    let ok = checks.iter().all(|c| c.verdict != Verdict::Fail);
    match args.format {
        Format::Json => crate::output::print_json(&checks)?,
        Format::Csv => crate::output::print_csv(&crate::output::csv_of(&checks)?)?,
        _ => {
            let mut rows = vec![vec![
                "test".to_string(),
                "reference".into(),
                "acres".into(),
                "pass".into(),
            ]];
            rows.extend(checks.iter().map(|c| {
                vec![
                    c.test.clone(),
                    c.reference.clone(),
                    c.acres.clone(),
                    c.verdict.to_string(),
                ]
            }));
            print!("{}", wrapped_table(&rows));
        }
    }
    Ok(ok)
}

/// The widest a line of the table gets, in columns: long cells wrap within their column.
const TABLE_COLUMNS: u16 = 120;

/// The rows as a table with a line between rows, at most [`TABLE_COLUMNS`] wide, the
/// long cells wrapped within their column (comfy-table's dynamic arrangement).
fn wrapped_table(rows: &[Vec<String>]) -> String {
    use comfy_table::{ContentArrangement, Table};
    let Some((head, body)) = rows.split_first() else {
        return String::new();
    };
    let mut t = Table::new();
    t.load_preset(comfy_table::presets::ASCII_FULL)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(TABLE_COLUMNS)
        .set_header(head);
    for r in body {
        t.add_row(r);
    }
    t.to_string() + "\n"
}
