//! One Python exception class per [`flitsim_core::Error`] variant, all under
//! `FlitsimError`. The message is the core's (the text the `flitsim` command prints after
//! `error: `); the variant's fields become attributes.

use flitsim_core::Error;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

// The classes are named in the `flitsim` namespace, where the package re-exports them,
// so that pickle finds them (exceptions cross process boundaries in sweeps).
pyo3::create_exception!(
    flitsim,
    FlitsimError,
    PyException,
    "Base class of every error flitsim raises. `path` names the config field at fault, or is None."
);
pyo3::create_exception!(
    flitsim,
    ConfigError,
    FlitsimError,
    "A config was refused before anything ran; `path` names the field (dotted), `message` says what is wrong and how to fix it."
);
pyo3::create_exception!(
    flitsim,
    ParseError,
    ConfigError,
    "The config is not valid TOML, a value has the wrong type, or a key is unknown or missing."
);
pyo3::create_exception!(
    flitsim,
    InvalidConfigError,
    ConfigError,
    "The config parsed but a value is impossible: out of range, inconsistent with another field, or unsupported by the topology."
);
pyo3::create_exception!(
    flitsim,
    DeadlockError,
    FlitsimError,
    "The watchdog saw no flit move for `idle` cycles while `buffered` flits were buffered; `blocked` lists the blocked VCs."
);
pyo3::create_exception!(
    flitsim,
    PartialDeadlockError,
    DeadlockError,
    "A cycle of waiting input VCs did not move for a watchdog `period` while other flits still moved."
);
pyo3::create_exception!(
    flitsim,
    InvariantError,
    FlitsimError,
    "Check mode found a flit or credit conservation or buffer bound violation (a simulator bug)."
);

/// Register the classes in the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FlitsimError", py.get_type::<FlitsimError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("InvalidConfigError", py.get_type::<InvalidConfigError>())?;
    m.add("DeadlockError", py.get_type::<DeadlockError>())?;
    m.add("PartialDeadlockError", py.get_type::<PartialDeadlockError>())?;
    m.add("InvariantError", py.get_type::<InvariantError>())?;
    Ok(())
}

/// The Python exception for a core error: its class by variant, its fields as attributes.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let text = e.to_string();
    let path = e.path().map(str::to_string);
    let (err, attrs): (PyErr, Vec<(&str, Py<PyAny>)>) = match e {
        // Exhaustive on purpose: a new core error kind must get its own class here.
        Error::Parse { message, .. } => (ParseError::new_err(text), vec![("message", obj(py, message))]),
        Error::Config { message, .. } => (InvalidConfigError::new_err(text), vec![("message", obj(py, message))]),
        Error::Deadlock { cycle, idle, buffered, blocked } => (
            DeadlockError::new_err(text),
            vec![("cycle", obj(py, cycle)), ("idle", obj(py, idle)), ("buffered", obj(py, buffered)), ("blocked", obj(py, blocked))],
        ),
        Error::PartialDeadlock { cycle, period, buffered, blocked } => (
            PartialDeadlockError::new_err(text),
            // `idle` as for a whole-network deadlock: the cycles the blocked VCs have not moved.
            vec![
                ("cycle", obj(py, cycle)),
                ("idle", obj(py, period)),
                ("period", obj(py, period)),
                ("buffered", obj(py, buffered)),
                ("blocked", obj(py, blocked)),
            ],
        ),
        Error::Invariant { cycle, message } => {
            (InvariantError::new_err(text), vec![("cycle", obj(py, cycle)), ("message", obj(py, message))])
        }
    };
    let value = err.value(py);
    let set = value.setattr("path", path).and_then(|()| attrs.into_iter().try_for_each(|(name, v)| value.setattr(name, v)));
    match set {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> Py<PyAny> {
    v.into_py_any(py).unwrap_or_else(|_| py.None())
}
