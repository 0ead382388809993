//! Commands the Python package implements (`flitsim report`, `flitsim draw`: matplotlib
//! figures): find a Python that has the package and run `python -m flitsim COMMAND ...`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::common::CliResult;

/// The Python interpreter to use: `$FLITSIM_PYTHON`; else the active virtualenv's
/// (`$VIRTUAL_ENV`); else the `.venv` that `./test.sh` makes in the clone this command was
/// built in (found up from the executable) or in the working directory (or above it); else
/// `python3`.
fn python() -> String {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let exe = std::env::current_exe().ok();
    let cwd = std::env::current_dir().ok();
    choose_python(var("FLITSIM_PYTHON"), var("VIRTUAL_ENV"), exe.as_deref(), cwd.as_deref(), |p| p.is_file())
}

/// [`python`]'s choice, with the environment and the file system given (`exists`).
fn choose_python(
    explicit: Option<PathBuf>,
    virtual_env: Option<PathBuf>,
    exe: Option<&Path>,
    cwd: Option<&Path>,
    exists: impl Fn(&Path) -> bool,
) -> String {
    if let Some(p) = explicit {
        return p.display().to_string();
    }
    let venv_python = |root: &Path| root.join("bin").join("python");
    let candidates = virtual_env
        .iter()
        .map(|v| venv_python(v))
        .chain(exe.into_iter().flat_map(Path::ancestors).skip(1).map(|d| venv_python(&d.join(".venv"))))
        .chain(cwd.into_iter().flat_map(Path::ancestors).map(|d| venv_python(&d.join(".venv"))));
    for c in candidates {
        if exists(&c) {
            return c.display().to_string();
        }
    }
    "python3".to_string()
}

/// Run `python -m flitsim COMMAND ARGS` (the package's module `module` must import) and
/// exit with its status; a clear error naming the fix when that Python lacks the package.
pub fn run_module(command: &str, module: &str, args: &[OsString]) -> CliResult<ExitCode> {
    let python = python();
    let how = "install it with `pip install .` in a flitsim clone, or point FLITSIM_PYTHON at a Python that has it";
    let probe = Command::new(&python)
        .args(["-c", &format!("import flitsim.{module}")])
        .output()
        .map_err(|e| format!("cannot run {python} ({e}): `flitsim {command}` needs Python with the flitsim package; {how}"))?;
    if !probe.status.success() {
        let why = String::from_utf8_lossy(&probe.stderr);
        let last = why.lines().last().unwrap_or("").trim();
        return Err(format!("{python} cannot import the flitsim package ({last}): `flitsim {command}` needs it; {how}"));
    }
    let status =
        Command::new(&python).args(["-m", "flitsim", command]).args(args).status().map_err(|e| format!("cannot run {python}: {e}"))?;
    Ok(if status.success() { ExitCode::SUCCESS } else { ExitCode::from(status.code().unwrap_or(2).clamp(1, 255) as u8) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order of the choice: the variable, the active virtualenv, the clone's `.venv`
    /// above the executable, one above the working directory, `python3`.
    #[test]
    fn finds_the_python_that_has_the_package() {
        let exe = Path::new("/src/flitsim/target/debug/flitsim");
        let cwd = Path::new("/home/me/runs");
        let has = |present: &'static [&'static str]| move |p: &Path| present.iter().any(|q| Path::new(q) == p);
        let pick = |explicit: Option<&str>, venv: Option<&str>, present: &'static [&'static str]| {
            choose_python(explicit.map(PathBuf::from), venv.map(PathBuf::from), Some(exe), Some(cwd), has(present))
        };
        let all: &[&str] = &["/v/bin/python", "/src/flitsim/.venv/bin/python", "/home/me/.venv/bin/python"];
        assert_eq!(pick(Some("/opt/py"), Some("/v"), all), "/opt/py");
        assert_eq!(pick(None, Some("/v"), all), "/v/bin/python");
        assert_eq!(pick(None, None, all), "/src/flitsim/.venv/bin/python");
        assert_eq!(pick(None, None, &["/home/me/.venv/bin/python"]), "/home/me/.venv/bin/python");
        // A virtualenv named but without its interpreter is passed over.
        assert_eq!(pick(None, Some("/gone"), &[]), "python3");
    }
}
