//! `flitsim sweep`: a load-latency sweep, points in parallel, written as CSV, JSON and SVG.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::common::{load_config, CliResult};
use crate::plot;

/// One point of a sweep.
#[derive(Serialize, Clone, Debug)]
pub struct SweepRow {
    /// Offered load requested, flits/node/cycle.
    pub load: f64,
    /// Offered load measured in the window.
    pub offered: f64,
    /// Accepted throughput, flits/node/cycle.
    pub accepted: f64,
    /// Mean packet latency (cycles).
    pub latency_mean: f64,
    /// Median packet latency.
    pub latency_p50: u64,
    /// 99th percentile packet latency.
    pub latency_p99: u64,
    /// Mean network latency.
    pub network_latency_mean: f64,
    /// Mean hops.
    pub avg_hops: f64,
    /// Saturated?
    pub saturated: bool,
    /// Why.
    pub reason: String,
}

/// Parse `START:STOP:STEP` into a list of loads.
pub fn parse_loads(s: &str) -> CliResult<Vec<f64>> {
    let parts: Vec<&str> = s.split(':').collect();
    let bad = || format!("--loads {s:?}: expected START:STOP:STEP with 0 < START <= STOP <= 1 and STEP > 0, e.g. 0.05:0.95:0.05");
    if parts.len() == 1 {
        let v: f64 = parts[0].parse().map_err(|_| bad())?;
        return Ok(vec![v]);
    }
    if parts.len() != 3 {
        return Err(bad());
    }
    let nums: Vec<f64> = parts.iter().map(|p| p.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| bad())?;
    let (a, b, st) = (nums[0], nums[1], nums[2]);
    if !(a > 0.0 && a <= b && b <= 1.0 && st > 0.0) {
        return Err(bad());
    }
    let n = ((b - a) / st + 1e-9).floor() as usize + 1;
    Ok((0..n).map(|i| ((a + i as f64 * st) * 1e9).round() / 1e9).collect())
}

/// Run one load point.
pub fn run_point(base: &Config, load: f64) -> CliResult<(SweepRow, Report)> {
    let mut cfg = base.clone();
    cfg.traffic.load = load;
    let spec = cfg.validate().map_err(|e| format!("load {load}: {e}"))?;
    let rep = Simulation::run_spec(spec).map_err(|e| format!("load {load}: {e}"))?;
    let s = &rep.stats;
    let row = SweepRow {
        load,
        offered: s.offered,
        accepted: s.accepted.mean,
        latency_mean: s.packet_latency.mean,
        latency_p50: s.packet_latency.p50,
        latency_p99: s.packet_latency.p99,
        network_latency_mean: s.network_latency.mean,
        avg_hops: s.avg_hops,
        saturated: s.saturated,
        reason: s.saturation_reasons.join("; "),
    };
    Ok((row, rep))
}

/// CSV text of the rows.
pub fn csv(rows: &[SweepRow]) -> String {
    let mut o = String::from("load,offered,accepted,latency_mean,latency_p50,latency_p99,network_latency_mean,avg_hops,saturated,reason\n");
    for r in rows {
        let _ = writeln!(
            o,
            "{},{:.6},{:.6},{:.4},{},{},{:.4},{:.4},{},\"{}\"",
            r.load,
            r.offered,
            r.accepted,
            r.latency_mean,
            r.latency_p50,
            r.latency_p99,
            r.network_latency_mean,
            r.avg_hops,
            r.saturated,
            r.reason.replace('"', "'")
        );
    }
    o
}

/// `flitsim sweep`.
pub fn cmd_sweep(args: &crate::ConfigArgs, loads: &str, out: &Path, jobs: Option<usize>, stop: bool) -> CliResult<ExitCode> {
    let base = load_config(args)?;
    // Validate once up front so a bad config fails before any work.
    base.validate().map_err(|e| e.to_string())?;
    let loads = parse_loads(loads)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| e.to_string())?;
    let bar = ProgressBar::new(loads.len() as u64);
    bar.set_style(ProgressStyle::with_template("sweep [{bar:40}] {pos}/{len} points ({elapsed}, eta {eta})").unwrap().progress_chars("=> "));
    let chunk = if stop { pool.current_num_threads().max(1) } else { loads.len().max(1) };
    let mut results: Vec<(SweepRow, Report)> = Vec::new();
    for part in loads.chunks(chunk) {
        let got: Vec<CliResult<(SweepRow, Report)>> = pool.install(|| {
            part.par_iter()
                .map(|&l| {
                    let r = run_point(&base, l);
                    bar.inc(1);
                    r
                })
                .collect()
        });
        let mut saturated = false;
        for g in got {
            let g = g?;
            saturated |= g.0.saturated;
            results.push(g);
        }
        if stop && saturated {
            break;
        }
    }
    bar.finish_and_clear();
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let rows: Vec<SweepRow> = results.iter().map(|(r, _)| r.clone()).collect();
    let write = |name: &str, text: String| -> CliResult<()> {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    write("sweep.csv", csv(&rows))?;
    let reports: Vec<&Report> = results.iter().map(|(_, r)| r).collect();
    write(
        "sweep.json",
        serde_json::to_string_pretty(&serde_json::json!({ "rows": rows, "reports": reports })).unwrap(),
    )?;
    let title = format!("{} - {}", results.first().map(|r| r.1.topology.description.clone()).unwrap_or_default(), pattern_name(&base));
    write("sweep.svg", plot::load_latency_svg(&title, &rows))?;
    println!("{:>7} {:>9} {:>9} {:>10} {:>8} {:>8}", "load", "offered", "accepted", "latency", "p50", "p99");
    for r in &rows {
        if r.saturated {
            println!("{:>7.3} {:>9.4} {:>9.4} {:>10} {:>8} {:>8}  saturated", r.load, r.offered, r.accepted, "-", "-", "-");
        } else {
            println!(
                "{:>7.3} {:>9.4} {:>9.4} {:>10.2} {:>8} {:>8}",
                r.load, r.offered, r.accepted, r.latency_mean, r.latency_p50, r.latency_p99
            );
        }
    }
    println!("wrote {}/sweep.csv, sweep.json, sweep.svg", out.display());
    Ok(ExitCode::SUCCESS)
}

fn pattern_name(c: &Config) -> String {
    serde_json::to_value(&c.traffic.pattern)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(|s| s.to_string()))
        .unwrap_or_else(|| "traffic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_parse() {
        assert_eq!(parse_loads("0.1:0.3:0.1").unwrap(), vec![0.1, 0.2, 0.3]);
        assert_eq!(parse_loads("0.05:0.95:0.05").unwrap().len(), 19);
        assert_eq!(parse_loads("0.4").unwrap(), vec![0.4]);
        assert!(parse_loads("0.3:0.1:0.1").is_err());
        assert!(parse_loads("0.1:1.5:0.1").is_err());
        assert!(parse_loads("a:b:c").is_err());
    }
}
