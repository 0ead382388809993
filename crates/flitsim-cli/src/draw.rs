//! `flitsim draw REPORT.json --out FIG.svg`: a run's channel loads and node throughput
//! drawn on its network. The Python package draws (matplotlib, `flitsim.network`); this
//! command checks the file is there and runs `python -m flitsim draw` ([`crate::python`]).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::common::CliResult;
use crate::python;

/// The options of `flitsim draw`, passed on to `python -m flitsim draw` as they are.
#[derive(clap::Args, Debug)]
pub struct DrawArgs {
    /// The run's JSON report (`flitsim run CONFIG --out REPORT.json`).
    pub report: PathBuf,
    /// The figure to write; its extension chooses the format: .svg, .png or .pdf
    /// (default: REPORT with .svg).
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// What colours the links: `utilization` (flits/cycle, or Gb/s when the config sets
    /// channel.link_gbps), `flits` (flits in the measurement window), or from the buffer
    /// samples (`stats.buffer_sample`) `buffered` (mean flits at the receiving end) or
    /// `blocked` (fraction of cycles a buffer there was full).
    #[arg(long, default_value = "utilization")]
    pub value: String,
    /// Draw only this VC's flits (default: all VCs).
    #[arg(long)]
    pub vc: Option<u32>,
    /// What colours the routers: the `accepted` or `delivered` throughput of their
    /// endpoints, their packets' `latency`, or `none`.
    #[arg(long, default_value = "accepted")]
    pub nodes: String,
    /// How a block of routers of a large network is summarised: `max`, `mean` or `min`.
    #[arg(long, default_value = "max")]
    pub aggregate: String,
    /// The value of the top colour (default: the most loaded link's).
    #[arg(long, allow_negative_numbers = true)]
    pub vmax: Option<f64>,
    /// The figure's title (default: the network and what is drawn).
    #[arg(long)]
    pub title: Option<String>,
    /// Draw the run over time: this many frames, each the network in one stretch of the
    /// run, on one colour scale (needs a report run with stats.timeline and
    /// stats.channel_timeline = true).
    #[arg(long, value_name = "N")]
    pub frames: Option<u32>,
}

/// `flitsim draw`.
pub fn cmd_draw(args: &DrawArgs) -> CliResult<ExitCode> {
    if !args.report.is_file() {
        return Err(format!(
            "{} is not a file: give the JSON report that `flitsim run CONFIG --out REPORT.json` writes",
            args.report.display()
        ));
    }
    python::run_module("draw", "network", &module_args(args))
}

/// The arguments of `python -m flitsim draw`: the same options, spelled the same.
fn module_args(args: &DrawArgs) -> Vec<OsString> {
    let mut pass: Vec<OsString> = vec![args.report.clone().into()];
    let mut opt = |name: &str, value: OsString| pass.extend([name.into(), value]);
    if let Some(o) = &args.out {
        opt("--out", o.clone().into());
    }
    opt("--value", args.value.clone().into());
    if let Some(vc) = args.vc {
        opt("--vc", vc.to_string().into());
    }
    opt("--nodes", args.nodes.clone().into());
    opt("--aggregate", args.aggregate.clone().into());
    if let Some(v) = args.vmax {
        opt("--vmax", v.to_string().into());
    }
    if let Some(t) = &args.title {
        opt("--title", t.clone().into());
    }
    if let Some(n) = args.frames {
        opt("--frames", n.to_string().into());
    }
    pass
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: DrawArgs,
    }

    /// Every option reaches the Python command as given; the defaults are spelled out.
    #[test]
    fn options_pass_to_the_python_command() {
        let parse = |a: &[&str]| module_args(&Cli::try_parse_from(a).unwrap().args);
        let text = |v: Vec<OsString>| v.into_iter().map(|s| s.into_string().unwrap()).collect::<Vec<_>>().join(" ");
        assert_eq!(text(parse(&["draw", "r.json"])), "r.json --value utilization --nodes accepted --aggregate max");
        let all = ["draw", "r.json", "-o", "f.png", "--value", "flits", "--vc", "1", "--nodes", "none", "--aggregate", "mean"];
        let more = ["--vmax", "0.5", "--title", "two words", "--frames", "4"];
        assert_eq!(
            text(parse(&[&all[..], &more[..]].concat())),
            "r.json --out f.png --value flits --vc 1 --nodes none --aggregate mean --vmax 0.5 --title two words --frames 4"
        );
    }
}
