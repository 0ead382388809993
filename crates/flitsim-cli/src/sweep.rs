//! `flitsim sweep`: a grid of overrides times offered loads times seeds, points in
//! parallel, every finished point kept in a results store (the Python package's format,
//! see [`crate::store`]), written as CSV, JSON and an SVG load-latency plot.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::common::CliResult;
use crate::plot;
use crate::store::{self, Store};

/// `flitsim sweep`'s own arguments (beside the config and its `--set` overrides).
#[derive(clap::Args, Debug, Clone)]
pub struct SweepArgs {
    /// Offered loads as START:STOP:STEP (flits/node/cycle), or one load; the last grid
    /// dimension. Default 0.05:0.95:0.05 unless a --grid names traffic.load or the config
    /// replays a trace (which sets its own times: no loads).
    #[arg(short, long, allow_hyphen_values = true)]
    pub loads: Option<String>,
    #[allow(rustdoc::broken_intra_doc_links)] // (the help text shows `[4,4]` as typed)
    /// A grid dimension: a config key and its values, e.g. --grid router.vcs=2,4 or
    /// --grid 'topology.dims=[4,4],[8,8]' (commas inside [], {} or quotes do not split).
    /// Repeatable: the cartesian product, the last --grid varying fastest, then the loads.
    #[arg(short, long, value_name = "KEY=V1,V2,...")]
    pub grid: Vec<String>,
    /// Seeds: a count N (seeds 1..N) or a list A,B,C; default: the config's seed.
    #[arg(long)]
    pub seeds: Option<String>,
    /// Results store directory shared with the Python package: points found there are not
    /// run again, each finished point is written at once (an interrupted sweep resumes).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Output directory for sweep.csv, sweep.json and sweep.svg.
    #[arg(short, long, default_value = "sweep-out")]
    pub out: PathBuf,
    /// Parallel jobs (default: all cores; 1 runs the points one after another).
    #[arg(short, long, value_parser = clap::value_parser!(u32).range(1..=MAX_JOBS))]
    pub jobs: Option<u32>,
    /// In each series (grid point and seed), skip the loads above its first saturated point.
    #[arg(long)]
    pub stop_at_saturation: bool,
}

/// One point of a sweep: a row of sweep.csv and sweep.json.
#[derive(Serialize, Clone, Debug)]
pub struct SweepRow {
    /// The point's grid values (key path -> value as given).
    #[serde(serialize_with = "point_map")]
    pub point: Vec<(String, String)>,
    /// The run's seed.
    pub seed: u64,
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
    /// With a trace (`traffic.trace`): the cycle its last message completed.
    pub trace_completion: Option<u64>,
    /// The run's results-store key.
    pub key: String,
}

/// A point's grid values as a JSON object.
fn point_map<S: serde::Serializer>(point: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(point.iter().map(|(k, v)| (k, v)))
}

/// Most points one sweep may have (loads x seeds x grid points): a larger grid is almost
/// certainly a typo (a tiny STEP, a huge seed count), and would fill memory before it ran.
pub const MAX_POINTS: u64 = 100_000;

/// Most parallel jobs of `sweep` and `reproduce`.
pub const MAX_JOBS: i64 = 1024;

/// Parse `START:STOP:STEP` into a list of loads.
pub fn parse_loads(s: &str) -> CliResult<Vec<f64>> {
    let parts: Vec<&str> = s.split(':').collect();
    let bad = || format!("--loads {s:?}: expected START:STOP:STEP with 0 < START <= STOP <= 1 and STEP > 0, e.g. 0.05:0.95:0.05");
    if parts.len() == 1 {
        let v: f64 = parts[0].trim().parse().map_err(|_| bad())?;
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "--loads {s:?}: a load is in flits/node/cycle, from 0 to 1 (what an injection channel carries); give a value in that range"
            ));
        }
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
    let n = ((b - a) / st + 1e-9).floor() + 1.0;
    if n > MAX_POINTS as f64 {
        return Err(format!("--loads {s:?} makes {n:.0} loads, more than a sweep may have ({MAX_POINTS}); use a larger STEP"));
    }
    let n = n as usize;
    Ok((0..n).map(|i| ((a + i as f64 * st) * 1e9).round() / 1e9).collect())
}

