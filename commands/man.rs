//! `acres man`: the man pages, generated from the clap definitions.

use crate::Global;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// Write the man pages: acres.1 and one page for each subcommand.
///
/// The pages are generated from the same definitions as --help. The shipped man/ folder
/// is made with `cargo run -- man --out man`; a test fails when it is not current.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory to write the pages into (created if missing).
    #[arg(long, short, value_name = "DIR", default_value = "man")]
    out: PathBuf,
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let mut cmd = crate::command();
    cmd.build();
    let mut n = 0;
    write_pages(&cmd, "acres", &args.out, &mut n)?;
    global.status(&format!("wrote {n} pages to {}", args.out.display()));
    Ok(())
}

/// Writes the page of `cmd` as `name.1`, then those of its subcommands as `name-sub.1`.
fn write_pages(cmd: &clap::Command, name: &str, dir: &Path, n: &mut usize) -> anyhow::Result<()> {
    let page = cmd.clone().name(name.to_string());
    let mut bytes = Vec::new();
    clap_mangen::Man::new(page).render(&mut bytes)?;
    let path = dir.join(format!("{name}.1"));
    acres::formats::atomic::write_atomic(&path, &bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    *n += 1;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, n)?;
    }
    Ok(())
}
