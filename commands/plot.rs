//! `acres plot`: diagrams of what the library computes, as PNG or SVG.

use crate::Global;
use crate::output;
use acres::chain::envelope::Grip;
use acres::plot::{ImageFormat, StopDistanceOptions};
use std::path::PathBuf;

/// Draw diagrams (PNG or SVG, by the output file's extension).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    StopDistance(StopDistanceArgs),
    PurePursuit(PurePursuitArgs),
}

/// Draw the reference's opening figure from a real simulation run.
///
/// Runs the scenario (default: the opening figure, data/scenarios/opening.json) and draws
/// the reference path, the vehicle's trace, every 2 s the look-ahead point and the
/// pure-pursuit arc to it (blue) and the stop distance d_stop(v) ahead of the front of the
/// footprint (orange), the obstacles, and the final footprint with its gap.
#[derive(Debug, clap::Args)]
struct PurePursuitArgs {
    /// The output file: .png or .svg; `-` writes to stdout (PNG unless --image-format svg).
    #[arg(long, short, value_name = "FILE", default_value = "pure-pursuit.png")]
    out: PathBuf,
    /// The image format, where the file name's extension should not decide it.
    #[arg(long, value_parser = ["png", "svg"], value_name = "FORMAT")]
    image_format: Option<String>,
    /// The scenario file (JSON, data/scenarios/README.md).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// The image size in pixels, WxH (default: 1100 wide; the height of a map-like plot
    /// follows what it shows).
    #[arg(long, value_name = "WxH", value_parser = crate::output::size)]
    pub size: Option<(u32, u32)>,
}

pub fn image_format(explicit: Option<&str>, out: &std::path::Path) -> anyhow::Result<ImageFormat> {
    Ok(match (explicit, out.to_str()) {
        (Some("svg"), _) => ImageFormat::Svg,
        (Some(_), _) | (None, Some("-")) => ImageFormat::Png,
        (None, _) => ImageFormat::from_path(out).map_err(|e| output::usage(e.to_string()))?,
    })
}

/// The image format of a plot output and whether it is binary (PNG) or text (SVG), after
/// checking that it can be written (see [`output::check_output`]).
pub fn checked_image(
    option: &str,
    explicit: Option<&str>,
    out: &std::path::Path,
) -> anyhow::Result<ImageFormat> {
    let format = image_format(explicit, out)?;
    output::check_output(option, out, image_kind(format))?;
    Ok(format)
}

/// Whether an image format is binary data.
pub fn image_kind(format: ImageFormat) -> output::Kind {
    match format {
        ImageFormat::Png => output::Kind::Binary,
        ImageFormat::Svg => output::Kind::Text,
    }
}

/// Draw d_stop(v) of each ground class against the scan reach.
///
/// One curve per stop rule (classes with the same d_m and a share a curve, named in the
/// legend), the scan reach corridor.range_m, each class's vehicle speed marked on its
/// curve, and the fastest entry annotated with its stop distance and the distance to
/// spare (on the shipped table: 7.8 m/s on asphalt, 35.65 m, 4.35 m to spare). Text uses
/// a font built into the binary.
#[derive(Debug, clap::Args)]
struct StopDistanceArgs {
    /// The output file: .png or .svg; `-` writes to stdout (PNG unless --image-format svg).
    #[arg(long, short, value_name = "FILE", default_value = "stop-distance.png")]
    out: PathBuf,
    /// The image format, where the file name's extension should not decide it.
    #[arg(long, value_parser = ["png", "svg"], value_name = "FORMAT")]
    image_format: Option<String>,
    #[command(flatten)]
    grip: crate::envelope::GripArg,
    /// The right end of the speed axis, m/s (above 0, at most 50).
    #[arg(long, value_name = "V", default_value_t = 9.0, value_parser = output::positive_speed, allow_negative_numbers = true)]
    max_speed: f64,
    /// The image size in pixels, WxH (default: 1100 wide; the height of a map-like plot
    /// follows what it shows).
    #[arg(long, value_name = "WxH", value_parser = crate::output::size)]
    pub size: Option<(u32, u32)>,
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    let config = global.load_config()?;
    match args.command {
        Sub::StopDistance(a) => {
            let format = checked_image("--out", a.image_format.as_deref(), &a.out)?;
            let grip: Grip = a.grip.grip;
            let opts = StopDistanceOptions {
                grip,
                max_speed_mps: a.max_speed,
            };
            let spec = acres::plot::ImageSpec {
                format,
                size: a.size,
            };
            let bytes = acres::plot::stop_distance(&config, opts, spec)?;
            output::write_output(&a.out, &bytes)?;
            if a.out.to_str() != Some("-") {
                global.status(&format!("wrote {}", a.out.display()));
            }
            Ok(())
        }
        Sub::PurePursuit(a) => {
            let format = checked_image("--out", a.image_format.as_deref(), &a.out)?;
            let scenario = acres::formats::scenario::Scenario::load(a.scenario.as_deref())?;
            let route = scenario.route()?;
            let mut log = Vec::new();
            let summary = acres::jobs::sim::run(&config, &scenario, route.clone(), Some(&mut log))?;
            let spec = acres::plot::ImageSpec {
                format,
                size: a.size,
            };
            let bytes =
                acres::plot::pure_pursuit_of_log(&config, &scenario, &route, &log, &summary, spec)?;
            output::write_output(&a.out, &bytes)?;
            if a.out.to_str() != Some("-") {
                global.status(&format!("wrote {}", a.out.display()));
            }
            Ok(())
        }
    }
}
