//! What every part of the config schema shares, below the config itself so that the
//! modules that define config tables (topology, routing, routers, traffic, congestion)
//! need nothing from `config`: range checks, tagged tables deserialized with their key paths ([`tagged`]), and the lines
//! and read errors of the data files a config names.

use std::path::Path;

use crate::error::{Error, Result};

pub mod tagged;

/// A `u32` field that must lie in `lo..=hi`: the error names `path.field` and says what
/// the field is.
pub fn check_range(path: &str, field: &str, v: u32, lo: u32, hi: u32, what: &str) -> Result<()> {
    if v < lo || v > hi {
        Err(Error::config(format!("{path}.{field}"), format!("{v} is out of range: {what} must be {lo}..={hi}")))
    } else {
        Ok(())
    }
}

/// The message for a data file that cannot be read; when it is missing, where a relative
/// path is looked for.
pub fn cannot_read(file: &str, e: &std::io::Error) -> String {
    let mut m = format!("cannot read {file}: {e}");
    if e.kind() == std::io::ErrorKind::NotFound && Path::new(file).is_relative() {
        m += " (a relative path in a config file is read from that file's folder, one given with --set from the working directory)";
    }
    m
}

/// The lines of a data file a config names (a graph's links, a trace) that hold data:
/// `(line number from 1, the text before any `#` comment, trimmed)`, blank ones skipped.
pub(crate) fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let body = line.split('#').next().unwrap_or("").trim();
        (!body.is_empty()).then_some((i + 1, body))
    })
}
