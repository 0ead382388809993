//! `flitsim bench`: a fixed suite reporting simulated cycles/s, flit-hops/s (router
//! traversals) and peak memory. Each case runs in its own child process so the peak
//! resident memory belongs to that case alone. Timings are a benchmark, never a test.
//! `--instructions` counts instead what a flit-hop costs in instructions, which do not
//! move with the machine's load: each case run under callgrind at two lengths, the
//! difference divided by the difference in flit-hops (the steady state, without set-up).

use std::process::{Command, ExitCode};
use std::time::Instant;

use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;
use serde::{Deserialize, Serialize};

use crate::common::CliResult;

/// The options of `flitsim bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Shorter runs (for a quick look; the figures of docs/reference/performance.md use the full suite).
    #[arg(long)]
    pub quick: bool,
    /// Run only the named case.
    #[arg(long)]
    pub case: Option<String>,
    /// Repetitions per case (the median is reported).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// A BookSim2 binary: run it and flitsim on the comparison case in alternation and
    /// report the speed ratios measured at one moment (instead of the suite)
    #[arg(long, value_name = "PATH", conflicts_with_all = ["case", "quick", "instructions"])]
    pub booksim: Option<std::path::PathBuf>,
    /// Rounds of the BookSim2 comparison (one BookSim2 run and the two flitsim cases each)
    #[arg(long, default_value_t = 3, requires = "booksim", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// Count instructions per flit-hop and per simulated cycle instead of timing: each
    /// one-thread case (with --case, that one; without, those that are not long) runs
    /// under valgrind's callgrind at its quick length and twice that, and the difference
    /// is divided by the difference in flit-hops and cycles. Needs valgrind; minutes per
    /// case (callgrind runs about 50 times slower).
    #[arg(long, conflicts_with_all = ["quick", "repeat"])]
    pub instructions: bool,
    /// (Child runs: the measurement window, in place of the case's or --quick's.)
    #[arg(long, hide = true)]
    pub measure: Option<u64>,
}

/// One benchmark case.
struct Case {
    name: &'static str,
    /// Run once regardless of --repeat (long cases whose point is memory and scale).
    once: bool,
    about: &'static str,
    toml: &'static str,
    quick_measure: u64,
    /// Threads stepping the simulation (the partitioned engine).
    threads: usize,
    /// Overrides of `toml` (`key=value`, as `flitsim run --set`).
    set: &'static [&'static str],
}

/// The BookSim2 comparison: 8x8 mesh, XY DOR, 4 VCs x 8 flits, iSLIP-1, 1-cycle stages
/// and links, 1-flit packets, uniform (incl. self), Bernoulli 0.3, 3 x 10,000 warm-up and
/// 3 x 10,000 measurement cycles, then the drain. BookSim2 takes ~16.5 s (3,600 cycles/s)
/// in the brief; `flitsim bench --booksim PATH` measures it ([`crate::booksim`]).
pub(crate) const BOOKSIM_MESH: &str = r#"
[topology]
type = "mesh"
dims = [8, 8]
[router]
type = "input_queued"
vcs = 4
buffer_depth = 8
allocator = "islip"
islip_iterations = 1
routing_delay = 1
vc_alloc_delay = 1
sw_alloc_delay = 1
st_delay = 1
credit_delay = 1
[routing]
type = "dor"
[channel]
latency = 1
[traffic]
load = 0.3
packet_size = 1
pattern = { type = "uniform" }
[sim]
warmup = 30000
measure = 30000
"#;

const TORUS_DEFAULT: &str = r#"
[sim]
warmup = 10000
measure = 30000
"#;

const TORUS_32K: &str = r#"
[topology]
type = "torus"
dims = [32, 32, 32]
[traffic]
load = 0.1
[sim]
warmup = 1000
measure = 9000
drain_limit = 0
[stats]
channel_counters = false
"#;

/// The SeaStar preset on the 2,112-node XT3 torus of the aging paper (11x12x16),
/// uniform 9-flit packets at 0.3 flits/node/cycle (heavy, just below round robin's
/// saturation near 0.34), age-based arbitration with the paper's recommended settings.
const SEASTAR_XT3: &str = r#"
[topology]
type = "torus"
dims = [11, 12, 16]
[router]
type = "buffered_crossbar"
age_rr_select = "0xffffffffffffffff"
age_clock_period = 8
req_age_bias = [3, 2, 1]
[routing]
classes = 2
[traffic]
load = 0.3
packet_size = 9
[sim]
warmup = 1000
measure = 4000
drain_limit = 0
[stats]
channel_counters = false
"#;

