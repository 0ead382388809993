//! `flitsim bench --booksim PATH`: the BookSim2 comparison measured at one moment.
//!
//! The machine this project runs on is shared, and its speed moves by tens of percent
//! from one minute to the next, so a ratio against a BookSim2 time taken on another day
//! says as much about the two days as about the two simulators. Given a BookSim2 binary
//! (built from <https://github.com/booksim/booksim2>, `src/`, with its own Makefile),
//! this runs BookSim2 on the comparison case and flitsim's `booksim-mesh8x8` cases on
//! one and two threads in alternation, round after round, and reports each round's
//! ratio and their median. BookSim2's time is its own "Total run time" (the simulation,
//! without building the network); flitsim's is the bench case's median of `--repeat`
//! runs (building the network included). BookSim2's statistics are printed beside
//! flitsim's, as a cross-check of the two models on the same case.

use std::path::Path;
use std::process::{Command, ExitCode};

use crate::bench::CaseResult;
use crate::common::CliResult;

/// The comparison case in BookSim2's config language: an 8x8 mesh, XY dimension-order
/// routing, 4 VCs x 8 flits, switch allocation by iSLIP with one iteration and VC
/// allocation by separable input-first round-robin arbiters (flitsim's), routing, VC-allocation, switch-allocation and switch-traversal delays of one cycle,
/// 1-cycle links and credits, 1-flit packets, uniform destinations (the source
/// included), Bernoulli injection at 0.3 flits/node/cycle. `max_samples` counts the
/// warm-up periods too: 3 warm-up and 3 measurement periods of 10,000 cycles, then the
/// drain (60,000 and some cycles, as flitsim's case).
pub const CONFIG: &str = "\
topology = mesh;
k = 8;
n = 2;
routing_function = dim_order;
num_vcs = 4;
vc_buf_size = 8;
wait_for_tail_credit = 0;
vc_allocator = separable_input_first;
sw_allocator = islip;
alloc_iters = 1;
credit_delay = 1;
routing_delay = 1;
vc_alloc_delay = 1;
sw_alloc_delay = 1;
st_final_delay = 1;
input_speedup = 1;
output_speedup = 1;
internal_speedup = 1.0;
traffic = uniform;
packet_size = 1;
injection_rate = 0.3;
injection_rate_uses_flits = 1;
injection_process = bernoulli;
sim_type = latency;
warmup_periods = 3;
sample_period = 10000;
max_samples = 6;
sim_count = 1;
seed = 1;
";

/// What one BookSim2 run printed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookSimRun {
    /// "Total run time" (seconds).
    pub seconds: f64,
    /// "Time taken is N cycles".
    pub cycles: u64,
    /// The overall "Packet latency average".
    pub latency: f64,
    /// The overall "Accepted flit rate average".
    pub accepted: f64,
    /// "Hops average" (routers traversed).
    pub hops: f64,
}

/// The last value printed after `label` on a line of `out`, up to the next space.
fn last_value(out: &str, label: &str) -> Option<f64> {
    out.lines().rev().find_map(|l| l.trim().strip_prefix(label)?.split_whitespace().next()?.parse().ok())
}

/// Read a BookSim2 run's output; `None` if it is not the output of a finished run.
pub fn parse(out: &str) -> Option<BookSimRun> {
    let cycles = out.lines().find_map(|l| l.strip_prefix("Time taken is ")?.split_whitespace().next()?.parse().ok())?;
    Some(BookSimRun {
        seconds: last_value(out, "Total run time")?,
        cycles,
        latency: last_value(out, "Packet latency average =")?,
        accepted: last_value(out, "Accepted flit rate average =")?,
        hops: last_value(out, "Hops average =")?,
    })
}