/// Parse `KEY=V1,V2,...`: split the values at commas outside brackets, braces and quotes.
pub fn parse_grid(s: &str) -> CliResult<(String, Vec<String>)> {
    let bad = || format!("--grid {s:?}: expected KEY=V1,V2,... e.g. router.vcs=2,4");
    let (key, values) = s.split_once('=').ok_or_else(bad)?;
    let key = key.trim();
    if key.is_empty() {
        return Err(bad());
    }
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None::<char>);
    for ch in values.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(ch),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur.trim().to_string());
    if quote.is_some() || depth != 0 || out.iter().any(|v| v.is_empty()) {
        return Err(bad());
    }
    Ok((key.to_string(), out))
}

/// Parse `--seeds`: a count N (1..=N) or a comma-separated list.
pub fn parse_seeds(s: &str) -> CliResult<Vec<u64>> {
    let bad = || format!("--seeds {s:?}: give a count N >= 1 (seeds 1..N) or a list A,B,C");
    if s.contains(',') {
        let seeds: Vec<u64> = s.split(',').map(|p| p.trim().parse::<u64>().map_err(|_| bad())).collect::<CliResult<_>>()?;
        if let Some((_, dup)) = seeds.iter().enumerate().find(|(i, x)| seeds[..*i].contains(x)) {
            return Err(format!("--seeds {s:?} gives seed {dup} twice: a seed makes the same run every time; give each once"));
        }
        return Ok(seeds);
    }
    match s.trim().parse::<u64>() {
        Ok(n) if n > MAX_POINTS => Err(format!("--seeds {n}: more seeds than a sweep may have points ({MAX_POINTS}); give fewer")),
        Ok(n) if n >= 1 => Ok((1..=n).collect()),
        _ => Err(bad()),
    }
}

/// The cartesian product of the grid dimensions, the last varying fastest.
fn product(dims: &[(String, Vec<String>)]) -> Vec<Vec<(String, String)>> {
    let mut points = vec![Vec::new()];
    for (key, values) in dims {
        points =
            points.into_iter().flat_map(|p| values.iter().map(move |v| [p.clone(), vec![(key.clone(), v.clone())]].concat())).collect();
    }
    points
}

/// A run to make: its overrides (after the base ones), its seed and load.
struct Job {
    series: usize,
    point: Vec<(String, String)>,
    seed: Option<u64>,
    load: Option<f64>,
}

/// The resolved config of a job, its store key, and the report text (from the store or
/// run now); `true` when it was run now. `dir` is the config file's folder, against which
/// the data files it names resolve.
fn run_job(
    text: Option<&str>,
    dir: Option<&std::path::Path>,
    base: &[String],
    job: &Job,
    store: Option<&Store>,
) -> CliResult<(String, String, bool)> {
    let mut overrides = base.to_vec();
    overrides.extend(job.point.iter().map(|(k, v)| format!("{k}={v}")));
    if let Some(l) = job.load {
        overrides.push(format!("traffic.load={l}"));
    }
    if let Some(s) = job.seed {
        overrides.push(format!("seed={s}"));
    }
    let at = || {
        let mut p: Vec<String> = job.point.iter().map(|(k, v)| format!("{k}={v}")).collect();
        p.extend(job.load.map(|l| format!("load {l}")));
        p.extend(job.seed.map(|s| format!("seed {s}")));
        if p.is_empty() {
            "the sweep".to_string()
        } else {
            p.join(", ")
        }
    };
    let cfg = Config::load_in(text, dir, &overrides).map_err(|e| format!("{}: {e}", at()))?;
    let key = store::key(&cfg);
    if let Some(found) = store.map(|s| s.get(&key)).transpose()?.flatten() {
        return Ok((key, found, false));
    }
    let spec = cfg.validate().map_err(|e| format!("{}: {e}", at()))?;
    let json = Simulation::run_spec(spec).map_err(|e| format!("{}: {e}", at()))?.to_json();
    if let Some(s) = store {
        s.put(&key, &json)?;
    }
    Ok((key, json, true))
}

