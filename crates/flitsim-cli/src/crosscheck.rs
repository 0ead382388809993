//! `flitsim crosscheck`: the differential cross-check against BookSim2.
//!
//! A matrix file (`experiments/validation/booksim/crosscheck.toml`) lists configurations
//! in BookSim2's config language: a base shared by every row, and each row's own
//! parameters on top. flitsim runs each through the one mapping of BookSim2 parameters
//! ([`flitsim_core::config::booksim`]). Per row, with the same protocol for both
//! simulators:
//!
//! - **zero-load latency** `L0`: mean packet latency at load [`Protocol::zero_load`];
//! - **saturation throughput**: the highest load (flits/node/cycle) that is *stable*,
//!   found by bisection to [`Protocol::resolution`]; a load is stable when every
//!   measured packet is delivered and the mean packet latency is at most
//!   [`Protocol::latency_factor`] times BookSim2's `L0` (the same threshold for both);
//! - **latency below saturation**: mean packet latency at the fractions
//!   [`Protocol::fractions`] of BookSim2's saturation throughput.
//!
//! `--booksim PATH` runs BookSim2 and flitsim on every row and prints both with the
//! differences; `--record` writes BookSim2's figures (and flitsim's, for reference) into
//! the matrix file. `--check` needs no BookSim2: it runs flitsim on the recorded rows and
//! judges it (latency within the tolerance at each recorded load; stable at
//! `(1 - tolerance)` and unstable at `(1 + tolerance)` times BookSim2's saturation),
//! exiting non-zero when a row disagrees that carries no documented reason.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use flitsim_core::config::booksim::BookSimParams;
use serde::{Deserialize, Serialize};

use crate::common::CliResult;
use crate::saturation::{round4, search, stable, AtLoad, FlitsimAt, Outcome};

/// The matrix file: what is compared, how, and the recorded figures.
#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct Matrix {
    /// What the file is (kept when it is rewritten).
    pub about: String,
    /// The BookSim2 the figures were recorded with: its commit (or "not recorded").
    pub booksim_commit: String,
    /// The measurement protocol, the same for both simulators.
    pub protocol: Protocol,
    /// BookSim2 parameters shared by every row.
    pub base: String,
    /// The configurations.
    #[serde(rename = "row")]
    pub rows: Vec<Row>,
}

/// How each row is measured.
#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct Protocol {
    /// Load of the zero-load latency run (flits/node/cycle).
    pub zero_load: f64,
    /// A load is stable while the mean packet latency stays within this many times
    /// BookSim2's zero-load latency (and every measured packet is delivered).
    pub latency_factor: f64,
    /// Bisection stops when the bracket of the saturation throughput is this narrow.
    pub resolution: f64,
    /// Latency is compared at these fractions of BookSim2's saturation throughput.
    pub fractions: Vec<f64>,
    /// Agreement: relative difference of latency, and of saturation throughput.
    pub tolerance: f64,
}

/// One configuration and its recorded figures.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Short name.
    pub name: String,
    /// BookSim2 parameters on top of the base.
    pub booksim: String,
    /// Why flitsim and BookSim2 disagree on this row, when they do for a known reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// BookSim2's zero-load latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_load_latency: Option<f64>,
    /// BookSim2's saturation throughput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturation: Option<f64>,
    /// The loads latency is compared at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<f64>,
    /// BookSim2's mean packet latency at each load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<f64>,
    /// flitsim's figures when BookSim2's were recorded (for reference; `--check` measures anew).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flitsim_saturation: Option<f64>,
    /// See `flitsim_saturation`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flitsim_latency: Vec<f64>,
    /// See `flitsim_saturation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flitsim_zero_load_latency: Option<f64>,
}

