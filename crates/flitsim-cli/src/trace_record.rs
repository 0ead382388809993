//! `flitsim trace record` and `flitsim trace show`: record an MPI application's
//! communication as an OTF2 archive with flitsim's tracer (tools/tracer, a PMPI
//! interposition library built here with `mpicc` and preloaded into the application), and
//! look at what an archive holds. Needs the `otf2` feature (libotf2).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::common::CliResult;

/// The tracer's C source, embedded so the command works from any folder.
const TRACER_SOURCE: &str = include_str!("../../../tools/tracer/flitsim_tracer.c");

/// Arguments of `flitsim trace`.
#[derive(clap::Subcommand, Debug)]
pub enum TraceCommand {
    /// Run an MPI application under flitsim's tracer and write its OTF2 archive: builds the
    /// tracer (mpicc, libotf2) when needed, runs COMMAND with LD_PRELOAD and
    /// FLITSIM_TRACE_DIR set, and prints the archive's anchor and a summary. An archive
    /// already in the folder is replaced. Across hosts, pass the two variables on:
    /// `mpirun -x LD_PRELOAD -x FLITSIM_TRACE_DIR ...`.
    Record {
        /// The folder of the archive (the anchor is OUT/trace.otf2).
        #[arg(long, value_name = "DIR", default_value = "flitsim-trace")]
        out: PathBuf,
        /// The command to trace, e.g. `mpirun -np 4 ./app` (after `--`).
        #[arg(required = true, last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Print what an OTF2 archive (or a ranks text trace) holds, per rank: its operations
    /// by kind, time measured inside MPI and in all.
    Show {
        /// The archive's anchor file (`.otf2`), or a ranks text file.
        anchor: PathBuf,
        /// List rank 0's collectives on the world communicator instead, numbered: the
        /// points `trace convert --window` cuts at, with when each was called.
        #[arg(long)]
        collectives: bool,
    },
    /// Write a trace (an OTF2 archive's anchor, or a ranks text file) in the ranks text
    /// format, optionally only a window of it: what a study commits, readable and
    /// replayed without the otf2 feature.
    Convert {
        /// The archive's anchor file (`.otf2`), or a ranks text file.
        input: PathBuf,
        /// The ranks text file to write.
        #[arg(long)]
        out: PathBuf,
        /// Keep only the operations from world collective FROM (included) to TO
        /// (excluded; `FROM..` to the end), numbered as `trace show --collectives` lists
        /// them; what was measured becomes the window's.
        #[arg(long, value_name = "FROM..TO")]
        window: Option<String>,
    },
}

/// Run `flitsim trace ...`.
pub fn cmd_trace(cmd: &TraceCommand) -> CliResult<ExitCode> {
    match cmd {
        TraceCommand::Record { out, command } => record(out, command),
        TraceCommand::Show { anchor, collectives: false } => show(anchor),
        TraceCommand::Show { anchor, collectives: true } => show_collectives(anchor),
        TraceCommand::Convert { input, out, window } => convert(input, out, window.as_deref()),
    }
}

/// The program in `path`: an OTF2 archive when it ends in `.otf2`, else ranks text.
fn load(path: &Path) -> CliResult<flitsim_core::traffic::app::program::Program> {
    use flitsim_core::traffic::app::{read, TraceFormat};
    let format = if path.extension().is_some_and(|e| e == "otf2") { TraceFormat::Otf2 } else { TraceFormat::Ranks };
    read(format, &path.to_string_lossy(), "trace").map_err(|e| e.to_string())
}

/// `flitsim trace show ANCHOR --collectives`.
fn show_collectives(path: &Path) -> CliResult<ExitCode> {
    let program = load(path)?;
    println!("{:>6} {:>15} {:>12} {:>12}", "index", "collective", "bytes", "rank 0 ms");
    for (i, c) in program.world_collectives().iter().enumerate() {
        let t = c.time_ns.map_or("-".to_string(), |t| format!("{:.3}", t as f64 / 1e6));
        println!("{i:>6} {:>15} {:>12} {t:>12}", c.kind.name(), c.bytes);
    }
    Ok(ExitCode::SUCCESS)
}

/// `flitsim trace convert INPUT --out FILE [--window FROM..TO]`.
fn convert(input: &Path, out: &Path, window: Option<&str>) -> CliResult<ExitCode> {
    let mut program = load(input)?;
    let mut what = format!("{}", input.display());
    if let Some(w) = window {
        let bad = || format!("--window {w}: write FROM..TO or FROM.. (world collective numbers, see trace show --collectives)");
        let (a, b) = w.split_once("..").ok_or_else(bad)?;
        let from: usize = a.parse().map_err(|_| bad())?;
        let to: Option<usize> = if b.is_empty() { None } else { Some(b.parse().map_err(|_| bad())?) };
        program = program.window(from, to).map_err(|e| format!("--window {w}: {e}"))?;
        what += &format!(", world collectives {w}");
    }
    let header = format!("Converted by `flitsim trace convert` from {what}.\nThe ranks text format: docs/reference/applications.md.");
    let text = flitsim_core::traffic::app::text::write(&program, &header);
    std::fs::write(out, text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let ops: usize = program.ops.iter().map(Vec::len).sum();
    println!("{}: {} ranks, {ops} operations", out.display(), program.ranks());
    Ok(ExitCode::SUCCESS)
}

/// The folder the built tracer is kept in: `$XDG_CACHE_HOME/flitsim`, else
/// `~/.cache/flitsim`, else the system's temporary folder.
fn cache_dir() -> PathBuf {
    match (std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME")) {
        (Some(x), _) if !x.is_empty() => PathBuf::from(x).join("flitsim"),
        (_, Some(h)) if !h.is_empty() => PathBuf::from(h).join(".cache/flitsim"),
        _ => std::env::temp_dir().join("flitsim-cache"),
    }
}

/// The tracer library, built with `mpicc` when it is missing or older than its source
/// (the embedded source is written beside it when it changed).
pub fn tracer_library() -> CliResult<PathBuf> {
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create the cache folder {}: {e}", dir.display()))?;
    let src = dir.join("flitsim_tracer.c");
    let lib = dir.join("libflitsim_tracer.so");
    if std::fs::read_to_string(&src).ok().as_deref() != Some(TRACER_SOURCE) {
        std::fs::write(&src, TRACER_SOURCE).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    }
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(l), Some(s)) = (modified(&lib), modified(&src)) {
        if l >= s {
            return Ok(lib);
        }
    }
    // Built under a name of its own, then renamed: two records at once do not clash.
    let tmp = dir.join(format!("libflitsim_tracer.{}.so", std::process::id()));
    let out = std::process::Command::new("mpicc")
        .args(["-shared", "-fPIC", "-O2"])
        .arg(&src)
        .arg("-lotf2")
        .arg("-o")
        .arg(&tmp)
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                "mpicc is not installed: the tracer is built with the MPI compiler wrapper (Debian: apt-get install libopenmpi-dev openmpi-bin)".to_string()
            }
            _ => format!("cannot run mpicc: {e}"),
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let _ = std::fs::remove_file(&tmp);
        if stderr.contains("otf2/") || stderr.contains("-lotf2") {
            return Err(format!(
                "the OTF2 library is missing: the tracer needs its headers and library (Debian: apt-get install libotf2-trace-dev); mpicc said:\n{stderr}"
            ));
        }
        return Err(format!("building the tracer ({}) with mpicc failed:\n{stderr}", src.display()));
    }
    std::fs::rename(&tmp, &lib).map_err(|e| format!("cannot move the tracer to {}: {e}", lib.display()))?;
    Ok(lib)
}

