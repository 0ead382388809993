//! The `flitsim` command: parse arguments, call the library, print. Thin by design;
//! everything that simulates lives in `flitsim-core`.

mod aging_params;
mod bench;
mod booksim;
mod common;
mod crosscheck;
mod draw;
mod memory;
mod plot;
mod python;
mod ranks;
mod report;
mod reproduce;
mod routes;
mod saturation;
mod series;
mod store;
mod summary;
mod sweep;
mod trace_record;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[global_allocator]
static ALLOCATOR: memory::Counted = memory::Counted;

/// flitsim: a fast, faithful, flit-level simulator of interconnection networks.
#[derive(Parser, Debug)]
#[command(name = "flitsim", version, about = "flitsim: a fast, faithful, flit-level simulator of interconnection networks", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Config input shared by most commands.
#[derive(clap::Args, Debug, Clone)]
pub struct ConfigArgs {
    /// TOML config file; omitted = the built-in default (8x8 torus, uniform, 0.3 flits/node/cycle).
    pub config: Option<PathBuf>,
    /// Override a config field, e.g. --set traffic.load=0.4 (repeatable).
    #[arg(short = 's', long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one simulation and print a summary (JSON with --out).
    Run {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// Write the full result (config, seed, version, all statistics) as JSON.
        #[arg(short, long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// No progress bar and no summary.
        #[arg(short, long)]
        quiet: bool,
        /// Threads stepping the one simulation (partitions of the network; the results
        /// are the same for any count). Default: the available cores for networks of at
        /// least 64 input-queued routers (256 of the other router types, and of input-queued
        /// networks with throttling, timed failures or NIC dispersion), else 1.
        #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: Option<u32>,
    },
    /// Run a sweep (a grid of overrides times loads times seeds, points in parallel,
    /// results kept in a store shared with the Python package) and write CSV, JSON and an
    /// SVG plot. A point whose run fails (a deadlock) is listed and left out, and the exit
    /// status is then 1.
    Sweep {
        #[command(flatten)]
        cfg: ConfigArgs,
        #[command(flatten)]
        args: sweep::SweepArgs,
    },
    /// Check a config and print what it would build.
    Validate {
        #[command(flatten)]
        cfg: ConfigArgs,
    },
    /// Print the route of a packet hop by hop: output port, VC and (table-driven routing)
    /// the table that answered; or, with --check, prove the routes deadlock-free.
    Routes {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// Source node.
        #[arg(long, required_unless_present_any = ["check", "write_tables"])]
        from: Option<u32>,
        /// Destination node.
        #[arg(long, required_unless_present_any = ["check", "write_tables"])]
        to: Option<u32>,
        /// Write the routing tables (table-driven routing) to this file instead; a config
        /// loads them with `routing.tables = "FILE"`.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["check", "from", "to"])]
        write_tables: Option<std::path::PathBuf>,
        /// Check every route instead: build the channel dependency graph (every VC the
        /// routing allows) and report a cycle, and any node pair the routes do not connect.
        #[arg(long, conflicts_with_all = ["from", "to"])]
        check: bool,
        /// VC the source injects on.
        #[arg(long, default_value_t = 0)]
        vc: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The VC_balance of every link (Cray XT VC-assignment paper, section 4) under
    /// uniform all-pairs traffic, per dimension: mean and histogram.
    VcBalance {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// Print JSON (every link) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print topology properties: nodes, radix, diameter, average hops, bisection.
    Topo {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List every topology, routing function, router, traffic pattern, injection process and
    /// congestion policy with its parameters, and every other config table's fields.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Print the Markdown config reference (docs/reference/config.md).
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
    },
    /// Run the fixed benchmark suite: simulated cycles/s and flit-hops/s.
    Bench {
        #[command(flatten)]
        args: bench::BenchArgs,
    },
    /// The saturation throughput of a config: the highest load at which every measured
    /// packet arrives and mean packet latency stays within a factor of zero-load latency.
    Saturation {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// Load of the zero-load latency run (flits/node/cycle).
        #[arg(long, default_value_t = 0.01)]
        zero_load: f64,
        /// Stable while mean packet latency is at most this many times the zero-load latency.
        #[arg(long, default_value_t = 3.0)]
        factor: f64,
        /// Search until the saturation throughput is bracketed this closely.
        #[arg(long, default_value_t = 0.002)]
        resolution: f64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Cross-check flitsim against BookSim2 on a matrix of configurations: with
    /// `--booksim`, run both; without, judge flitsim against BookSim2's recorded figures.
    Crosscheck {
        /// The matrix file (BookSim2 configurations and recorded figures).
        #[arg(default_value = "experiments/validation/booksim/crosscheck.toml")]
        matrix: PathBuf,
        /// A BookSim2 binary (built from booksim/booksim2): run it and flitsim on every row
        /// and print both.
        #[arg(long, value_name = "PATH")]
        booksim: Option<PathBuf>,
        /// With --booksim: write BookSim2's figures into the matrix file.
        #[arg(long, requires = "booksim")]
        record: bool,
        /// Only the rows whose name contains this.
        #[arg(long)]
        only: Option<String>,
        /// Rows run at once (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
        /// Print each row's flitsim config (the mapping of its BookSim2 parameters) instead.
        #[arg(long, conflicts_with = "booksim")]
        print_configs: bool,
    },
    /// Reproduce a study under experiments/ and print reference vs flitsim.
    Reproduce {
        /// Study name (a folder under the experiments directory), or `list`.
        name: String,
        /// Experiments directory.
        #[arg(long, default_value = "experiments")]
        dir: PathBuf,
        /// Parallel jobs (default: all cores).
        #[arg(short, long, value_parser = clap::value_parser!(u32).range(1..=sweep::MAX_JOBS))]
        jobs: Option<u32>,
        /// Results store shared with the Python package: runs found there are reused,
        /// new ones written (default with --out: OUT/store).
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
        /// Write the reproduction (reproduction.json: every row, the configs, the version)
        /// to this directory, for `flitsim report`.
        #[arg(short, long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write a self-contained HTML report of a results store, a `flitsim reproduce --out`
    /// directory or a `flitsim sweep --out` directory (runs `python -m flitsim report`
    /// with $FLITSIM_PYTHON or python3).
    Report {
        /// The directory to report on.
        dir: PathBuf,
        /// The HTML file to write (default: DIR/report.html).
        #[arg(short, long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Draw a run's channel loads and node throughput on its network (any topology) as an
    /// SVG, PNG or PDF figure (runs `python -m flitsim draw` with $FLITSIM_PYTHON or python3).
    Draw {
        #[command(flatten)]
        args: draw::DrawArgs,
    },
    /// Record an MPI application's communication as an OTF2 archive (`trace record`), or
    /// look at one (`trace show`).
    Trace {
        #[command(subcommand)]
        cmd: trace_record::TraceCommand,
    },
    /// Derive SeaStar age-arbitration parameters (per-dimension age bias, age clock period)
    /// from the radix, buffers and bandwidths, and print the derivation step by step.
    AgingParams {
        #[command(flatten)]
        args: aging_params::AgingParamsArgs,
    },
}

/// Output that cannot be written ends the program with a message instead of a panic:
/// quietly when a reader has gone (`flitsim list | head`, like other Unix tools), else
/// with the cause and exit status 2. (`println!` panics when stdout fails.)
fn exit_on_output_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(cause) = msg.strip_prefix("failed printing to stdout: ") {
            if cause.contains("Broken pipe") {
                std::process::exit(141); // as if killed by SIGPIPE
            }
            eprintln!("error: cannot write the output: {cause}");
            std::process::exit(2);
        }
        default(info)
    }));
}

fn main() -> ExitCode {
    exit_on_output_errors();
    if let Err(e) = memory::init() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { cfg, out, quiet, threads } => common::cmd_run(&cfg, out.as_deref(), quiet, threads.map(|t| t as usize)),
        Command::Sweep { cfg, args } => sweep::cmd_sweep(&cfg, &args),
        Command::Validate { cfg } => common::cmd_validate(&cfg),
        Command::Topo { cfg, json } => common::cmd_topo(&cfg, json),
        Command::Routes { cfg, from, to, check, vc, json, write_tables } => match (check, from, to) {
            _ if write_tables.is_some() => routes::cmd_write_tables(&cfg, write_tables.as_deref().unwrap()),
            (true, _, _) => routes::cmd_check(&cfg, json),
            (false, Some(from), Some(to)) => routes::cmd_routes(&cfg, from, to, vc, json),
            _ => Err("give --from and --to, or --check".to_string()),
        },
        Command::VcBalance { cfg, json } => routes::cmd_vc_balance(&cfg, json),
        Command::List { json, markdown } => common::cmd_list(json, markdown),
        Command::Bench { args } => bench::cmd_bench(&args),
        Command::Saturation { cfg, zero_load, factor, resolution, json } => {
            saturation::cmd_saturation(&cfg, zero_load, factor, resolution, json)
        }
        Command::Crosscheck { matrix, booksim, record, only, jobs, print_configs } => {
            let jobs = jobs.map(|j| j as usize).unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            match booksim {
                None if print_configs => crosscheck::cmd_print_configs(&matrix, only.as_deref()),
                Some(b) => crosscheck::cmd_measure(&matrix, &b, record, only.as_deref(), jobs),
                None => crosscheck::cmd_check(&matrix, only.as_deref(), jobs),
            }
        }
        Command::Reproduce { name, dir, jobs, store, out } => {
            reproduce::cmd_reproduce(&name, &dir, jobs.map(|j| j as usize), store.as_deref(), out.as_deref())
        }
        Command::Report { dir, out } => report::cmd_report(&dir, out.as_deref()),
        Command::Draw { args } => draw::cmd_draw(&args),
        Command::AgingParams { args } => aging_params::cmd_aging_params(&args),
        Command::Trace { cmd } => trace_record::cmd_trace(&cmd),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every subcommand describes itself in `flitsim --help`, in its own words: a variant
    /// without a doc comment would show the doc of a struct it flattens instead.
    #[test]
    fn every_subcommand_has_its_own_help_line() {
        let cli = super::Cli::command();
        let mut seen = std::collections::HashSet::new();
        for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            assert!(!about.is_empty(), "`{}` has no help line", sub.get_name());
            assert!(!about.starts_with("Config input"), "`{}` shows the config arguments' doc: {about}", sub.get_name());
            assert!(seen.insert(about.clone()), "`{}` repeats another command's help: {about}", sub.get_name());
        }
        let about = |name: &str| cli.find_subcommand(name).and_then(|s| s.get_about()).map(|a| a.to_string()).unwrap_or_default();
        assert!(about("topo").contains("topology properties"), "{}", about("topo"));
        assert!(about("routes").starts_with("Print the route of a packet"), "{}", about("routes"));
    }
}
