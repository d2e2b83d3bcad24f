//! `acres config`: the effective configuration, and the shipped defaults for editing.

use crate::Global;
use crate::output;
use acres::config::{ConfigFile, write_defaults};
use serde_json::Value;
use std::path::PathBuf;

/// The configuration: print the effective values, or write the defaults for editing.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    Show(ShowArgs),
    Write(WriteArgs),
}

/// Print the effective configuration: each file, where it came from, and its values.
///
/// With --config-dir, a file of DIR replaces the shipped one; the others stay shipped
/// ("built-in"). The values are validated as for every other command.
#[derive(Debug, clap::Args)]
struct ShowArgs {
    /// Output format: `table` prints `key = value` lines under each file's name; `json`
    /// prints {"sources": {file: source}, "files": {file: content}}.
    #[arg(long, value_parser = ["table", "json"], default_value = "table")]
    format: String,
}

/// Write the shipped config files into DIR, for editing and use with --config-dir.
#[derive(Debug, clap::Args)]
struct WriteArgs {
    /// The directory to write into (created if missing).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Overwrite files that exist already.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    match args.command {
        Sub::Show(a) => show(a, global),
        Sub::Write(a) => {
            for p in write_defaults(&a.dir, a.force)? {
                global.status(&format!("wrote {}", p.display()));
            }
            Ok(())
        }
    }
}

fn show(a: ShowArgs, global: &Global) -> anyhow::Result<()> {
    let config = global.load_config()?;
    if a.format == "json" {
        let mut sources = serde_json::Map::new();
        let mut files = serde_json::Map::new();
        for f in ConfigFile::ALL {
            sources.insert(f.file_name().into(), config.source(f).to_string().into());
            files.insert(f.file_name().into(), config.file_value(f));
        }
        return output::print_json(&serde_json::json!({ "sources": sources, "files": files }));
    }
    let mut text = String::new();
    for f in ConfigFile::ALL {
        text.push_str(&format!("# {} ({})\n", f.file_name(), config.source(f)));
        flatten("", &config.file_value(f), &mut text);
        text.push('\n');
    }
    output::print(&text)
}

/// `key.path = value` lines of a JSON value, in the order of its keys.
fn flatten(prefix: &str, v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        other => out.push_str(&format!("{prefix} = {other}\n")),
    }
}
