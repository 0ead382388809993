//! `flitsim report DIR`: the HTML report is written by the Python package (matplotlib
//! figures); this command finds a Python that has it and runs `python -m flitsim report`.

use std::path::Path;
use std::process::{Command, ExitCode};

use crate::common::CliResult;

/// The Python interpreter to use: $FLITSIM_PYTHON, else `python3`.
fn python() -> String {
    std::env::var("FLITSIM_PYTHON").ok().filter(|p| !p.is_empty()).unwrap_or_else(|| "python3".to_string())
}

/// `flitsim report`.
pub fn cmd_report(dir: &Path, out: Option<&Path>) -> CliResult<ExitCode> {
    if !dir.is_dir() {
        return Err(format!("{} is not a directory: give a results store, or the --out directory of `flitsim reproduce` or `flitsim sweep`", dir.display()));
    }
    let python = python();
    let how = "install it with `pip install .` in a flitsim clone, or point FLITSIM_PYTHON at a Python that has it";
    let probe = Command::new(&python)
        .args(["-c", "import flitsim.report"])
        .output()
        .map_err(|e| format!("cannot run {python} ({e}): `flitsim report` needs Python with the flitsim package; {how}"))?;
    if !probe.status.success() {
        let why = String::from_utf8_lossy(&probe.stderr);
        let last = why.lines().last().unwrap_or("").trim();
        return Err(format!("{python} cannot import the flitsim package ({last}): `flitsim report` needs it; {how}"));
    }
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "flitsim", "report"]).arg(dir);
    if let Some(o) = out {
        cmd.arg("--out").arg(o);
    }
    let status = cmd.status().map_err(|e| format!("cannot run {python}: {e}"))?;
    Ok(if status.success() { ExitCode::SUCCESS } else { ExitCode::from(status.code().unwrap_or(2).clamp(1, 255) as u8) })
}
