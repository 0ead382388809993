//! `flitsim reproduce NAME`: run a study under `experiments/NAME/` and print a table of
//! reference vs flitsim with the tolerance and pass/fail per row.
//!
//! A study is `experiments/NAME/experiment.toml`: a title, a description and `[[row]]`s.
//! Each row names a config file (relative to the study folder) plus `set` overrides, a
//! `metric` (a dotted path into the run's JSON report, e.g. `stats.accepted.mean` or
//! `stats.per_source.values[6]`), an optional `divide_by` path and `scale` factor (a
//! unit conversion), the `reference` value
//! with its `source`, and how to compare (`within` +- tolerance, `at_most`, `at_least`).
//! A row with `relative_to` (a baseline's overrides) compares the ratio of its metric to
//! the baseline run's (times `relative_scale`, when the two configs count different
//! units), for results the papers state relative to a baseline. A row with `seeds = N`
//! runs itself and its baseline once per seed 1..=N and compares means (a ratio of means
//! for a relative row), for results that move with the seed. A row with `series` also
//! draws a curve over time from the report ([`crate::series`]) under the row, beside the
//! paper's curve in words.
//! Rows that share a config and overrides share one run; runs go in parallel. A run that
//! deadlocks is a result: its report is `deadlock.found = true` (with `deadlock.cycle`
//! and, for a fault set, the route check under `faults`), and a successful run has
//! `deadlock.found = false`.
//!
//! With `--store DIR` (or `--out DIR`, whose store is `DIR/store`) every successful run is
//! kept in the results store the Python package uses (see [`crate::store`]) and reused
//! from it; `--out` also writes `reproduction.json` (the rows, the configs, the version)
//! for `flitsim report`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;
use rayon::prelude::*;
use serde::Deserialize;

use crate::common::CliResult;
use crate::store::{self, Store};

/// `experiment.toml`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Experiment {
    /// Title printed above the table.
    title: String,
    /// What the study reproduces (printed under the title).
    #[serde(default)]
    description: String,
    /// Rows.
    row: Vec<Row>,
}

/// One compared number.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Row {
    /// Short label.
    name: String,
    /// Config file relative to the study folder.
    config: String,
    /// Overrides applied on top (`key=value`).
    #[serde(default)]
    set: Vec<String>,
    /// Dotted path into the report JSON.
    metric: String,
    /// Optional path whose value divides the metric.
    #[serde(default)]
    divide_by: Option<String>,
    /// Optional constant the metric (after `divide_by`) is multiplied by: a unit
    /// conversion, e.g. flits/node/cycle to MB/s per process. The study's README states
    /// how it is derived. In a `relative_to` ratio it cancels (the baseline scales too).
    #[serde(default)]
    scale: Option<f64>,
    /// Optional baseline: the same config with these overrides instead of `set`. The
    /// row's value is then the metric (after `divide_by`) divided by the baseline's,
    /// e.g. the latency under aging relative to round robin.
    #[serde(default)]
    relative_to: Option<Vec<String>>,
    /// The baseline's config, when it is not the row's (e.g. a torus beside a Kautz graph).
    #[serde(default)]
    relative_config: Option<String>,
    /// A constant the baseline's value is multiplied by before the ratio: the unit
    /// conversion between two configs whose metrics count different units (e.g. flits
    /// of 4 bytes against flits of 8: 0.5).
    #[serde(default)]
    relative_scale: Option<f64>,
    /// The reference number; may be left out for a `report` row whose paper value exists
    /// only as a curve in a figure (printed as "-").
    #[serde(default)]
    reference: Option<f64>,
    /// Allowed absolute deviation for `within`.
    #[serde(default)]
    tolerance: f64,
    /// `within` (default), `at_most` (flitsim <= reference + tolerance), `at_least`
    /// (flitsim >= reference - tolerance), or `report` (printed beside the reference,
    /// not judged: for a paper number the study does not claim to reproduce; its README
    /// says why).
    #[serde(default = "d_within")]
    compare: String,
    /// What a judged row shows: `magnitude` (the paper's number itself, within a tolerance
    /// set by its precision and the run-to-run spread; the default of `within`) or
    /// `direction` (only which side of a baseline the result lies, e.g. "aging lowers the
    /// latency": the default of `at_most` and `at_least`). Counted apart in the summary.
    #[serde(default)]
    judges: Option<String>,
    /// Why a paper number is printed but not judged (a `report` row with a reference):
    /// printed under the row and kept in `reproduction.json`.
    #[serde(default)]
    reason: Option<String>,
    /// Where the reference comes from.
    source: String,
    /// Run the row once per value `0..count` of config key `key` (e.g. the eBB
    /// benchmark's pattern number `traffic.pattern.index`) and combine the values with
    /// `aggregate`; the baseline of `relative_to` runs once.
    #[serde(default)]
    over: Option<Over>,
    /// With `over`: `mean` (default; the 95% confidence interval of the mean is printed
    /// beside it), `min` or `max`.
    #[serde(default)]
    aggregate: Option<String>,
    /// Run the row, and its `relative_to` baseline, once per seed 1, 2, ..., N (`seed=S`
    /// added to the overrides of each) and compare the mean over the seeds; a relative
    /// row compares the mean of its runs over the mean of the baseline's (a ratio of
    /// means). For rows whose single runs move with the seed more than the finding's
    /// margin (e.g. throughput beyond saturation); the per-seed values are printed. Not
    /// with `over`.
    #[serde(default)]
    seeds: Option<u32>,
    /// A curve over time to print under the row (for a figure that is a curve): the path
    /// of an array in the report, or of one field of each of its elements, e.g.
    /// `congestion.trace.threshold` (one entry per tuning period); drawn as a line of
    /// text with its cycles and range (the row's run; with `seeds`, seed 1's). Elements
    /// with a `cycle` in the warm-up are left out, as the papers' curves leave it out.
    #[serde(default)]
    series: Option<String>,
    /// The paper's curve in words, printed above ours (with `series`).
    #[serde(default)]
    series_reference: Option<String>,
}