/// `flitsim trace record --out DIR -- COMMAND...`.
fn record(out: &Path, command: &[String]) -> CliResult<ExitCode> {
    let lib = tracer_library()?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let out = std::fs::canonicalize(out).map_err(|e| format!("cannot open {}: {e}", out.display()))?;
    // Replace an earlier archive (its three parts only; OTF2 does not overwrite one).
    let anchor = out.join("trace.otf2");
    let _ = std::fs::remove_file(&anchor);
    let _ = std::fs::remove_file(out.join("trace.def"));
    let _ = std::fs::remove_dir_all(out.join("trace"));
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(p) if !p.is_empty() => format!("{} {p}", lib.display()),
        _ => lib.display().to_string(),
    };
    let (program, args) = command.split_first().ok_or("give the command to trace after `--`, e.g. -- mpirun -np 4 ./app")?;
    let status = std::process::Command::new(program)
        .args(args)
        .env("LD_PRELOAD", preload)
        .env("FLITSIM_TRACE_DIR", &out)
        .status()
        .map_err(|e| format!("cannot run `{program}`: {e}"))?;
    if !status.success() {
        return Err(format!("the traced command `{}` failed ({status}); its archive, if any, is incomplete", command.join(" ")));
    }
    if !anchor.exists() {
        return Err(format!(
            "the command ran but wrote no archive at {}: is it an MPI program that calls MPI_Init and MPI_Finalize from C (the tracer wraps the C bindings), and did mpirun pass LD_PRELOAD and FLITSIM_TRACE_DIR on (across hosts: mpirun -x LD_PRELOAD -x FLITSIM_TRACE_DIR)?",
            anchor.display()
        ));
    }
    let summary = summarize(&anchor)?;
    println!("{}", anchor.display());
    println!("{summary}");
    Ok(ExitCode::SUCCESS)
}