/// The SiCortex SC5832 fabric: K(3, 6), 972 nodes, crosspoint switches, link-level
/// retry with cut-through at a bit error rate of 1e-5 (so replays and poisoned copies
/// happen), uniform 19-flit packets (16 payload words) at 0.25 flits/node/cycle.
const SC5832: &str = r#"
[topology]
type = "kautz"
degree = 3
diameter = 6
[routing]
type = "source"
[router]
type = "crosspoint"
vcs = 4
[channel]
latency = 2
[channel.retry.errors]
ber = 1e-5
[traffic]
load = 0.25
packet_size = 19
[sim]
warmup = 1000
measure = 9000
drain_limit = 0
[stats]
channel_counters = false
"#;

/// A 16,512-node dragonfly (Kim et al. 2008's balanced a = 2p = 2h: 129 groups of 16
/// routers, 8 endpoints and 8 global channels each, 31-port routers), minimal routes,
/// uniform 1-flit packets at 0.3 flits/node/cycle.
const DRAGONFLY_16K: &str = r#"
[topology]
type = "dragonfly"
group_routers = 16
concentration = 8
global_ports = 8
[routing]
type = "dragonfly"
[router]
vcs = 2
[traffic]
load = 0.3
[sim]
warmup = 500
measure = 1500
drain_limit = 0
[stats]
channel_counters = false
"#;

/// A 4,096-node HyperX (an 8x8x8 flattened butterfly with 8 endpoints per router,
/// 29-port routers), dimension-order routes, uniform 1-flit packets at 0.3.
const HYPERX_4K: &str = r#"
[topology]
type = "hyperx"
dims = [8, 8, 8]
concentration = 8
[routing]
type = "hyperx"
[router]
vcs = 2
[traffic]
load = 0.3
[sim]
warmup = 500
measure = 1500
drain_limit = 0
[stats]
channel_counters = false
"#;

const CASES: &[Case] = &[
    Case {
        name: "booksim-mesh8x8",
        once: false,
        about: "BookSim2 comparison: 8x8 mesh, iSLIP, uniform 0.3",
        toml: BOOKSIM_MESH,
        quick_measure: 5000,
        threads: 1,
        set: &[],
    },
    Case {
        name: "booksim-mesh8x8-2t",
        once: false,
        about: "the same on 2 threads (partitioned engine)",
        toml: BOOKSIM_MESH,
        quick_measure: 5000,
        threads: 2,
        set: &[],
    },
    Case {
        name: "torus8x8",
        once: false,
        about: "default config: 8x8 torus, uniform 0.3",
        toml: TORUS_DEFAULT,
        quick_measure: 5000,
        threads: 1,
        set: &[],
    },
    Case {
        name: "seastar11x12x16",
        once: true,
        about: "SeaStar routers, 2,112-node torus, uniform 9-flit 0.3, aging",
        toml: SEASTAR_XT3,
        quick_measure: 1000,
        threads: 1,
        set: &[],
    },
    Case {
        name: "seastar11x12x16-2t",
        once: true,
        about: "the same on 2 threads (partitioned engine)",
        toml: SEASTAR_XT3,
        quick_measure: 1000,
        threads: 2,
        set: &[],
    },
    Case {
        name: "sc5832-retry",
        once: false,
        about: "SiCortex K(3,6), crosspoint, retry with cut-through, BER 1e-5, uniform 19-flit 0.25",
        toml: SC5832,
        quick_measure: 2000,
        threads: 1,
        set: &[],
    },
    Case {
        name: "torus32x32x32",
        once: true,
        about: "32,768-node torus, uniform 0.1, 10,000 cycles",
        toml: TORUS_32K,
        quick_measure: 1000,
        threads: 1,
        set: &[],
    },
    Case {
        name: "torus32x32x32-2t",
        once: true,
        about: "the same on 2 threads (partitioned engine)",
        toml: TORUS_32K,
        quick_measure: 1000,
        threads: 2,
        set: &[],
    },
    Case {
        name: "dragonfly16k",
        once: true,
        about: "16,512-node dragonfly (a=16, p=8, h=8), minimal routes, uniform 0.3",
        toml: DRAGONFLY_16K,
        quick_measure: 300,
        threads: 1,
        set: &[],
    },
    Case {
        name: "dragonfly16k-2t",
        once: true,
        about: "the same on 2 threads (partitioned engine)",
        toml: DRAGONFLY_16K,
        quick_measure: 300,
        threads: 2,
        set: &[],
    },
    Case {
        name: "dragonfly16k-4vc",
        once: true,
        about: "the same with 4 VCs: 124 input VCs per router (128-bit VC sets)",
        toml: DRAGONFLY_16K,
        quick_measure: 300,
        threads: 1,
        set: &["router.vcs=4"],
    },
    Case {
        name: "hyperx4k",
        once: true,
        about: "4,096-node HyperX (8x8x8, 8 endpoints per router), dimension order, uniform 0.3",
        toml: HYPERX_4K,
        quick_measure: 300,
        threads: 1,
        set: &[],
    },
    Case {
        name: "hyperx4k-2t",
        once: true,
        about: "the same on 2 threads (partitioned engine)",
        toml: HYPERX_4K,
        quick_measure: 300,
        threads: 2,
        set: &[],
    },
];