impl Matrix {
    /// Read a matrix file.
    pub fn load(path: &Path) -> CliResult<Matrix> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let m: Matrix = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let p = &m.protocol;
        if !(p.zero_load > 0.0
            && p.latency_factor > 1.0
            && p.resolution > 0.0
            && p.tolerance > 0.0
            && p.fractions.iter().all(|f| *f > 0.0 && *f < 1.0))
        {
            return Err(format!(
                "{}: protocol needs zero_load > 0, latency_factor > 1, resolution > 0, tolerance > 0 and fractions in (0, 1)",
                path.display()
            ));
        }
        for r in &m.rows {
            m.params(r).map_err(|e| format!("{}: row {}: {e}", path.display(), r.name))?;
        }
        Ok(m)
    }

    /// A row's BookSim2 parameters (the base with the row's on top).
    pub fn params(&self, row: &Row) -> CliResult<BookSimParams> {
        let base = BookSimParams::parse(&self.base).map_err(|e| e.to_string())?;
        let own = BookSimParams::parse(&row.booksim).map_err(|e| e.to_string())?;
        let p = base.with(&own);
        p.to_config().map_err(|e| e.to_string())?;
        Ok(p)
    }
}

/// flitsim on a row's BookSim2 parameters, in this process.
struct Flitsim<'a>(&'a BookSimParams);

impl AtLoad for Flitsim<'_> {
    fn run(&self, load: f64) -> CliResult<Outcome> {
        let config = self.0.to_config().map_err(|e| e.to_string())?;
        FlitsimAt(config).run(load)
    }
}

/// A BookSim2 binary on a row's parameters, run in a scratch folder.
struct BookSim<'a> {
    binary: &'a Path,
    dir: &'a Path,
    runs: &'a AtomicUsize,
    params: &'a BookSimParams,
}

impl AtLoad for BookSim<'_> {
    fn run(&self, load: f64) -> CliResult<Outcome> {
        let mut p = self.params.clone();
        // (BookSim2 reads a real number only with its decimal point: "1.0", not "1".)
        p.set("injection_rate", format!("{load:?}"));
        let cfg = self.dir.join(format!("run{}.cfg", self.runs.fetch_add(1, Ordering::Relaxed)));
        std::fs::write(&cfg, p.text()).map_err(|e| format!("cannot write {}: {e}", cfg.display()))?;
        let out = Command::new(self.binary)
            .arg(&cfg)
            .current_dir(self.dir)
            .output()
            .map_err(|e| format!("cannot run BookSim2 at {}: {e}", self.binary.display()))?;
        let _ = std::fs::remove_file(&cfg);
        let text = String::from_utf8_lossy(&out.stdout);
        // An unstable run (its latency passed latency_thres) prints no overall statistics.
        if text.contains("unstable") {
            return Ok(Outcome { latency: f64::INFINITY, drained: false });
        }
        match crate::booksim::parse(&text) {
            Some(b) => Ok(Outcome { latency: b.latency, drained: true }),
            None => Err(format!(
                "BookSim2 did not finish the run (load {load}): {}",
                text.lines().rev().take(3).collect::<Vec<_>>().join(" | ")
            )),
        }
    }
}

/// Relative difference of flitsim's `f` from BookSim2's `b`.
fn diff(f: f64, b: f64) -> f64 {
    (f - b) / b
}

