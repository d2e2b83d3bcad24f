//! `acres`: the command line of the acres toolbox. Each subcommand lives in its own module
//! with its clap arguments and a `run` that calls the library and renders the result.

mod bridge;
mod calibrate;
mod check;
mod completions;
mod config;
mod corridor;
mod envelope;
mod man;
mod output;
mod plot;
mod replay;
mod route;
mod sim;
mod validate;

use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status and environment, shown in `--help` and in the man page.
const AFTER_HELP: &str = "\
Exit status:
  0  success
  1  error: bad input, a bad config file, an I/O failure (the message names the file, key or line)
  2  usage: an unknown option, a missing or malformed argument, options that do not go
     together (anything decided from the arguments alone)
  3  `check`: a chunk is refused; `route check`: a route point fails
  4  `sim`: the verdict says FAIL; `sim --suite`: a judged case collides

Configuration:
  The shipped configs (control_v1.json, trajectory_v1.json, envelope_v1.json,
  scouting_v1.json) are built into the binary. --config-dir DIR replaces them file by
  file: a file that DIR holds is used instead of the shipped one, a file it lacks keeps
  the shipped one. `acres config write DIR` writes the defaults for editing.";

/// acres: engineering toolbox for the safety command chain of an autonomous Polaris
/// Ranger with a Dataspeed drive-by-wire.
#[derive(Debug, Parser)]
#[command(name = "acres", version, after_long_help = AFTER_HELP, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options of every subcommand.
#[derive(Debug, clap::Args)]
pub struct Global {
    /// Read config files from DIR instead of the shipped ones (file by file).
    #[arg(long, global = true, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// Print no progress or status messages on stderr (errors are still printed).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

impl Global {
    /// Loads the effective configuration.
    pub fn load_config(&self) -> anyhow::Result<acres::config::Config> {
        Ok(acres::config::Config::load(self.config_dir.as_deref())?)
    }

    /// Prints a status line on stderr unless `--quiet`.
    pub fn status(&self, msg: &str) {
        if !self.quiet {
            eprintln!("{msg}");
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Envelope(envelope::Args),
    Corridor(corridor::Args),
    Check(check::Args),
    Sim(sim::Args),
    Replay(replay::Args),
    Route(route::Args),
    Bridge(bridge::Args),
    Config(config::Args),
    Plot(plot::Args),
    Validate(validate::Args),
    Man(man::Args),
    Completions(completions::Args),
}

/// The clap definition of the whole command line (for the man pages).
pub fn command() -> clap::Command {
    Cli::command()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Envelope(a) => envelope::run(a, &cli.global),
        Command::Corridor(a) => corridor::run(a, &cli.global),
        Command::Check(a) => match check::run(a, &cli.global) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(check::EXIT_REFUSED),
            Err(e) => Err(e),
        },
        Command::Sim(a) => match sim::run(a, &cli.global) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(sim::EXIT_FAILED),
            Err(e) => Err(e),
        },
        Command::Replay(a) => replay::run(a, &cli.global),
        Command::Route(a) => match route::run(a, &cli.global) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(route::EXIT_FAILS),
            Err(e) => Err(e),
        },
        Command::Bridge(a) => bridge::run(a, &cli.global),
        Command::Config(a) => config::run(a, &cli.global),
        Command::Plot(a) => plot::run(a, &cli.global),
        Command::Validate(a) => match validate::run(a, &cli.global) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Command::Man(a) => man::run(a, &cli.global),
        Command::Completions(a) => completions::run(a, &cli.global),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<output::Usage>().is_some() => {
            eprintln!("acres: usage error: {e:#}\n\nFor more information, try '--help'.");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("acres: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_definition_is_consistent() {
        super::command().debug_assert();
    }
}