/// `over = { key, count }` of a row.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Over {
    /// Config key set to 0, 1, ..., count - 1.
    key: String,
    /// Number of runs, >= 1.
    count: u32,
}

impl Row {
    /// The override lists of the row's runs: `set`, or one per value of `over`, or one
    /// per seed.
    fn run_sets(&self) -> Vec<Vec<String>> {
        match (&self.over, self.seeds) {
            (Some(o), _) => (0..o.count)
                .map(|i| {
                    let mut s = self.set.clone();
                    s.push(format!("{}={i}", o.key));
                    s
                })
                .collect(),
            (None, Some(_)) => self.seeded(&self.set),
            (None, None) => vec![self.set.clone()],
        }
    }

    /// The override lists of the baseline's runs: one, or one per seed.
    fn baseline_sets(&self) -> Vec<Vec<String>> {
        match &self.relative_to {
            None => Vec::new(),
            Some(b) if self.over.is_none() && self.seeds.is_some() => self.seeded(b),
            Some(b) => vec![b.clone()],
        }
    }

    /// `set` once per seed of `seeds`.
    fn seeded(&self, set: &[String]) -> Vec<Vec<String>> {
        (1..=self.seeds.unwrap_or(1))
            .map(|seed| {
                let mut s = set.to_vec();
                s.push(format!("seed={seed}"));
                s
            })
            .collect()
    }

    /// `magnitude` or `direction` for a judged row (its `judges`, or the default of its
    /// `compare`); `None` for a report row.
    fn judges(&self) -> Option<&str> {
        match (self.judges.as_deref(), self.compare.as_str()) {
            (_, "report") => None,
            (Some(j), _) => Some(j),
            (None, "within") => Some("magnitude"),
            (None, _) => Some("direction"),
        }
    }

    /// The baseline's config file.
    fn baseline_config(&self) -> &String {
        self.relative_config.as_ref().unwrap_or(&self.config)
    }

