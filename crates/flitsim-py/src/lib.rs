//! `flitsim._core`: the native module of the `flitsim` Python package. A thin conversion
//! layer over `flitsim-core`: configs load through [`Config::load`] (the `flitsim`
//! command's path), runs go through [`Simulation`], reports leave as the JSON text of
//! [`Report::to_json`] (what `flitsim run --out` writes). No simulation logic lives here.
//!
//! [`Report::to_json`]: flitsim_core::report::Report::to_json

mod convert;
mod errors;

use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Large blocks of the engine's state on huge pages (as in the command line).
#[global_allocator]
static ALLOCATOR: flitsim_core::huge_pages::HugePages = flitsim_core::huge_pages::HugePages;

/// Cycles simulated between two checks for Ctrl-C (`KeyboardInterrupt`) in stepwise runs.
const SIGNAL_CHECK_CYCLES: u64 = 4096;

/// Turn the core error into its Python exception.
fn err(e: flitsim_core::Error) -> PyErr {
    Python::attach(|py| errors::to_py(py, e))
}

/// A parsed config (defaults filled, overrides applied); not yet validated.
#[pyclass(module = "flitsim._core", name = "Config", frozen, eq)]
#[derive(PartialEq)]
struct PyConfig {
    inner: Config,
}

#[pymethods]
impl PyConfig {
    /// TOML text (None: the built-in default) with `key=value` overrides: exactly what
    /// `flitsim run [FILE] --set ...` loads. `dir` is the folder of the file the text was
    /// read from: the data files it names resolve against it.
    #[staticmethod]
    #[pyo3(signature = (text, overrides, dir=None))]
    fn load(text: Option<&str>, overrides: Vec<String>, dir: Option<std::path::PathBuf>) -> PyResult<Self> {
        Config::load_in(text, dir.as_deref(), &overrides).map(|inner| PyConfig { inner }).map_err(err)
    }

    /// A dict of plain values (the TOML data model) with `key=value` overrides; errors
    /// name the key path as for TOML text.
    #[staticmethod]
    #[pyo3(signature = (config, overrides))]
    fn from_dict(config: &Bound<'_, PyDict>, overrides: Vec<String>) -> PyResult<Self> {
        let mut table = convert::to_table(config.as_any(), "").map_err(err)?;
        for o in &overrides {
            flitsim_core::config::apply_override(&mut table, o).map_err(err)?;
        }
        Config::from_table(table).map(|inner| PyConfig { inner }).map_err(err)
    }

    /// The `key=value` override (`--set` syntax) that sets `key` to a Python value.
    #[staticmethod]
    fn override_string(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
        convert::override_string(key, value).map_err(err)
    }

    /// The whole config as TOML (every default written out). Raises where
    /// `Config::to_toml` would quietly give "" (a value TOML cannot hold).
    fn to_toml(&self) -> PyResult<String> {
        toml::to_string_pretty(&self.inner).map_err(|e| PyRuntimeError::new_err(format!("the config cannot be written as TOML: {e}")))
    }

    /// The whole config as compact JSON with sorted keys.
    fn canonical_json(&self) -> PyResult<String> {
        Ok(self.inner.canonical_json())
    }

    /// The text a results store hashes: the canonical JSON, the simulator's version, and
    /// the SHA-256 of every data file the config names (`Config::store_text`).
    fn store_text(&self) -> PyResult<String> {
        Ok(self.inner.store_text(flitsim_core::VERSION))
    }

    /// The seed of every random stream.
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed
    }

    /// Check ranges and cross-field rules and build the network, as `flitsim validate`.
    fn validate(&self, py: Python<'_>) -> PyResult<()> {
        let cfg = self.inner.clone();
        py.detach(move || cfg.validate().map(|_| ())).map_err(err)
    }
}

/// Build a config's network on `threads` threads (None: as many as it profits from,
/// as `flitsim run` without `--threads`).
fn build(py: Python<'_>, config: &PyConfig, threads: Option<usize>) -> PyResult<Simulation> {
    let cfg = config.inner.clone();
    py.detach(move || {
        let spec = cfg.validate()?;
        let threads = threads.unwrap_or_else(|| flitsim_core::sim::parallel::auto_threads(&spec));
        let mut sim = Simulation::new(spec)?;
        sim.set_threads(threads)?;
        Ok(sim)
    })
    .map_err(err)
}

/// Validate and run a config to the end on `threads` threads; the report as JSON
/// (`flitsim run --out`), the same for any thread count. The interpreter lock is
/// released while the engine runs. Warm-up and window run in steps of a few thousand
/// cycles with a check for Ctrl-C between them, then the engine's `run` finishes (the
/// drain): the same report as one `run` from cycle 0.
#[pyfunction]
#[pyo3(signature = (config, threads=None))]
fn run(py: Python<'_>, config: &PyConfig, threads: Option<usize>) -> PyResult<String> {
    let mut sim = build(py, config, threads)?;
    let window_end = pre_run_end(&sim);
    while sim.now() < window_end {
        let n = (window_end - sim.now()).min(SIGNAL_CHECK_CYCLES);
        py.detach(|| sim.run_cycles(n)).map_err(err)?;
        py.check_signals()?;
    }
    py.detach(move || sim.run(&mut |_| {}).map(|r| r.to_json())).map_err(err)
}