/// BookSim2's measured speed on the comparison case (cycles/s), from the issue brief.
const BOOKSIM_CYCLES_PER_S: f64 = 3600.0;

/// One case's figures (the median run's), as a child process prints them.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub(crate) struct CaseResult {
    pub name: String,
    pub cycles: u64,
    pub seconds: f64,
    pub cycles_per_s: f64,
    pub mflit_hops_per_s: f64,
    pub peak_rss_mib: f64,
    /// Router traversals in the run.
    pub flit_hops: u64,
}

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// Run `case` `repeat` times in this process: its whole length, or with `quick` its
/// quick one, or with `measure` the quick warm-up and that window.
fn run_case(case: &Case, quick: bool, repeat: usize, measure: Option<u64>) -> CliResult<CaseResult> {
    let set: Vec<String> = case.set.iter().map(|s| s.to_string()).collect();
    let mut cfg = Config::from_toml(case.toml, &set).map_err(|e| e.to_string())?;
    if quick || measure.is_some() {
        cfg.sim.warmup = cfg.sim.warmup.min(case.quick_measure);
        cfg.sim.measure = measure.unwrap_or(case.quick_measure);
    }
    let mut runs = Vec::new();
    for _ in 0..repeat.max(1) {
        let spec = cfg.validate().map_err(|e| e.to_string())?;
        let t = Instant::now();
        let mut sim = Simulation::new(spec).map_err(|e| e.to_string())?;
        let used = sim.set_threads(case.threads).map_err(|e| e.to_string())?;
        if used != case.threads {
            return Err(format!("bench case {} runs on {used} threads, not {}", case.name, case.threads));
        }
        let rep = sim.run(&mut |_| {}).map_err(|e| e.to_string())?;
        let secs = t.elapsed().as_secs_f64();
        runs.push((secs, rep.cycles, rep.counters.flit_traversals));
    }
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (secs, cycles, hops) = runs[runs.len() / 2];
    Ok(CaseResult {
        name: case.name.to_string(),
        cycles,
        seconds: secs,
        cycles_per_s: cycles as f64 / secs,
        mflit_hops_per_s: hops as f64 / secs / 1e6,
        peak_rss_mib: peak_rss_mib(),
        flit_hops: hops,
    })
}

/// The case named `name`, or an error listing the names.
fn find_case(name: &str) -> CliResult<&'static Case> {
    CASES.iter().find(|c| c.name == name).ok_or_else(|| {
        let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        format!("unknown bench case {name:?}; cases: {}", names.join(", "))
    })
}

/// The instructions callgrind counted, from its report on standard error
/// (`==PID== Collected : N`).
fn collected_instructions(stderr: &str) -> Option<u64> {
    stderr.lines().find_map(|l| l.split_once("Collected :").and_then(|(_, n)| n.trim().replace(',', "").parse().ok()))
}

