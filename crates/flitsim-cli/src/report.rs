//! `flitsim report DIR`: the HTML report is written by the Python package (matplotlib
//! figures); this command runs `python -m flitsim report` ([`crate::python`]).

use std::path::Path;
use std::process::ExitCode;

use crate::common::CliResult;
use crate::python;

/// `flitsim report`.
pub fn cmd_report(dir: &Path, out: Option<&Path>) -> CliResult<ExitCode> {
    if !dir.is_dir() {
        return Err(format!(
            "{} is not a directory: give a results store, or the --out directory of `flitsim reproduce` or `flitsim sweep`",
            dir.display()
        ));
    }
    let mut args = vec![dir.as_os_str().to_owned()];
    if let Some(o) = out {
        args.extend(["--out".into(), o.as_os_str().to_owned()]);
    }
    python::run_module("report", "report", &args)
}