    /// Refuse field combinations that mean nothing.
    fn check(&self) -> CliResult<()> {
        if self.over.as_ref().is_some_and(|o| o.count == 0) {
            return Err(format!("row {:?}: over.count = 0 runs nothing; give at least 1", self.name));
        }
        match self.seeds {
            Some(0) => Err(format!("row {:?}: seeds = 0 runs nothing; give at least 1", self.name)),
            Some(_) if self.set.iter().chain(self.relative_to.iter().flatten()).any(|o| o.split('=').next().is_some_and(|k| k.trim() == "seed")) => {
                Err(format!("row {:?}: seeds sets the seed of each run; take seed= out of set and relative_to", self.name))
            }
            Some(_) if self.aggregate.is_some() => {
                Err(format!("row {:?}: aggregate combines the runs of over; a row with seeds compares their mean", self.name))
            }
            Some(_) if self.over.is_some() => {
                Err(format!("row {:?}: seeds and over both repeat the row; give one (over's key may be \"seed\")", self.name))
            }
            _ if self.series_reference.is_some() && self.series.is_none() => {
                Err(format!("row {:?}: series_reference describes the paper's curve beside a series; give series (a path in the report) too", self.name))
            }
            _ if self.compare == "report" && self.judges.is_some() => {
                Err(format!("row {:?}: judges says what a judged row shows; a report row is not judged (remove judges, or give compare)", self.name))
            }
            _ if self.judges.as_deref().is_some_and(|j| j != "magnitude" && j != "direction") => {
                Err(format!("row {:?}: judges = {:?}; use magnitude or direction", self.name, self.judges.as_deref().unwrap_or_default()))
            }
            _ if self.reason.is_some() && self.compare != "report" => {
                Err(format!("row {:?}: reason says why a paper number is not judged; this row is judged (remove reason, or make it compare = \"report\")", self.name))
            }
            _ if self.relative_scale.is_some() && self.relative_to.is_none() => {
                Err(format!("row {:?}: relative_scale scales the baseline of relative_to, which the row does not have", self.name))
            }
            _ => Ok(()),
        }
    }
}

/// Mean and the half-width of its 95% confidence interval (normal approximation; 0 for
/// fewer than two values).
fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, 1.96 * (var / n).sqrt())
}

fn d_within() -> String {
    "within".into()
}

/// Resolve `a.b[3].c` in a JSON value.
pub fn lookup(v: &serde_json::Value, path: &str) -> Option<f64> {
    let mut cur = v;
    for part in path.split('.') {
        let (key, idx) = match part.find('[') {
            Some(i) => (&part[..i], Some(part[i + 1..part.len() - 1].parse::<usize>().ok()?)),
            None => (part, None),
        };
        if !key.is_empty() {
            cur = cur.get(key)?;
        }
        if let Some(i) = idx {
            cur = cur.get(i)?;
        }
    }
    cur.as_f64().or_else(|| cur.as_bool().map(|b| if b { 1.0 } else { 0.0 }))
}