/// `flitsim crosscheck --booksim PATH [--record] [--only NAME]`.
pub fn cmd_measure(matrix_path: &Path, binary: &Path, record: bool, only: Option<&str>, jobs: usize) -> CliResult<ExitCode> {
    let m = Matrix::load(matrix_path)?;
    let dir = std::env::temp_dir().join(format!("flitsim-crosscheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let runs = AtomicUsize::new(0);
    let start = Instant::now();
    let pr = m.protocol.clone();
    let picked: Vec<usize> = (0..m.rows.len()).filter(|&i| only.is_none_or(|o| m.rows[i].name.contains(o))).collect();
    if picked.is_empty() {
        return Err(format!("no row of {} is named like {:?}", matrix_path.display(), only.unwrap_or("")));
    }
    println!(
        "BookSim2 ({}) and flitsim {} on {} configurations of {}, {jobs} at a time",
        binary.display(),
        flitsim_core::VERSION,
        picked.len(),
        matrix_path.display()
    );
    // Rows are written into the file as they finish (with --record), so a long
    // recording interrupted keeps what it measured; a row that fails is reported and
    // the others go on.
    let state = Mutex::new((m.clone(), Vec::<(usize, Row)>::new(), Vec::<String>::new()));
    let commit = booksim_commit(binary);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = picked.get(k) else { break };
                let row = &m.rows[i];
                let outcome = measure_row(&m, row, binary, &dir, &runs, &pr);
                let mut st = state.lock().unwrap();
                match outcome {
                    Ok(r) => {
                        println!("{}  [{:.0} s]", row_line(&r, &pr), start.elapsed().as_secs_f64());
                        if record {
                            st.0.rows[i] = r.clone();
                            st.0.booksim_commit = commit.clone();
                            if let Err(e) = write_matrix(matrix_path, &st.0) {
                                st.2.push(e);
                            }
                        }
                        st.1.push((i, r));
                    }
                    Err(e) => {
                        println!("{:<34} failed: {e}", row.name);
                        st.2.push(format!("row {}: {e}", row.name));
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let (_, mut results, errors) = state.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    println!("\n{}", table_header());
    for (_, r) in &results {
        println!("{}", row_line(r, &pr));
    }
    println!(
        "{} rows in {:.0} s ({} BookSim2 runs){}",
        results.len(),
        start.elapsed().as_secs_f64(),
        runs.load(Ordering::Relaxed),
        if record { format!("; recorded in {}", matrix_path.display()) } else { String::new() }
    );
    if !errors.is_empty() {
        return Err(errors.join("; "));
    }
    Ok(ExitCode::SUCCESS)
}

/// Write the matrix file.
fn write_matrix(path: &Path, m: &Matrix) -> CliResult<()> {
    let text = toml::to_string(m).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The git commit of the source tree a BookSim2 binary was built in (`src/booksim` of a
/// clone), if it can be told.
fn booksim_commit(binary: &Path) -> String {
    let dir = binary.parent().unwrap_or(Path::new("."));
    Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Measure one row on both simulators.
fn measure_row(m: &Matrix, row: &Row, binary: &Path, dir: &Path, runs: &AtomicUsize, pr: &Protocol) -> CliResult<Row> {
    let p = m.params(row)?;
    let booksim = BookSim { binary, dir, runs, params: &p };
    let l0 = booksim.run(pr.zero_load)?.latency;
    let threshold = pr.latency_factor * l0;
    let sat = search(&booksim, threshold, pr.resolution)?;
    let loads: Vec<f64> = pr.fractions.iter().map(|f| round4(f * sat)).collect();
    let latency = loads.iter().map(|&l| booksim.run(l).map(|o| o.latency)).collect::<CliResult<Vec<_>>>()?;
    let flitsim = Flitsim(&p);
    let f0 = flitsim.run(pr.zero_load)?.latency;
    let fsat = search(&flitsim, threshold, pr.resolution)?;
    let flat = loads.iter().map(|&l| flitsim.run(l).map(|o| o.latency)).collect::<CliResult<Vec<_>>>()?;
    Ok(Row {
        zero_load_latency: Some(l0),
        saturation: Some(sat),
        loads,
        latency,
        flitsim_saturation: Some(fsat),
        flitsim_latency: flat,
        flitsim_zero_load_latency: Some(f0),
        ..row.clone()
    })
}

fn table_header() -> String {
    format!("{:<34} {:>15} {:>26} {:>22}  {}", "configuration", "L0 B2/fs", "latency B2/fs (diff) at loads", "saturation B2/fs", "verdict")
}

/// One printed row of figures.
fn row_line(r: &Row, pr: &Protocol) -> String {
    let (Some(l0), Some(sat)) = (r.zero_load_latency, r.saturation) else {
        return format!("{:<34} not recorded", r.name);
    };
    let mut worst: f64 = 0.0;
    let lat: Vec<String> = r
        .loads
        .iter()
        .zip(&r.latency)
        .zip(&r.flitsim_latency)
        .map(|((l, b), f)| {
            worst = worst.max(diff(*f, *b).abs());
            format!("{l:.3}: {b:.1}/{f:.1} ({:+.1}%)", 100.0 * diff(*f, *b))
        })
        .collect();
    let fsat = r.flitsim_saturation.unwrap_or(f64::NAN);
    worst = worst.max(diff(fsat, sat).abs());
    let verdict = if worst <= pr.tolerance {
        "agree".to_string()
    } else if let Some(why) = &r.reason {
        format!("differ: {why}")
    } else {
        "DISAGREE".to_string()
    };
    format!(
        "{:<34} {:>7.1}/{:<7.1} {}  sat {sat:.4}/{fsat:.4} ({:+.1}%)  {verdict}",
        r.name,
        l0,
        r.flitsim_zero_load_latency.unwrap_or(f64::NAN),
        lat.join("  "),
        100.0 * diff(fsat, sat)
    )
}

/// `flitsim crosscheck --check`: flitsim against the recorded figures, no BookSim2.
pub fn cmd_check(matrix_path: &Path, only: Option<&str>, jobs: usize) -> CliResult<ExitCode> {
    let m = Matrix::load(matrix_path)?;
    let pr = &m.protocol;
    let start = Instant::now();
    let rows: Vec<&Row> = m.rows.iter().filter(|r| only.is_none_or(|o| r.name.contains(o))).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build().map_err(|e| e.to_string())?;
    use rayon::prelude::*;
    let verdicts: Vec<CliResult<(String, bool)>> = pool.install(|| rows.par_iter().map(|r| check_row(&m, r, pr)).collect());
    let (mut failed, mut unrecorded) = (0, 0);
    for v in verdicts {
        let (line, ok) = v?;
        println!("{line}");
        failed += !ok as usize;
        unrecorded += line.contains("not recorded") as usize;
    }
    println!(
        "{} rows against BookSim2 {} in {:.1} s: {} disagree without a documented reason{}",
        rows.len(),
        &m.booksim_commit[..m.booksim_commit.len().min(10)],
        start.elapsed().as_secs_f64(),
        failed,
        if unrecorded > 0 { format!(", {unrecorded} not recorded") } else { String::new() }
    );
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Judge one recorded row: `(printed line, agrees or disagrees for a documented reason)`.
fn check_row(m: &Matrix, r: &Row, pr: &Protocol) -> CliResult<(String, bool)> {
    let (Some(l0), Some(sat)) = (r.zero_load_latency, r.saturation) else {
        return Ok((format!("{:<34} not recorded", r.name), false));
    };
    let p = m.params(r)?;
    let flitsim = Flitsim(&p);
    let threshold = pr.latency_factor * l0;
    let mut notes = Vec::new();
    let mut ok = true;
    for (&load, &b) in r.loads.iter().zip(&r.latency) {
        let f = flitsim.run(load)?.latency;
        let d = diff(f, b);
        ok &= d.abs() <= pr.tolerance;
        notes.push(format!("{load:.3}: {b:.1}/{f:.1} ({:+.1}%)", 100.0 * d));
    }
    let below = round4(sat * (1.0 - pr.tolerance));
    let above = round4(sat * (1.0 + pr.tolerance));
    let stable_below = stable(&flitsim, below, threshold)?;
    let stable_above = sat < 1.0 && stable(&flitsim, above, threshold)?;
    ok &= stable_below && !stable_above;
    notes.push(format!(
        "sat {sat:.4}: {} at {below:.4}, {} at {above:.4}",
        if stable_below { "stable" } else { "UNSTABLE" },
        if stable_above { "STABLE" } else { "unstable" }
    ));
    let verdict = match (ok, &r.reason) {
        (true, _) => "agree".to_string(),
        (false, Some(why)) => format!("differ: {why}"),
        (false, None) => "DISAGREE".to_string(),
    };
    Ok((format!("{:<34} {}  {verdict}", r.name, notes.join("  ")), ok || r.reason.is_some()))
}

/// `flitsim crosscheck --print-configs`: each row's BookSim2 parameters and the flitsim
/// config they map to.
pub fn cmd_print_configs(matrix_path: &Path, only: Option<&str>) -> CliResult<ExitCode> {
    let m = Matrix::load(matrix_path)?;
    for r in m.rows.iter().filter(|r| only.is_none_or(|o| r.name.contains(o))) {
        let p = m.params(r)?;
        let config = p.to_config().map_err(|e| e.to_string())?;
        println!("# {}: BookSim2 {}", r.name, p.text().replace('\n', " "));
        println!("{}", toml::to_string(&config).map_err(|e| e.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}
