//! The trace file format: one message per line,
//!
//! ```text
//! src dst flits [at=CYCLE] [after=ID,ID,...] [delay=CYCLES]
//! ```
//!
//! fields separated by white space, `#` to the end of the line a comment, blank lines
//! ignored. Messages are numbered from 0 in file order (comment and blank lines do not
//! count). The optional fields may come in any order, each at most once; see
//! [`super::MessageSpec`] for their meaning.

use super::MessageSpec;
use crate::error::{Error, Result};

/// Read the messages of trace file `file` (`key`: the config key naming it, for errors),
/// with the file line of each.
pub fn read(file: &str, key: &str) -> Result<(Vec<MessageSpec>, Vec<usize>)> {
    let text = std::fs::read_to_string(file).map_err(|e| Error::config(key, crate::schema::cannot_read(file, &e)))?;
    parse(&text, &format!("{key} ({file}"))
}

/// Parse trace text; errors name `{at} line N)`.
pub fn parse(text: &str, at: &str) -> Result<(Vec<MessageSpec>, Vec<usize>)> {
    let mut specs = Vec::new();
    let mut lines = Vec::new();
    for (line, body) in crate::schema::data_lines(text) {
        let where_ = format!("{at} line {line})");
        let err = |msg: String| Error::config(&where_, msg);
        let fields: Vec<&str> = body.split_whitespace().collect();
        if fields.len() < 3 {
            return Err(err(format!(
                "`{body}` is not a message: give `src dst flits`, then optionally at=CYCLE, after=ID,ID,... and delay=CYCLES"
            )));
        }
        let num = |s: &str, what: &str| s.parse::<u64>().map_err(|_| err(format!("`{s}` is not {what} (a whole number from 0)")));
        let node = |s: &str, what: &str| num(s, what).and_then(|v| u32::try_from(v).map_err(|_| err(format!("{what} {v} is too large"))));
        let mut m = MessageSpec {
            src: node(fields[0], "a source node")?,
            dst: node(fields[1], "a destination node")?,
            flits: num(fields[2], "a size in flits")?,
            at: 0,
            after: Vec::new(),
            delay: 0,
        };
        let mut seen: Vec<&str> = Vec::new();
        for f in &fields[3..] {
            let Some((k, v)) = f.split_once('=') else {
                return Err(err(format!("`{f}` is not an option: write at=CYCLE, after=ID,ID,... or delay=CYCLES")));
            };
            if seen.contains(&k) {
                return Err(err(format!("`{k}` is given twice; give it once")));
            }
            seen.push(k);
            match k {
                "at" => m.at = num(v, "a cycle")?,
                "delay" => m.delay = num(v, "a number of cycles")?,
                "after" => {
                    for id in v.split(',') {
                        m.after.push(node(id, "a message number")?);
                    }
                }
                _ => return Err(err(format!("unknown option `{k}`: the options are at, after and delay"))),
            }
        }
        specs.push(m);
        lines.push(line);
    }
    Ok((specs, lines))
}
