//! Shared command plumbing: loading configs, run/validate/topo/list, progress bars.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use flitsim_core::config::{reference, Config, Spec};
use flitsim_core::report::Report;
use flitsim_core::sim::{Progress, Simulation, Stage};
use flitsim_core::topology::Topology;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::summary;
use crate::ConfigArgs;

/// CLI error: a message chain.
pub type CliResult<T> = Result<T, String>;

/// Largest config file read (bytes): configs are a few KiB; anything near this is not one
/// (`/dev/zero`, a data file given by mistake) and is refused before it fills memory.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Read config file `p`, refusing one larger than [`MAX_CONFIG_BYTES`].
pub fn read_config_file(p: &std::path::Path) -> CliResult<String> {
    use std::io::Read;
    let cannot = |e: std::io::Error| format!("cannot read config {}: {e}", p.display());
    let mut bytes = Vec::new();
    std::fs::File::open(p).map_err(cannot)?.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!("config {} is larger than {} MiB: not a config file", p.display(), MAX_CONFIG_BYTES >> 20));
    }
    String::from_utf8(bytes).map_err(|e| format!("cannot read config {}: not UTF-8 text ({e})", p.display()))
}

/// Load a config file (or the default) and apply overrides.
pub fn load_config(args: &ConfigArgs) -> CliResult<Config> {
    let text = match &args.config {
        Some(p) => Some(read_config_file(p)?),
        None => None,
    };
    Config::load_in(text.as_deref(), args.config.as_deref().and_then(std::path::Path::parent), &args.set).map_err(|e| e.to_string())
}

/// Load and validate; with `progress`, a spinner on stderr if validating takes over a
/// second (building and checking routes around failures on a large torus can take half
/// a minute, and a silent half minute looks like a hang), which becomes a bar counting
/// the candidate placements once a dateline search starts.
pub fn load_spec(args: &ConfigArgs, progress: bool) -> CliResult<Spec> {
    let cfg = load_config(args)?;
    if !progress {
        return cfg.validate().map_err(|e| e.to_string());
    }
    with_spinner("validating the config (building and checking the routes)", |bar| {
        cfg.validate_with_progress(&|p| show_search(bar, p)).map_err(|e| e.to_string())
    })
}

/// The network's routes as built from the config at `args` (with failures, around
/// them and checked, without refusing what the check finds), with the same progress
/// display as [`load_spec`].
pub fn load_routes(
    args: &ConfigArgs,
) -> CliResult<(Config, Topology, flitsim_core::routing::RoutingFunction, Option<flitsim_core::config::FaultRoutes>)> {
    let cfg = load_config(args)?;
    let (topo, routing, faults) = with_spinner("building and checking the routes", |bar| {
        cfg.routes_with_progress(&|p| show_search(bar, p)).map_err(|e| e.to_string())
    })?;
    Ok((cfg, topo, routing, faults))
}

/// Turn `bar` into a count of the dateline search's candidates.
fn show_search(bar: &ProgressBar, p: flitsim_core::routing::SearchProgress) {
    if p.done == 0 {
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} ({elapsed}, eta {eta})").unwrap().progress_chars("=> "),
        );
        bar.set_message("searching dateline placements around the failures");
        bar.set_length(p.total as u64);
    }
    bar.set_position(p.done as u64);
}

/// Run `work`, showing a spinner with `message` and the time elapsed on stderr (a
/// terminal only) once it has taken a second; `work` may turn the spinner into a bar
/// (style, length and position) through the handle it is given.
pub fn with_spinner<T>(message: &str, work: impl FnOnce(&ProgressBar) -> T) -> T {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    use std::time::Duration;
    // Drawn nowhere until the work has taken a second.
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").unwrap());
    bar.set_message(message.to_string());
    // The spinner's thread ends when `done` is dropped (the work finished).
    let (done, finished) = channel::<()>();
    std::thread::scope(|s| {
        let shown = bar.clone();
        s.spawn(move || {
            if finished.recv_timeout(Duration::from_secs(1)) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            shown.set_draw_target(ProgressDrawTarget::stderr());
            shown.enable_steady_tick(Duration::from_millis(120));
            let _ = finished.recv();
            shown.finish_and_clear();
        });
        let out = work(&bar);
        drop(done);
        out
    })
}

/// A progress bar that stays hidden for the first second, then shows cycle progress.
pub struct LazyBar {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    enabled: bool,
}