fn row(job: &Job, key: String, rep: &serde_json::Value) -> CliResult<SweepRow> {
    let f = |p: &str| rep.pointer(p).and_then(|v| v.as_f64()).ok_or_else(|| format!("report {key}: no {p}"));
    let u = |p: &str| rep.pointer(p).and_then(|v| v.as_u64()).ok_or_else(|| format!("report {key}: no {p}"));
    let s = "/stats";
    Ok(SweepRow {
        point: job.point.clone(),
        seed: u("/seed")?,
        load: f("/config/traffic/load")?,
        offered: f(&format!("{s}/offered"))?,
        accepted: f(&format!("{s}/accepted/mean"))?,
        latency_mean: f(&format!("{s}/packet_latency/mean"))?,
        latency_p50: u(&format!("{s}/packet_latency/p50"))?,
        latency_p99: u(&format!("{s}/packet_latency/p99"))?,
        network_latency_mean: f(&format!("{s}/network_latency/mean"))?,
        avg_hops: f(&format!("{s}/avg_hops"))?,
        saturated: rep.pointer("/stats/saturated").and_then(|v| v.as_bool()).unwrap_or(false),
        reason: rep
            .pointer("/stats/saturation_reasons")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|r| r.as_str()).collect::<Vec<_>>().join("; "))
            .unwrap_or_default(),
        trace_completion: rep.pointer("/trace/completion").and_then(|v| v.as_u64()),
        key: key.clone(),
    })
}

/// CSV text of the rows: the grid keys, the seed, the measured numbers, the store key.
pub fn csv(grid_keys: &[String], rows: &[SweepRow]) -> String {
    let mut o = String::new();
    for k in grid_keys {
        let _ = write!(o, "\"{k}\",");
    }
    o.push_str("seed,load,offered,accepted,latency_mean,latency_p50,latency_p99,network_latency_mean,avg_hops,saturated,reason,trace_completion,key\n");
    for r in rows {
        for (_, v) in &r.point {
            let _ = write!(o, "\"{}\",", v.replace('"', "\"\""));
        }
        let _ = writeln!(
            o,
            "{},{},{:.6},{:.6},{:.4},{},{},{:.4},{:.4},{},\"{}\",{},{}",
            r.seed,
            r.load,
            r.offered,
            r.accepted,
            r.latency_mean,
            r.latency_p50,
            r.latency_p99,
            r.network_latency_mean,
            r.avg_hops,
            r.saturated,
            r.reason.replace('"', "'"),
            r.trace_completion.map_or(String::new(), |c| c.to_string()),
            r.key
        );
    }
    o
}