/// Counts of one rank's operations by kind: compute, send, recv, wait, collective.
fn counts(ops: &[(flitsim_core::traffic::app::program::Op, flitsim_core::traffic::app::program::Pos)]) -> [usize; 5] {
    use flitsim_core::traffic::app::program::Op;
    let mut c = [0; 5];
    for (op, _) in ops {
        c[match op {
            Op::Compute { .. } => 0,
            Op::Send { .. } => 1,
            Op::Recv { .. } => 2,
            Op::Wait { .. } => 3,
            Op::Collective { .. } => 4,
        }] += 1;
    }
    c
}

/// The size in bytes of the files under `p`.
#[cfg(feature = "otf2")]
fn disk_size(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p).map(|d| d.flatten().map(|e| disk_size(&e.path())).sum()).unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// One line: ranks, operations by kind, the archive's size on disk, the longest rank.
#[cfg(feature = "otf2")]
fn summarize(anchor: &Path) -> CliResult<String> {
    let program = flitsim_core::traffic::app::otf2::read(anchor, "trace").map_err(|e| e.to_string())?;
    let mut total = [0usize; 5];
    for ops in &program.ops {
        for (t, c) in total.iter_mut().zip(counts(ops)) {
            *t += c;
        }
    }
    let dir = anchor.parent().unwrap_or(Path::new("."));
    let bytes = disk_size(anchor) + disk_size(&dir.join("trace.def")) + disk_size(&dir.join("trace"));
    let span = program.measured.as_ref().and_then(|m| m.iter().map(|m| m.span_ns).max()).unwrap_or(0);
    Ok(format!(
        "{} ranks, {} communicators, {} operations ({} sends, {} receives, {} waits, {} collectives, {} computations), {:.1} KiB, longest rank {:.3} ms",
        program.ranks(),
        program.comms.len(),
        total.iter().sum::<usize>(),
        total[1],
        total[2],
        total[3],
        total[4],
        total[0],
        bytes as f64 / 1024.0,
        span as f64 / 1e6
    ))
}

#[cfg(not(feature = "otf2"))]
fn summarize(_anchor: &Path) -> CliResult<String> {
    Ok("(built without the otf2 feature: the archive is not read back)".to_string())
}

/// `flitsim trace show ANCHOR`.
fn show(anchor: &Path) -> CliResult<ExitCode> {
    let program = load(anchor)?;
    if anchor.extension().is_some_and(|e| e == "otf2") {
        println!("{}", summarize(anchor)?);
    }
    println!(
        "{:>5} {:>9} {:>9} {:>9} {:>9} {:>11} {:>12} {:>12}",
        "rank", "compute", "send", "recv", "wait", "collective", "mpi ms", "span ms"
    );
    for (rank, ops) in program.ops.iter().enumerate() {
        let c = counts(ops);
        let m = program.measured.as_ref().map(|m| m[rank]).unwrap_or_default();
        println!(
            "{rank:>5} {:>9} {:>9} {:>9} {:>9} {:>11} {:>12.3} {:>12.3}",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            m.mpi_ns as f64 / 1e6,
            m.span_ns as f64 / 1e6
        );
    }
    for (id, members) in program.comms.iter().enumerate() {
        let list: Vec<String> = members.iter().take(16).map(u32::to_string).collect();
        let more = if members.len() > 16 { ", ..." } else { "" };
        println!("communicator {id}: {} ranks [{}{more}]", members.len(), list.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}