impl LazyBar {
    /// New bar over `planned` cycles.
    pub fn new(planned: u64, enabled: bool) -> Self {
        let bar = ProgressBar::with_draw_target(Some(planned), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg:>8} [{bar:40}] {pos}/{len} cycles ({per_sec}, eta {eta})")
                .unwrap()
                .progress_chars("=> "),
        );
        LazyBar { bar, start: Instant::now(), shown: false, enabled }
    }

    /// Update from a progress callback.
    pub fn update(&mut self, p: &Progress) {
        if !self.enabled {
            return;
        }
        if !self.shown && self.start.elapsed().as_secs_f64() > 1.0 {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        if p.cycle > p.planned {
            self.bar.set_length(p.cycle);
        }
        self.bar.set_position(p.cycle);
        self.bar.set_message(match p.stage {
            Stage::Warmup => "warm-up",
            Stage::Measure => "measure",
            Stage::Drain => "drain",
        });
    }

    /// Remove the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Run a spec on `threads` threads (`None`: as many as the network profits from, see
/// [`flitsim_core::sim::parallel::auto_threads`]) with an optional progress bar; returns
/// the report and wall seconds.
pub fn run_spec(spec: Spec, progress: bool, threads: Option<usize>) -> CliResult<(Report, f64)> {
    let planned = spec.config.sim.warmup + spec.config.sim.measure;
    let mut bar = LazyBar::new(planned, progress);
    let t = Instant::now();
    let asked = threads;
    let threads = threads.unwrap_or_else(|| flitsim_core::sim::parallel::auto_threads(&spec));
    let mut sim = Simulation::new(spec).map_err(|e| e.to_string())?;
    if crate::ranks::launched() > 1 {
        // Under mpirun: this process steps its partition of the run (threads are the
        // processes); process 0 reports.
        if asked.is_some_and(|t| t > 1) && crate::ranks::rank() == 0 {
            eprintln!("note: under mpirun the processes are the partitions; --threads is ignored");
        }
        if let Some(why) = sim.set_peers(crate::ranks::peers()?).map_err(|e| e.to_string())? {
            if crate::ranks::rank() == 0 {
                eprintln!("note: every process runs the whole simulation: {why}");
            }
        }
    } else {
        let used = sim.set_threads(threads).map_err(|e| e.to_string())?;
        // (Said only when asked for: by default a network that cannot be split simply
        // runs on one thread.)
        if progress && asked.is_some() && used < threads {
            eprintln!("note: running on one thread: {}", sim.serial_reason(threads).unwrap_or("not partitioned"));
        }
        // The count chosen by network size, said so a busy machine's user knows the knob.
        if progress && asked.is_none() && used > 1 {
            eprintln!("running on {used} threads (chosen for this network's size; --threads N to change, same results for any N)");
        }
    }
    let r = sim.run(&mut |p| bar.update(p));
    bar.finish();
    let secs = t.elapsed().as_secs_f64();
    r.map(|rep| (rep, secs)).map_err(|e| e.to_string())
}

/// `flitsim run`.
pub fn cmd_run(args: &ConfigArgs, out: Option<&Path>, quiet: bool, threads: Option<usize>) -> CliResult<ExitCode> {
    let quiet = quiet || crate::ranks::rank() != 0;
    if let Some(path) = out.filter(|_| crate::ranks::rank() == 0) {
        check_writable_file(path, "--out")?;
    }
    let spec = load_spec(args, !quiet)?;
    let (report, secs) = run_spec(spec, !quiet, threads)?;
    if crate::ranks::rank() != 0 {
        return Ok(ExitCode::SUCCESS); // process 0 reports a run across processes
    }
    if !quiet {
        print!("{}", summary::report_text(&report, Some(secs)));
    }
    if let Some(path) = out {
        std::fs::write(path, report.to_json()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if !quiet {
            println!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuse, before a run, an output file that could not be written after it: its folder
/// missing or not writable, or the path a directory. `what` names the option.
pub fn check_writable_file(path: &Path, what: &str) -> CliResult<()> {
    if path.is_dir() {
        return Err(format!("{what} {} is a directory: give a file name (e.g. {}/report.json)", path.display(), path.display()));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "{what} {}: the folder {} does not exist; create it first or give another path",
            path.display(),
            dir.display()
        ));
    }
    let existed = path.exists();
    std::fs::OpenOptions::new().append(true).create(true).open(path).map_err(|e| {
        format!("{what} {}: cannot write there ({e}); give a path you may write, checked before the run so it is not lost", path.display())
    })?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Refuse, before a run, an output directory that could not be written after it: made if
/// missing, then a probe file written in it and removed. `what` names the option.
pub fn check_writable_dir(dir: &Path, what: &str) -> CliResult<()> {
    let fail = |e: std::io::Error| {
        format!(
            "{what} {}: cannot write there ({e}); give a directory you may write, checked before the run so it is not lost",
            dir.display()
        )
    };
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{what} {} is a file, not a directory: give a directory", dir.display()));
    }
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(format!(".flitsim-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(fail)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// `x` for a reader: as written for ordinary magnitudes, in scientific notation for
/// tiny or huge ones (which `{}` would spell out in hundreds of digits).
pub fn number(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `flitsim validate`.
pub fn cmd_validate(args: &ConfigArgs) -> CliResult<ExitCode> {
    let spec = load_spec(args, true)?;
    let s = spec.topology.summary();
    let line = format!(
        "ok: {} ({} nodes), {} VCs, load {} flits/node/cycle, warm-up {} + window {} cycles",
        s.description,
        s.nodes,
        spec.config.router.vcs(),
        number(spec.config.traffic.load),
        spec.config.sim.warmup,
        spec.config.sim.measure
    );
    // Build the simulation state as `run` would, and say what it takes (the allocator
    // ends the command with a message if it cannot fit).
    let before = crate::memory::live();
    crate::memory::reset_peak();
    let sim = Simulation::new(spec).map_err(|e| e.to_string())?;
    let took = crate::memory::peak().saturating_sub(before);
    drop(sim);
    println!("{line}");
    let room = crate::memory::limit().map_or(String::new(), |l| format!(" of the {} this machine has", crate::memory::Bytes(l)));
    println!(
        "memory: {} for the simulation's state at the start{room}; queues at sources grow past saturation",
        crate::memory::Bytes(took)
    );
    Ok(ExitCode::SUCCESS)
}

/// `flitsim topo`.
pub fn cmd_topo(args: &ConfigArgs, json: bool) -> CliResult<ExitCode> {
    let cfg = load_config(args)?;
    let topo = Topology::build(&cfg.topology, "topology").map_err(|e| e.to_string())?;
    let s = topo.summary();
    if json {
        println!("{}", serde_json::to_string_pretty(&s).unwrap());
    } else {
        print!("{}", summary::topology_text(&s));
    }
    Ok(ExitCode::SUCCESS)
}

/// `flitsim list`.
pub fn cmd_list(json: bool, markdown: bool) -> CliResult<ExitCode> {
    if markdown {
        print!("{}", reference::markdown());
        return Ok(ExitCode::SUCCESS);
    }
    let all = reference::all();
    if json {
        println!("{}", serde_json::to_string_pretty(&all).unwrap());
        return Ok(ExitCode::SUCCESS);
    }
    let mut family = "";
    for e in &all {
        if e.family != family {
            family = e.family;
            // Headings name where the entries go in a config.
            match family {
                "pattern" | "injection" => println!("\n[traffic.{family}] type = ..."),
                "table" => println!("\nother tables and top-level keys"),
                _ => println!("\n[{family}] type = ..."),
            }
        }
        println!("  {:<22} {}", e.name, e.summary);
        for p in &e.params {
            println!("      {:<18} {} (default {}) {}", p.name, p.kind, p.default, p.doc);
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spinner_returns_the_works_result_and_its_thread_ends() {
        // Under the test harness stderr is no terminal: the spinner draws nothing, but
        // its thread still waits for the work and must end with it.
        assert_eq!(with_spinner("quick", |_| 6 * 7), 42);
        let slow = with_spinner("slow", |bar| {
            // A search's bar: length and position reach the caller's handle.
            show_search(bar, flitsim_core::routing::SearchProgress { done: 0, total: 15 });
            std::thread::sleep(std::time::Duration::from_millis(1200));
            show_search(bar, flitsim_core::routing::SearchProgress { done: 3, total: 15 });
            (bar.length(), bar.position())
        });
        assert_eq!(slow, (Some(15), 3));
        let failed: Result<u32, String> = with_spinner("failing", |_| Err("refused".to_string()));
        assert_eq!(failed.unwrap_err(), "refused");
    }
}