/// `flitsim bench --instructions`: instructions per flit-hop and per cycle of the case
/// `only`, or of every one-thread case that is not long, in the steady state.
fn instructions(only: Option<&str>) -> CliResult<ExitCode> {
    let cases: Vec<&Case> = match only {
        Some(name) => vec![find_case(name)?],
        None => CASES.iter().filter(|c| c.threads == 1 && !c.once).collect(),
    };
    if let Some(c) = cases.iter().find(|c| c.threads != 1) {
        return Err(format!(
            "bench case {} runs on {} threads; instructions are counted on one (callgrind serialises threads): give its one-thread case",
            c.name, c.threads
        ));
    }
    let has_valgrind = Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    if !has_valgrind {
        return Err("bench --instructions runs the cases under valgrind's callgrind, which is not on PATH: install valgrind (e.g. apt-get install valgrind)".into());
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    println!(
        "flitsim {} bench --instructions (callgrind; steady state: a run of twice the quick window minus one of the quick window)",
        flitsim_core::VERSION
    );
    println!("{:<19} {:>12} {:>15} {:>14}  about", "case", "cycles", "instr/flit-hop", "instr/cycle");
    for case in cases {
        let mut counted = Vec::new();
        for window in [case.quick_measure, 2 * case.quick_measure] {
            let out = Command::new("valgrind")
                .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
                .arg(&exe)
                .args(["bench", "--case", case.name, "--repeat", "1", "--measure", &window.to_string()])
                .output()
                .map_err(|e| format!("cannot run valgrind: {e}"))?;
            let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            let run: Option<CaseResult> = stdout.lines().find_map(|l| l.strip_prefix("BENCH ")).and_then(|l| serde_json::from_str(l).ok());
            match (run, collected_instructions(&stderr)) {
                (Some(run), Some(n)) => counted.push((n, run)),
                _ => return Err(format!("bench case {} under callgrind failed: {stderr}", case.name)),
            }
        }
        let ((i1, r1), (i2, r2)) = (&counted[0], &counted[1]);
        let per = |d: u64| (i2.saturating_sub(*i1)) as f64 / d.max(1) as f64;
        println!(
            "{:<19} {:>12} {:>15.0} {:>14.0}  {}",
            case.name,
            r2.cycles.saturating_sub(r1.cycles),
            per(r2.flit_hops.saturating_sub(r1.flit_hops)),
            per(r2.cycles.saturating_sub(r1.cycles)),
            case.about
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Run case `name` in a child process (`flitsim bench --case`), `reps` times.
fn run_child(name: &str, quick: bool, reps: usize) -> CliResult<CaseResult> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(&exe);
    cmd.args(["bench", "--case", name, "--repeat", &reps.to_string()]);
    if quick {
        cmd.arg("--quick");
    }
    let out = cmd.output().map_err(|e| format!("cannot run bench child: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(line) = text.lines().find_map(|l| l.strip_prefix("BENCH ")) else {
        return Err(format!("bench case {name} failed: {}", String::from_utf8_lossy(&out.stderr)));
    };
    serde_json::from_str(line).map_err(|e| e.to_string())
}

/// `flitsim bench`; with `booksim`, the comparison with that BookSim2 binary instead
/// ([`crate::booksim`]); with `instructions`, the instruction counts ([`instructions`]).
pub fn cmd_bench(args: &BenchArgs) -> CliResult<ExitCode> {
    let (quick, repeat) = (args.quick, args.repeat as usize);
    if let Some(path) = &args.booksim {
        return crate::booksim::compare(path, args.rounds, repeat, |name, reps| run_child(name, quick, reps));
    }
    if args.instructions {
        return instructions(args.case.as_deref());
    }
    if let Some(name) = args.case.as_deref() {
        // Child mode: run one case in this process and print a JSON line.
        let r = run_case(find_case(name)?, quick, repeat, args.measure)?;
        println!("BENCH {}", serde_json::to_string(&r).unwrap());
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "flitsim {} bench{} (median of {repeat} runs per case, the SeaStar and 32K torus cases once; each case in its own process)",
        flitsim_core::VERSION,
        if quick { " --quick" } else { "" }
    );
    println!("{:<19} {:>9} {:>9} {:>12} {:>14} {:>10}  about", "case", "cycles", "seconds", "cycles/s", "M flit-hops/s", "peak MiB");
    let mut done: Vec<CaseResult> = Vec::new();
    for case in CASES {
        let r = run_child(case.name, quick, if case.once { 1 } else { repeat })?;
        println!(
            "{:<19} {:>9} {:>9.3} {:>12.0} {:>14.2} {:>10.1}  {}",
            r.name, r.cycles, r.seconds, r.cycles_per_s, r.mflit_hops_per_s, r.peak_rss_mib, case.about
        );
        if case.toml == BOOKSIM_MESH {
            println!(
                "{:<19} BookSim2 in the brief: ~{:.0} cycles/s (16.5 s); flitsim on {} thread{} is {:.1}x that (--booksim PATH measures both at once)",
                "",
                BOOKSIM_CYCLES_PER_S,
                case.threads,
                if case.threads == 1 { "" } else { "s" },
                r.cycles_per_s / BOOKSIM_CYCLES_PER_S
            );
        }
        if let Some(one) = case.name.strip_suffix("-2t").and_then(|base| done.iter().find(|d: &&CaseResult| d.name == base)) {
            println!("{:<19} speed-up over one thread: {:.2}x", "", r.cycles_per_s / one.cycles_per_s);
        }
        done.push(r);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callgrinds_count_is_read_from_its_report() {
        // What callgrind 3.19 writes to standard error at the end of a run.
        let stderr = "==16543== Callgrind, a call-graph generating cache profiler\n==16543== Events    : Ir\n\
                      ==16543== Collected : 592185899\n==16543== \n==16543== I   refs:      592,185,899\n";
        assert_eq!(collected_instructions(stderr), Some(592_185_899));
        assert_eq!(collected_instructions("==1== error: no such file\n"), None);
    }

    #[test]
    fn every_case_is_found_by_name_and_an_unknown_one_lists_them() {
        for c in CASES {
            assert_eq!(find_case(c.name).unwrap().name, c.name);
        }
        let err = find_case("mesh").err().expect("no case is named mesh");
        assert!(err.contains("unknown bench case \"mesh\"") && err.contains("booksim-mesh8x8, booksim-mesh8x8-2t"), "{err}");
    }
}