/// Run BookSim2 once on [`CONFIG`].
fn run_booksim(booksim: &Path, dir: &Path) -> CliResult<BookSimRun> {
    let cfg = dir.join("booksim-mesh8x8.cfg");
    std::fs::write(&cfg, CONFIG).map_err(|e| format!("cannot write {}: {e}", cfg.display()))?;
    let out = Command::new(booksim)
        .arg(&cfg)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run BookSim2 at {}: {e}", booksim.display()))?;
    // (BookSim2's main returns -1 on success: its exit status says nothing.)
    let text = String::from_utf8_lossy(&out.stdout);
    parse(&text).ok_or_else(|| {
        let tail: Vec<&str> = text.lines().rev().take(5).collect();
        format!(
            "{} did not finish the comparison case like BookSim2 does (no \"Time taken\" and statistics); its last lines: {:?}; stderr: {}",
            booksim.display(),
            tail,
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `flitsim bench --booksim PATH --rounds N --repeat R`.
pub fn compare(booksim: &Path, rounds: u32, repeat: usize, run_case: impl Fn(&str, usize) -> CliResult<CaseResult>) -> CliResult<ExitCode> {
    let dir = std::env::temp_dir().join(format!("flitsim-booksim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    println!(
        "BookSim2 ({}) and flitsim {} on the comparison case, alternating; flitsim: median of {repeat} runs per round",
        booksim.display(),
        flitsim_core::VERSION
    );
    println!("{:>5} {:>11} {:>11} {:>8} {:>11} {:>8}", "round", "BookSim2 s", "flitsim 1t", "ratio", "flitsim 2t", "ratio");
    let (mut r1, mut r2) = (Vec::new(), Vec::new());
    let mut last = None;
    for round in 1..=rounds {
        let b = run_booksim(booksim, &dir)?;
        let one = run_case("booksim-mesh8x8", repeat)?;
        let two = run_case("booksim-mesh8x8-2t", repeat)?;
        let (x1, x2) = (b.seconds / one.seconds, b.seconds / two.seconds);
        println!("{round:>5} {:>11.2} {:>11.3} {:>7.1}x {:>11.3} {:>7.1}x", b.seconds, one.seconds, x1, two.seconds, x2);
        r1.push(x1);
        r2.push(x2);
        last = Some((b, one));
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("median ratio: {:.1}x on one thread, {:.1}x on two", median(r1), median(r2));
    if let Some((b, one)) = last {
        println!(
            "BookSim2: {} cycles, {:.0} cycles/s, packet latency {:.2}, accepted {:.4} flits/node/cycle, {:.3} routers per packet; flitsim: {} cycles, {:.0} cycles/s",
            b.cycles,
            b.cycles as f64 / b.seconds,
            b.latency,
            b.accepted,
            b.hops,
            one.cycles,
            one.cycles_per_s
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_overall_statistics_of_a_run() {
        // The shape of BookSim2's output: per-period blocks, then the overall block
        // (the values here are made up; the overall ones come last).
        let out = "Packet latency average = 99.5\nAccepted flit rate average = 0.1\nTime taken is 60156 cycles\n\
                   ====== Overall Traffic Statistics ======\nPacket latency average = 37.9424 (1 samples)\n\tminimum = 7 (1 samples)\n\
                   Accepted flit rate average = 0.30002 (1 samples)\nHops average = 6.2478 (1 samples)\nTotal run time 13.2521\n";
        assert_eq!(parse(out), Some(BookSimRun { seconds: 13.2521, cycles: 60156, latency: 37.9424, accepted: 0.30002, hops: 6.2478 }));
        // A run that stopped early is not taken for a result.
        assert_eq!(parse("Packet latency average = 37.9\nTotal run time 1.0\n"), None);
    }

    #[test]
    fn the_config_is_the_bench_case() {
        // The same network and load as flitsim's comparison case.
        let cfg = flitsim_core::config::Config::from_toml(crate::bench::BOOKSIM_MESH, &[]).unwrap();
        for (key, value) in [
            ("k", "8"),
            ("n", "2"),
            ("num_vcs", cfg.router.vcs().to_string().as_str()),
            ("injection_rate", "0.3"),
            ("packet_size", "1"),
            ("sample_period", "10000"),
        ] {
            assert!(CONFIG.contains(&format!("\n{key} = {value};\n")), "{key}");
        }
        assert_eq!((cfg.sim.warmup, cfg.sim.measure), (30000, 30000));
        assert_eq!(cfg.traffic.load, 0.3);
    }
}