/// `flitsim sweep`.
pub fn cmd_sweep(cfg: &crate::ConfigArgs, args: &SweepArgs) -> CliResult<ExitCode> {
    let text = match &cfg.config {
        Some(p) => Some(crate::common::read_config_file(p)?),
        None => None,
    };
    // Validate the base once up front so a bad config fails before any work.
    let dir = cfg.config.as_deref().and_then(std::path::Path::parent);
    let base = Config::load_in(text.as_deref(), dir, &cfg.set).map_err(|e| e.to_string())?;
    base.validate().map_err(|e| e.to_string())?;
    // A trace sets its own times: no load dimension unless asked for (and then refused).
    let traced = base.traffic.trace.is_some();
    let dims: Vec<(String, Vec<String>)> = args.grid.iter().map(|g| parse_grid(g)).collect::<CliResult<_>>()?;
    for (i, (key, _)) in dims.iter().enumerate() {
        if dims[..i].iter().any(|(k, _)| k == key) {
            return Err(format!("--grid names {key} twice; give all its values in one --grid {key}=V1,V2,..."));
        }
    }
    let grid_has_load = dims.iter().any(|(k, _)| k == "traffic.load");
    let loads: Vec<Option<f64>> = match (&args.loads, grid_has_load) {
        (Some(_), true) => return Err("give the loads with --loads or with --grid traffic.load=..., not both".into()),
        (Some(l), false) => parse_loads(l)?.into_iter().map(Some).collect(),
        (None, true) => vec![None],
        (None, false) if traced => vec![None],
        (None, false) => parse_loads("0.05:0.95:0.05")?.into_iter().map(Some).collect(),
    };
    let seeds: Vec<Option<u64>> = match &args.seeds {
        Some(s) => parse_seeds(s)?.into_iter().map(Some).collect(),
        None => vec![None],
    };
    let points = dims
        .iter()
        .fold(1u64, |n, (_, v)| n.saturating_mul(v.len() as u64))
        .saturating_mul(seeds.len() as u64)
        .saturating_mul(loads.len() as u64);
    if points > MAX_POINTS {
        return Err(format!("the sweep has {points} points (grid x seeds x loads), more than a sweep may have ({MAX_POINTS}); split it or give fewer values"));
    }
    // Where the results go, checked before anything runs.
    crate::common::check_writable_dir(&args.out, "--out")?;
    if let Some(dir) = &args.store {
        crate::common::check_writable_dir(dir, "--store")?;
    }
    let store = args.store.as_deref().map(Store::open).transpose()?;
    // Series: a grid point and a seed; each series runs its loads in ascending order.
    let mut series: Vec<Vec<Job>> = Vec::new();
    for point in product(&dims) {
        for &seed in &seeds {
            let n = series.len();
            series.push(loads.iter().map(|&load| Job { series: n, point: point.clone(), seed, load }).collect());
        }
    }
    let total: usize = series.iter().map(|s| s.len()).sum();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0) as usize).build().map_err(|e| e.to_string())?;
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("sweep [{bar:40}] {pos}/{len} points ({elapsed}, eta {eta})").unwrap().progress_chars("=> "),
    );
    // With --stop-at-saturation, run each series a few loads at a time and drop it after
    // its first saturated point; otherwise all at once.
    let chunk = if args.stop_at_saturation { pool.current_num_threads().max(1) } else { loads.len().max(1) };
    let mut done: Vec<Vec<(SweepRow, serde_json::Value)>> = series.iter().map(|_| Vec::new()).collect();
    let mut active: Vec<bool> = vec![true; series.len()];
    let (mut ran, mut cached) = (0usize, 0usize);
    // Points whose run failed (a deadlock, say): reported at the end; the others go on.
    let mut failed: Vec<String> = Vec::new();
    for start in (0..loads.len()).step_by(chunk) {
        let batch: Vec<&Job> =
            series.iter().enumerate().filter(|(i, _)| active[*i]).flat_map(|(_, s)| s.iter().skip(start).take(chunk)).collect();
        let got: Vec<CliResult<(String, String, bool)>> = pool.install(|| {
            batch
                .par_iter()
                .map(|job| {
                    let r = run_job(text.as_deref(), dir, &cfg.set, job, store.as_ref());
                    bar.inc(1);
                    r
                })
                .collect()
        });
        for (job, g) in batch.iter().zip(got) {
            let (key, json, now) = match g {
                Ok(x) => x,
                Err(e) => {
                    // (The error names the point; its first line says what happened, the
                    // rest, a deadlock's blocked channels, is for a run of that point alone.)
                    failed.push(e.lines().next().unwrap_or_default().to_string());
                    // (A series stopped at saturation stops at a failure too.)
                    if args.stop_at_saturation {
                        active[job.series] = false;
                    }
                    continue;
                }
            };
            if now {
                ran += 1
            } else {
                cached += 1
            }
            let rep: serde_json::Value = serde_json::from_str(&json).map_err(|e| format!("report {key}: {e}"))?;
            let r = row(job, key, &rep)?;
            if args.stop_at_saturation && r.saturated {
                active[job.series] = false;
            }
            done[job.series].push((r, rep));
        }
    }
    bar.finish_and_clear();
    // Rows in the Python sweep's order: grid point, then load, then seed.
    let mut ordered: Vec<(usize, usize, usize, &(SweepRow, serde_json::Value))> = Vec::new();
    for (i, s) in done.iter().enumerate() {
        ordered.extend(s.iter().enumerate().map(|(l, r)| (i / seeds.len(), l, i % seeds.len(), r)));
    }
    ordered.sort_by_key(|&(p, l, s, _)| (p, l, s));
    let ordered: Vec<&(SweepRow, serde_json::Value)> = ordered.into_iter().map(|(_, _, _, r)| r).collect();
    write_outputs(args, &dims, &done, &ordered)?;
    let rows: Vec<&SweepRow> = ordered.iter().map(|(r, _)| r).collect();
    let label = |r: &SweepRow| {
        let p: Vec<String> = r.point.iter().map(|(k, v)| format!("{}={v}", k.rsplit('.').next().unwrap_or(k))).collect();
        if p.is_empty() {
            "-".to_string()
        } else {
            p.join(" ")
        }
    };
    let w = rows.iter().map(|r| label(r).len()).max().unwrap_or(0).max(5);
    if traced {
        // A trace sets its own times: its run time instead of the load.
        println!(
            "{:<w$} {:>5} {:>9} {:>9} {:>10} {:>8} {:>8} {:>11}",
            "point", "seed", "offered", "accepted", "latency", "p50", "p99", "trace done"
        );
    } else {
        println!(
            "{:<w$} {:>5} {:>7} {:>9} {:>9} {:>10} {:>8} {:>8}",
            "point", "seed", "load", "offered", "accepted", "latency", "p50", "p99"
        );
    }
    for r in &rows {
        let point = label(r);
        if let (true, Some(done)) = (traced, r.trace_completion) {
            println!(
                "{point:<w$} {:>5} {:>9.4} {:>9.4} {:>10.2} {:>8} {:>8} {done:>11}",
                r.seed, r.offered, r.accepted, r.latency_mean, r.latency_p50, r.latency_p99
            );
        } else if r.saturated {
            println!(
                "{point:<w$} {:>5} {:>7.3} {:>9.4} {:>9.4} {:>10} {:>8} {:>8}  saturated",
                r.seed, r.load, r.offered, r.accepted, "-", "-", "-"
            );
        } else {
            println!(
                "{point:<w$} {:>5} {:>7.3} {:>9.4} {:>9.4} {:>10.2} {:>8} {:>8}",
                r.seed, r.load, r.offered, r.accepted, r.latency_mean, r.latency_p50, r.latency_p99
            );
        }
    }
    if let Some(s) = &args.store {
        println!("store {}: {ran} run now, {cached} reused", s.display());
    }
    println!("wrote {}/sweep.csv, sweep.json, sweep.svg", args.out.display());
    if !failed.is_empty() {
        eprintln!(
            "{} of {total} points failed (left out of the outputs; `flitsim run` of one with its overrides tells more):",
            failed.len()
        );
        for f in &failed {
            eprintln!("  {f}");
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// sweep.csv and sweep.json (rows and reports, in `ordered`), sweep.svg (one line per series).
fn write_outputs(
    args: &SweepArgs,
    dims: &[(String, Vec<String>)],
    done: &[Vec<(SweepRow, serde_json::Value)>],
    ordered: &[&(SweepRow, serde_json::Value)],
) -> CliResult<()> {
    let out = &args.out;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let write = |name: &str, text: String| -> CliResult<()> {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    let rows: Vec<SweepRow> = ordered.iter().map(|(r, _)| r.clone()).collect();
    let keys: Vec<String> = dims.iter().map(|(k, _)| k.clone()).collect();
    write("sweep.csv", csv(&keys, &rows))?;
    let reports: Vec<&serde_json::Value> = ordered.iter().map(|(_, r)| r).collect();
    write("sweep.json", serde_json::to_string_pretty(&serde_json::json!({ "grid": keys, "rows": rows, "reports": reports })).unwrap())?;
    let first = reports.first();
    let title = format!(
        "{} - {}",
        first.and_then(|r| r.pointer("/topology/description")).and_then(|v| v.as_str()).unwrap_or_default(),
        first.and_then(|r| r.pointer("/config/traffic/pattern/type")).and_then(|v| v.as_str()).unwrap_or("traffic")
    );
    let series: Vec<(String, Vec<SweepRow>)> = done
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| {
            let r = &s[0].0;
            let mut label: Vec<String> = r.point.iter().map(|(k, v)| format!("{}={v}", k.rsplit('.').next().unwrap_or(k))).collect();
            if args.seeds.is_some() {
                label.push(format!("seed {}", r.seed));
            }
            (label.join(" "), s.iter().map(|(r, _)| r.clone()).collect())
        })
        .collect();
    write("sweep.svg", plot::load_latency_svg(&title, &series))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_parse() {
        assert_eq!(parse_loads("0.1:0.3:0.1").unwrap(), vec![0.1, 0.2, 0.3]);
        assert_eq!(parse_loads("0.05:0.95:0.05").unwrap().len(), 19);
        assert_eq!(parse_loads("0.4").unwrap(), vec![0.4]);
        assert_eq!(parse_loads("0").unwrap(), vec![0.0]);
        assert!(parse_loads("1.5").unwrap_err().contains("from 0 to 1"));
        assert!(parse_loads("0.3:0.1:0.1").is_err());
        assert!(parse_loads("0.1:1.5:0.1").is_err());
        assert!(parse_loads("a:b:c").is_err());
        // A typo'd step or seed count is refused before anything is allocated.
        assert!(parse_loads("0.1:0.2:1e-9").unwrap_err().contains("larger STEP"));
        assert_eq!(parse_loads("0.00001:1:0.00001").unwrap().len(), 100_000);
        assert!(parse_seeds("18446744073709551615").unwrap_err().contains("fewer"));
        assert_eq!(parse_seeds("100000").unwrap().len(), 100_000);
    }

    #[test]
    fn grid_values_split_at_top_level_commas() {
        assert_eq!(parse_grid("router.vcs=2, 4").unwrap(), ("router.vcs".to_string(), vec!["2".to_string(), "4".to_string()]));
        let (_, v) = parse_grid("topology.dims=[4,4],[8,8]").unwrap();
        assert_eq!(v, vec!["[4,4]", "[8,8]"]);
        let (_, v) = parse_grid("traffic.pattern={ type = \"hotspot\", nodes = [0, 5] },\"a,b\"").unwrap();
        assert_eq!(v, vec!["{ type = \"hotspot\", nodes = [0, 5] }", "\"a,b\""]);
        assert!(parse_grid("router.vcs").is_err());
        assert!(parse_grid("router.vcs=2,,4").is_err());
        assert!(parse_grid("topology.dims=[4,4").is_err());
    }

    #[test]
    fn seeds_and_products() {
        assert_eq!(parse_seeds("3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("5,9").unwrap(), vec![5, 9]);
        assert!(parse_seeds("0").is_err() && parse_seeds("x").is_err());
        assert!(parse_seeds("4,2,4").unwrap_err().contains("seed 4 twice"));
        let dims =
            vec![("a".to_string(), vec!["1".to_string(), "2".to_string()]), ("b".to_string(), vec!["x".to_string(), "y".to_string()])];
        let p = product(&dims);
        assert_eq!(p.len(), 4);
        assert_eq!(p[1], vec![("a".to_string(), "1".to_string()), ("b".to_string(), "y".to_string())]);
        assert_eq!(product(&[]), vec![Vec::<(String, String)>::new()]);
    }
}
