//! Python values to TOML values, so that a config given as a dict, and override values
//! given as Python objects, go through the same parser and checks as TOML text.
//!
//! TOML's data model is Python's plain data: bool, int (64-bit), float, str, list, dict.
//! Anything else is refused with the key path, as the core refuses a bad TOML value.

use flitsim_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `obj` as a TOML table; `path` is the dotted key path of `obj` (empty for the root).
pub fn to_table(obj: &Bound<'_, PyAny>, path: &str) -> Result<toml::Table, Error> {
    match to_value(obj, path)? {
        toml::Value::Table(t) => Ok(t),
        other => Err(parse_error(path, format!("expected a table (a dict), found {}", other.type_str()))),
    }
}

/// Deepest nesting of lists and dicts accepted (a config nests a few levels; this
/// bounds the converter's recursion, which a deep or cyclic structure would overflow).
pub const MAX_DEPTH: usize = 64;

/// `obj` as a TOML value; `path` names it in errors.
pub fn to_value(obj: &Bound<'_, PyAny>, path: &str) -> Result<toml::Value, Error> {
    to_value_at(obj, path, 0)
}

fn to_value_at(obj: &Bound<'_, PyAny>, path: &str, depth: usize) -> Result<toml::Value, Error> {
    if depth > MAX_DEPTH {
        return Err(parse_error(
            path,
            format!("nests lists and dicts more than {MAX_DEPTH} deep (or contains itself): no config is that deep"),
        ));
    }
    // bool before int: Python's bool is an int.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj
            .extract::<i64>()
            .map(toml::Value::Integer)
            .map_err(|_| parse_error(path, format!("{obj} is out of range: TOML integers are 64-bit")));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if obj.is_instance_of::<PyString>() {
        return obj.extract::<String>().map(toml::Value::String).map_err(|e| parse_error(path, e.to_string()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.extract::<String>() else {
                return Err(parse_error(path, format!("key {k} is not a string: config keys are strings")));
            };
            let value = to_value_at(&v, &join(path, &key), depth + 1)?;
            table.insert(key, value);
        }
        return Ok(toml::Value::Table(table));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, v) in obj.try_iter().map_err(|e| parse_error(path, e.to_string()))?.enumerate() {
            let v = v.map_err(|e| parse_error(path, e.to_string()))?;
            items.push(to_value_at(&v, &format!("{}[{i}]", if path.is_empty() { "<root>" } else { path }), depth + 1)?);
        }
        return Ok(toml::Value::Array(items));
    }
    if obj.is_none() {
        return Err(parse_error(path, "None has no TOML value; leave the key out to get its default".to_string()));
    }
    // NumPy scalars (numpy.int64, numpy.float32, numpy.bool_) and other objects with a
    // plain-Python `.item()`.
    if let Ok(item) = obj.call_method0("item") {
        if !item.is(obj)
            && (item.is_instance_of::<PyBool>()
                || item.is_instance_of::<PyInt>()
                || item.is_instance_of::<PyFloat>()
                || item.is_instance_of::<PyString>())
        {
            return to_value_at(&item, path, depth + 1);
        }
    }
    let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    Err(parse_error(path, format!("a value of type {type_name} has no TOML equivalent; use a bool, int, float, str, list or dict")))
}

/// A `key=value` override (the `--set` syntax) for a Python value: the value is written
/// as a TOML literal, which the override parser reads back as the same value.
pub fn override_string(key: &str, obj: &Bound<'_, PyAny>) -> Result<String, Error> {
    let value = to_value(obj, key)?;
    Ok(format!("{key}={value}"))
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn parse_error(path: &str, message: String) -> Error {
    Error::Parse { path: if path.is_empty() { "<root>".into() } else { path.to_string() }, message }
}