/// `flitsim reproduce`.
pub fn cmd_reproduce(name: &str, dir: &Path, jobs: Option<usize>, store_dir: Option<&Path>, out: Option<&Path>) -> CliResult<ExitCode> {
    if !dir.is_dir() {
        return Err(format!(
            "no experiments directory at {}: run flitsim reproduce from the repository root, or give the directory with --dir PATH",
            dir.display()
        ));
    }
    if name == "list" {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("experiment.toml").exists())
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        names.sort();
        for n in names {
            println!("{n}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let folder: PathBuf = dir.join(name);
    let spec_path = folder.join("experiment.toml");
    let text = std::fs::read_to_string(&spec_path)
        .map_err(|e| format!("cannot read {}: {e} (run `flitsim reproduce list` to see the studies)", spec_path.display()))?;
    let exp: Experiment = toml::from_str(&text).map_err(|e| format!("{}: {e}", spec_path.display()))?;
    // Distinct runs.
    let mut runs: BTreeMap<(String, Vec<String>), Option<serde_json::Value>> = BTreeMap::new();
    for r in &exp.row {
        r.check()?;
        for set in r.run_sets() {
            runs.insert((r.config.clone(), set), None);
        }
        for set in r.baseline_sets() {
            runs.insert((r.baseline_config().clone(), set), None);
        }
    }
    let keys: Vec<(String, Vec<String>)> = runs.keys().cloned().collect();
    if let Some(o) = out {
        crate::common::check_writable_dir(o, "--out")?;
    }
    let store_dir: Option<PathBuf> = store_dir.map(Path::to_path_buf).or_else(|| out.map(|o| o.join("store")));
    if let Some(dir) = &store_dir {
        crate::common::check_writable_dir(dir, "--store")?;
    }
    let store = store_dir.as_deref().map(Store::open).transpose()?;
    let store = store.as_ref();
    // The store key of every run that succeeded (for the rows of reproduction.json).
    let mut run_keys: BTreeMap<(String, Vec<String>), String> = BTreeMap::new();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    println!("{}", exp.title);
    if !exp.description.is_empty() {
        println!("{}", exp.description.trim());
    }
    // Overrides spelled differently can make the same config (e.g. `seed=1` when the
    // config's seed is 1): such runs share one simulation, found by the store key.
    let mut parsed: Vec<(PathBuf, Config, String)> = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    let mut alias: Vec<usize> = Vec::with_capacity(keys.len());
    for (cfg_file, set) in &keys {
        let p = folder.join(cfg_file);
        let text = std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        // A data file a row names in `set` lies in the study's folder, as its configs' do.
        let set: Vec<String> = set.iter().map(|o| flitsim_core::config::rebase_override(o, &folder)).collect();
        let cfg = Config::load_in(Some(&text), p.parent(), &set).map_err(|e| format!("{}: {e}", p.display()))?;
        let key = store::key(&cfg);
        let next = parsed.len();
        let at = *by_key.entry(key.clone()).or_insert(next);
        if at == next {
            parsed.push((p, cfg, key));
        }
        alias.push(at);
    }
    eprintln!("running {} simulations...", parsed.len());
    let bar = indicatif::ProgressBar::new(parsed.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("reproduce [{bar:40}] {pos}/{len} runs ({elapsed}, eta {eta})")
            .unwrap()
            .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    let results: Vec<CliResult<(Option<String>, serde_json::Value)>> = pool.install(|| {
        parsed
            .par_iter()
            .map(|(p, cfg, key)| {
                let with_found = |json: &str| -> CliResult<(Option<String>, serde_json::Value)> {
                    let mut v: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("report {key}: {e}"))?;
                    v["deadlock"] = serde_json::json!({ "found": false });
                    Ok((Some(key.clone()), v))
                };
                if let Some(found) = store.map(|s| s.get(key)).transpose()?.flatten() {
                    return with_found(&found);
                }
                let spec = cfg.validate().map_err(|e| format!("{}: {e}", p.display()))?;
                // A deadlock is a result, not a failure of the study: the row
                // `deadlock.found` reports it (with the route check of a fault set).
                let faults = spec.faults.as_ref().map(|f| {
                    let routable_fraction = if f.check.pairs == 0 { 1.0 } else { f.check.routable_pairs as f64 / f.check.pairs as f64 };
                    serde_json::json!({ "routes": f.check, "routable_fraction": routable_fraction })
                });
                match Simulation::run_spec(spec) {
                    Ok(rep) => {
                        // Through the report text, so a stored run and a fresh one read alike.
                        let json = rep.to_json();
                        if let Some(s) = store {
                            s.put(key, &json)?;
                        }
                        with_found(&json)
                    }
                    Err(e @ (flitsim_core::error::Error::Deadlock { .. } | flitsim_core::error::Error::PartialDeadlock { .. })) => {
                        let (cycle, partial) = match e {
                            flitsim_core::error::Error::Deadlock { cycle, .. } => (cycle, false),
                            flitsim_core::error::Error::PartialDeadlock { cycle, .. } => (cycle, true),
                            _ => unreachable!(),
                        };
                        Ok((
                            None,
                            serde_json::json!({ "deadlock": { "found": true, "cycle": cycle, "partial": partial }, "faults": faults }),
                        ))
                    }
                    Err(e) => Err(format!("{}: {e}", p.display())),
                }
            })
            .inspect(|_| bar.inc(1))
            .collect()
    });
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    eprintln!(
        "{} runs in {wall:.1} s on {} threads: {:.2} s per run",
        parsed.len(),
        pool.current_num_threads(),
        wall * pool.current_num_threads() as f64 / parsed.len().max(1) as f64
    );
    let results: Vec<(Option<String>, serde_json::Value)> = results.into_iter().collect::<CliResult<_>>()?;
    for (k, &at) in keys.iter().zip(&alias) {
        let (key, v) = &results[at];
        if let Some(key) = key {
            run_keys.insert(k.clone(), key.clone());
        }
        runs.insert(k.clone(), Some(v.clone()));
    }
    let mut out_rows: Vec<serde_json::Value> = Vec::new();
    println!();
    println!("{:<58} {:>12} {:>12} {:>14}  result", "quantity", "reference", "flitsim", "tolerance");
    let mut tally = Tally::default();
    for r in &exp.row {
        let value = |config: &String, set: &Vec<String>| -> CliResult<f64> {
            let rep = runs[&(config.clone(), set.clone())].as_ref().unwrap();
            let mut got = lookup(rep, &r.metric).ok_or_else(|| format!("row {:?}: metric {} not found in the report", r.name, r.metric))?;
            if let Some(d) = &r.divide_by {
                let den = lookup(rep, d).ok_or_else(|| format!("row {:?}: divide_by {d} not found", r.name))?;
                got = if den != 0.0 { got / den } else { f64::NAN };
            }
            Ok(got * r.scale.unwrap_or(1.0))
        };
        let base_values: Vec<f64> = r
            .baseline_sets()
            .iter()
            .map(|set| value(r.baseline_config(), set).map(|b| b * r.relative_scale.unwrap_or(1.0)))
            .collect::<CliResult<_>>()?;
        let base = (!base_values.is_empty()).then(|| base_values.iter().sum::<f64>() / base_values.len() as f64);
        let ratio = |v: f64| base.map_or(v, |b| if b != 0.0 { v / b } else { f64::NAN });
        let raw: Vec<f64> = r.run_sets().iter().map(|set| value(&r.config, set)).collect::<CliResult<_>>()?;
        // Over seeds, a relative row is a ratio of means; over `over`, each run is divided
        // by the one baseline.
        let values: Vec<f64> = if r.seeds.is_some() { raw.clone() } else { raw.iter().map(|&v| ratio(v)).collect() };
        let (mean, ci) = mean_ci(&values);
        let got = match r.aggregate.as_deref() {
            _ if r.seeds.is_some() => ratio(mean),
            None | Some("mean") => mean,
            Some("min") => values.iter().copied().fold(f64::INFINITY, f64::min),
            Some("max") => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Some(other) => return Err(format!("row {:?}: aggregate = {other:?}; use mean, min or max", r.name)),
        };
        let reference = match (r.reference, r.compare.as_str()) {
            (Some(v), _) => v,
            (None, "report") => f64::NAN,
            (None, _) => {
                return Err(format!("row {:?}: a judged row needs a `reference` (only compare = \"report\" rows may leave it out)", r.name))
            }
        };
        let (pass, tol) = match r.compare.as_str() {
            "within" => ((got - reference).abs() <= r.tolerance, format!("+-{}", r.tolerance)),
            "at_most" => (got <= reference + r.tolerance, format!("<= {:.4}", reference + r.tolerance)),
            "at_least" => (got >= reference - r.tolerance, format!(">= {:.4}", reference - r.tolerance)),
            "report" => (true, "(reported)".to_string()),
            other => return Err(format!("row {:?}: compare = {other:?}; use within, at_most, at_least or report", r.name)),
        };
        let judges = r.judges();
        let judged = judges.is_some();
        tally.count(judges, pass, !reference.is_nan());
        let shown = if reference.is_nan() { "-".to_string() } else { format!("{reference:.4}") };
        let verdict = match judges {
            None => "info",
            Some(_) if !pass => "FAIL",
            Some("direction") => "pass (direction)",
            Some(_) => "pass",
        };
        println!("{:<58} {:>12} {:>12.4} {:>14}  {verdict}", r.name, shown, got, tol);
        println!("    source: {}", r.source);
        if let Some(why) = &r.reason {
            println!("    not judged: {why}");
        }
        if let Some(o) = &r.over {
            println!(
                "    over {} runs of {}: mean {mean:.4} +- {ci:.4} (95% confidence), min {:.4}, max {:.4}",
                o.count,
                o.key,
                values.iter().copied().fold(f64::INFINITY, f64::min),
                values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            );
        }
        if let Some(n) = r.seeds {
            let list = |xs: &[f64]| xs.iter().map(|x| format!("{x:.4}")).collect::<Vec<_>>().join(" / ");
            match base {
                Some(_) => println!(
                    "    seeds 1-{n}: {} over baseline {} (per seed: {})",
                    list(&raw),
                    list(&base_values),
                    list(&raw.iter().zip(&base_values).map(|(v, b)| v / b).collect::<Vec<_>>())
                ),
                None => println!("    seeds 1-{n}: {} (mean {mean:.4} +- {ci:.4}, 95% confidence)", list(&raw)),
            }
        }
        let mut series_json = serde_json::Value::Null;
        if let Some(path) = &r.series {
            let first = &r.run_sets()[0];
            let rep = runs[&(r.config.clone(), first.clone())].as_ref().unwrap();
            let warmup = rep.get("config").and_then(|c| c.get("sim")).and_then(|s| s.get("warmup")).and_then(|w| w.as_u64()).unwrap_or(0);
            let s = crate::series::lookup_series(rep, path, warmup)
                .ok_or_else(|| format!("row {:?}: series {path} is not an array of numbers in the report", r.name))?;
            if let Some(paper) = &r.series_reference {
                println!("    paper:   {paper}");
            }
            if s.values.is_empty() {
                println!("    flitsim: {path}: empty");
            } else {
                let (lo, mid, hi) = crate::series::range(&s.values);
                let span = match (s.cycles.first(), s.cycles.last()) {
                    (Some(a), Some(b)) => format!(", cycles {a}-{b}, after the warm-up"),
                    _ => String::new(),
                };
                println!("    flitsim: {path} ({} points{span}):", s.values.len());
                println!("             {}  min {lo:.4} median {mid:.4} max {hi:.4}", crate::series::sparkline(&s.values, 60));
            }
            series_json = serde_json::json!({ "path": path, "values": s.values, "cycles": s.cycles, "reference": r.series_reference });
        }
        let baseline = r.relative_to.as_ref().map(|b| (r.baseline_config().clone(), b.clone()));
        out_rows.push(serde_json::json!({
            "name": r.name, "config": r.config, "set": r.set, "metric": r.metric,
            "reference": if reference.is_nan() { None } else { Some(reference) },
            "flitsim": if got.is_finite() { Some(got) } else { None },
            "tolerance": tol, "compare": r.compare, "judges": judges, "reason": r.reason,
            "result": if !judged { "info" } else if pass { "pass" } else { "FAIL" },
            "source": r.source,
            "key": run_keys.get(&(r.config.clone(), r.set.clone())),
            "baseline_key": baseline.and_then(|b| run_keys.get(&b)),
            // Every run of the row and of its baseline (per seed, or per value of `over`).
            "keys": r.run_sets().into_iter().filter_map(|s| run_keys.get(&(r.config.clone(), s))).collect::<Vec<_>>(),
            "baseline_keys": r.baseline_sets().into_iter().filter_map(|s| run_keys.get(&(r.baseline_config().clone(), s))).collect::<Vec<_>>(),
            "series": series_json,
        }));
    }
    println!();
    let summary = tally.line();
    println!("{summary}");
    if let Some(out) = out {
        write_reproduction(out, name, &folder, &exp, &out_rows, &summary, store_dir.as_deref())?;
        println!("wrote {}", out.join("reproduction.json").display());
    }
    Ok(if tally.failing == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The rows of a study counted for its summary line: the reference numbers reproduced in
/// magnitude, in direction only, and not reproduced (failing, or printed unjudged).
#[derive(Default, Debug, PartialEq)]
struct Tally {
    magnitude: usize,
    direction: usize,
    failing: usize,
    unjudged: usize,
    /// Report rows without a reference (curves, quantities the paper does not give).
    reported: usize,
}

impl Tally {
    /// Counts one row: what it judges (`None`: a report row), whether it passed, whether
    /// it has a reference number.
    fn count(&mut self, judges: Option<&str>, pass: bool, has_reference: bool) {
        match judges {
            Some(_) if !pass => self.failing += 1,
            Some("direction") => self.direction += 1,
            Some(_) => self.magnitude += 1,
            None if has_reference => self.unjudged += 1,
            None => self.reported += 1,
        }
    }

    /// "N of M reference numbers reproduced in magnitude, K in direction only, J not
    /// reproduced (...)".
    fn line(&self) -> String {
        let total = self.magnitude + self.direction + self.failing + self.unjudged;
        let mut line = format!(
            "{} of {total} reference number{} reproduced in magnitude, {} in direction only, {} not reproduced",
            self.magnitude,
            if total == 1 { "" } else { "s" },
            self.direction,
            self.failing + self.unjudged
        );
        if self.failing + self.unjudged > 0 {
            line += &format!(" ({} failing, {} printed unjudged: reasons in README)", self.failing, self.unjudged);
        }
        if self.reported > 0 {
            line += &format!("; {} more row{} without a reference reported", self.reported, if self.reported == 1 { "" } else { "s" });
        }
        line
    }
}

/// `OUT/reproduction.json`: the study, every row as printed, the config files, the
/// simulator version and where the runs are stored.
fn write_reproduction(
    out: &Path,
    name: &str,
    folder: &Path,
    exp: &Experiment,
    rows: &[serde_json::Value],
    summary: &str,
    store: Option<&Path>,
) -> CliResult<()> {
    let mut configs = serde_json::Map::new();
    for r in &exp.row {
        for file in [Some(&r.config), r.relative_config.as_ref()].into_iter().flatten() {
            if !configs.contains_key(file) {
                let p = folder.join(file);
                let text = std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                configs.insert(file.clone(), serde_json::Value::String(text));
            }
        }
    }
    // The store as a path relative to OUT when it is inside it.
    let store = store
        .map(|s| s.strip_prefix(out).map(Path::to_path_buf).unwrap_or_else(|_| std::path::absolute(s).unwrap_or_else(|_| s.to_path_buf())));
    let doc = serde_json::json!({
        "format": "flitsim-reproduction",
        "version": 1,
        "study": name,
        "title": exp.title,
        "description": exp.description.trim(),
        "flitsim": flitsim_core::VERSION,
        "store": store.map(|s| s.display().to_string()),
        "summary": summary,
        "configs": configs,
        "rows": rows,
    });
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let p = out.join("reproduction.json");
    std::fs::write(&p, serde_json::to_string_pretty(&doc).unwrap() + "\n").map_err(|e| format!("cannot write {}: {e}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of row lands in its own count, and the line says so (counted by hand).
    #[test]
    fn the_summary_counts_magnitude_direction_and_not_reproduced_apart() {
        let mut t = Tally::default();
        for (judges, pass, reference) in [
            (Some("magnitude"), true, true),
            (Some("magnitude"), true, true),
            (Some("direction"), true, true),
            (Some("magnitude"), false, true),
            (Some("direction"), false, true),
            (None, true, true),
            (None, true, false),
        ] {
            t.count(judges, pass, reference);
        }
        assert_eq!(t, Tally { magnitude: 2, direction: 1, failing: 2, unjudged: 1, reported: 1 });
        assert_eq!(
            t.line(),
            "2 of 6 reference numbers reproduced in magnitude, 1 in direction only, 3 not reproduced \
             (2 failing, 1 printed unjudged: reasons in README); 1 more row without a reference reported"
        );
        let mut clean = Tally::default();
        clean.count(Some("magnitude"), true, true);
        assert_eq!(clean.line(), "1 of 1 reference number reproduced in magnitude, 0 in direction only, 0 not reproduced");
    }

    /// Every study under experiments/ reads as an experiment, and every run its rows ask
    /// for (each value of `over`, each baseline) parses with its overrides: a row edited
    /// into a bad key or value fails here, not an hour into `flitsim reproduce`.
    /// (Parsed, not validated: validating the XT fault sets searches datelines for ~30 s.)
    #[test]
    fn every_study_row_names_configs_and_overrides_that_parse() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
        let mut studies = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let folder = entry.unwrap().path();
            let Ok(text) = std::fs::read_to_string(folder.join("experiment.toml")) else { continue };
            let exp: Experiment = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
            assert!(!exp.row.is_empty(), "{}: no rows", folder.display());
            for r in &exp.row {
                let mut runs: Vec<(String, Vec<String>)> = r.run_sets().into_iter().map(|s| (r.config.clone(), s)).collect();
                runs.extend(r.baseline_sets().into_iter().map(|s| (r.baseline_config().clone(), s)));
                for (cfg, set) in runs {
                    let cfg_text = std::fs::read_to_string(folder.join(&cfg))
                        .unwrap_or_else(|e| panic!("{}: row {:?}: {cfg}: {e}", folder.display(), r.name));
                    if let Err(e) = Config::from_toml(&cfg_text, &set) {
                        panic!("{}: row {:?}: {cfg} with {set:?}: {e}", folder.display(), r.name);
                    }
                }
            }
            studies += 1;
        }
        assert_eq!(studies, 7, "the seven studies of experiments/README.md");
    }
}