/// How far a run may be stepped in chunks (checking for Ctrl-C between them) before the
/// engine's own run takes over: the end of the measurement window, or nowhere for a run
/// that ends when its finite workload is done (only the engine's run knows when).
fn pre_run_end(sim: &Simulation) -> u64 {
    let s = &sim.spec().config.sim;
    if s.until_done {
        0
    } else {
        s.warmup + s.measure
    }
}

/// A network under simulation, advanced by hand.
#[pyclass(module = "flitsim._core", name = "Simulation")]
struct PySimulation {
    /// None once finished.
    sim: Option<Simulation>,
    /// The error that stopped it, if one did.
    failed: Option<String>,
}

impl PySimulation {
    fn live(&mut self) -> PyResult<&mut Simulation> {
        if let Some(why) = &self.failed {
            return Err(PyRuntimeError::new_err(format!("the simulation stopped with an error and cannot continue: {why}")));
        }
        self.sim.as_mut().ok_or_else(|| PyRuntimeError::new_err("the simulation has finished"))
    }

    fn any(&self) -> PyResult<&Simulation> {
        self.sim.as_ref().ok_or_else(|| PyRuntimeError::new_err("the simulation has finished"))
    }
}

#[pymethods]
impl PySimulation {
    /// Validate a config and build its network at cycle 0, stepped on `threads` threads.
    #[new]
    #[pyo3(signature = (config, threads=None))]
    fn new(py: Python<'_>, config: &PyConfig, threads: Option<usize>) -> PyResult<Self> {
        let sim = build(py, config, threads)?;
        Ok(PySimulation { sim: Some(sim), failed: None })
    }

    /// Threads stepping the network (1 when it is not partitioned).
    #[getter]
    fn threads(&self) -> PyResult<usize> {
        Ok(self.any()?.threads())
    }

    /// Simulate `cycles` more cycles (`Simulation::run_cycles`), checking for Ctrl-C
    /// every few thousand cycles.
    fn run_cycles(&mut self, py: Python<'_>, cycles: u64) -> PyResult<()> {
        self.live()?; // (even for 0 cycles: a finished or failed run cannot go on)
        let mut left = cycles;
        while left > 0 {
            let n = left.min(SIGNAL_CHECK_CYCLES);
            let sim = self.live()?;
            if let Err(e) = py.detach(|| sim.run_cycles(n)) {
                self.failed = Some(e.to_string());
                return Err(errors::to_py(py, e));
            }
            left -= n;
            py.check_signals()?;
        }
        Ok(())
    }

    /// The next cycle to be simulated.
    #[getter]
    fn now(&self) -> PyResult<u64> {
        Ok(self.any()?.now())
    }

    /// Flits injected and not yet ejected.
    #[getter]
    fn in_network(&self) -> PyResult<u64> {
        Ok(self.any()?.in_network())
    }

    /// The engine's event counters as JSON.
    fn counters_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.any()?.counters).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Measurement-window progress so far: packets created and delivered in the window,
    /// mean packet latency of those delivered.
    fn window_json(&self) -> PyResult<String> {
        let s = &self.any()?.stats;
        let (start, end) = s.window();
        let v = serde_json::json!({
            "window": [start, end],
            "packets_created": s.packets_created(),
            "packets_delivered": s.packets_delivered(),
            "mean_packet_latency": s.mean_packet_latency(),
        });
        Ok(v.to_string())
    }

    /// Run the rest (to the end of the window, checking for Ctrl-C, then the drain) and
    /// report, as JSON; the simulation is consumed. If an error (a deadlock) stops it,
    /// its state stays readable, as after a failed `run_cycles`.
    fn finish(&mut self, py: Python<'_>) -> PyResult<String> {
        let sim = self.live()?;
        let left = pre_run_end(sim).saturating_sub(sim.now());
        self.run_cycles(py, left)?;
        let sim = self.live()?;
        match py.detach(|| sim.drive(&mut |_| {})) {
            Ok(info) => {
                let sim = self.sim.take().expect("live above");
                Ok(py.detach(move || sim.report(info).to_json()))
            }
            Err(e) => {
                self.failed = Some(e.to_string());
                Err(errors::to_py(py, e))
            }
        }
    }

    /// True once `finish` has run.
    #[getter]
    fn finished(&self) -> bool {
        self.sim.is_none()
    }
}

/// The native module.
#[pymodule]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", flitsim_core::VERSION)?;
    m.add_class::<PyConfig>()?;
    m.add_class::<PySimulation>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    errors::register(m)?;
    Ok(())
}
