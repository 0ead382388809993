//! Parsing helpers of the config: `--set` overrides applied to TOML tables, key paths
//! (`a.b[2].c`) into them, and serde's messages made into ones that name the key, the
//! value and the fix (the tagged tables' part is [`crate::schema::tagged`]).

use super::Config;
use crate::error::{Error, Result};
use crate::schema::tagged::join_path;

/// For a value at `path` that must be one of an enum's names: "V is not one of ...",
/// with the names serde lists for a string that is none of them.
pub(super) fn the_names_here(table: &toml::Table, path: &str) -> Option<String> {
    let mut probe = table.clone();
    let slot = value_at_mut(&mut probe, path)?;
    let given = slot.to_string();
    *slot = toml::Value::String("\u{1}".into());
    match Config::from_table(probe) {
        Err(Error::Parse { path: p, message }) if p == path && message.starts_with("unknown variant") => {
            // ("expected `a`", "expected `a` or `b`", "expected one of `a`, `b`, `c`")
            let names = message.split_once(", expected ")?.1;
            Some(format!("{given} is not a name; expected {names}"))
        }
        _ => None,
    }
}

/// The value at key path `path` (`a.b[2].c`) in `table`.
fn value_at_mut<'a>(table: &'a mut toml::Table, path: &str) -> Option<&'a mut toml::Value> {
    let mut parts = path.split('.');
    let first = parts.next()?;
    let (name, idx) = first.split_once('[').map_or((first, ""), |(n, i)| (n, i));
    let mut cur = table.get_mut(name)?;
    let descend = |mut cur: &'a mut toml::Value, idx: &str| -> Option<&'a mut toml::Value> {
        for i in idx.split('[').filter(|s| !s.is_empty()) {
            cur = cur.as_array_mut()?.get_mut(i.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
        Some(cur)
    };
    cur = descend(cur, idx)?;
    for part in parts {
        let (name, idx) = part.split_once('[').map_or((part, ""), |(n, i)| (n, i));
        cur = descend(cur.as_table_mut()?.get_mut(name)?, idx)?;
    }
    Some(cur)
}

/// Remove the value at dotted key `path` from `table`; false if there is none.
pub(super) fn remove_key(table: &mut toml::Table, path: &str) -> bool {
    match path.split_once('.') {
        None => table.remove(path).is_some(),
        Some((head, rest)) => match table.get_mut(head) {
            Some(toml::Value::Table(t)) => remove_key(t, rest),
            _ => false,
        },
    }
}

/// Apply one `key.path=value` override to a TOML table.
pub fn apply_override(table: &mut toml::Table, spec: &str) -> Result<()> {
    let Some((key, raw)) = spec.split_once('=') else {
        let path = if spec.trim().is_empty() { "<override>".to_string() } else { spec.trim().to_string() };
        return Err(Error::Parse {
            path,
            message: format!("`{spec}` has no `=`; an override must look like key.path=value, e.g. traffic.load=0.4"),
        });
    };
    let key = key.trim();
    let raw = raw.trim();
    if key.is_empty() {
        return Err(Error::Parse {
            path: "<override>".into(),
            message: format!("`{spec}` has no key before `=`; an override must look like key.path=value, e.g. traffic.load=0.4"),
        });
    }
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::Parse { path: key.into(), message: "empty component in the key path".into() });
    }
    let value: toml::Value = match format!("v = {raw}").parse::<toml::Table>().ok().and_then(|mut t| t.remove("v")) {
        Some(v) => v,
        // A whole number TOML cannot hold would otherwise become a string, and the error
        // would say a string is the wrong type.
        None if is_integer_literal(raw) => return Err(Error::Parse { path: key.into(), message: format!("{raw} is {TOML_INTEGERS}") }),
        None => toml::Value::String(raw.to_string()),
    };
    let mut cur = table;
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            cur.insert(part.to_string(), value);
            break;
        }
        let entry = cur.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        match entry {
            toml::Value::Table(t) => cur = t,
            _ => return Err(Error::Parse { path: parts[..=i].join("."), message: format!("is not a table, so `{key}` cannot be set") }),
        }
    }
    Ok(())
}

/// What a TOML integer can be (the text after "N is ..." for one out of range).
pub(super) const TOML_INTEGERS: &str = "out of range: TOML integers are 64-bit signed, -9223372036854775808..=9223372036854775807";

/// `-123`, `+45`, `6_000`: digits with an optional sign and underscores.
fn is_integer_literal(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    digits.starts_with(|c: char| c.is_ascii_digit()) && digits.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// Make serde's messages friendlier: they already name the bad value and list the valid
/// choices for variants and fields; say what to do, and name types in config terms.
pub(super) fn humanize(msg: &str) -> String {
    let mut m = msg.trim().replacen("invalid type: map,", "invalid type: table,", 1);
    for (rust, config) in [
        ("expected u8", "expected a whole number in 0..=255"),
        ("expected u16", "expected a whole number in 0..=65535"),
        ("expected u32", "expected a whole number in 0..=4294967295"),
        ("expected u64", "expected a whole number >= 0"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected a table"),
        ("expected a boolean", "expected a boolean (true or false)"),
    ] {
        if let Some(rest) = m.strip_suffix(rust) {
            m = format!("{rest}{config}");
        }
    }
    if let Some(i) = m.find("expected struct ") {
        m = format!("{}expected a table", &m[..i]);
    }
    if m.starts_with("unknown field") {
        format!("{m}; remove it or fix its spelling")
    } else if m.starts_with("missing field") && !m.contains(';') {
        format!("{m}; add it")
    } else {
        m
    }
}

/// Refuse an array where the config has a table (`sim = [7, 9]`, which serde would
/// otherwise read field by field in declaration order; other wrong types get serde's own
/// messages): `default` is the default config as TOML, whose tables mark where tables
/// belong.
pub(super) fn tables_where_tables_belong(default: &toml::Table, given: &toml::Table, path: &str) -> Result<()> {
    for (key, value) in given {
        let Some(toml::Value::Table(d)) = default.get(key) else { continue };
        let at = join_path(path, key);
        match value {
            toml::Value::Table(g) => tables_where_tables_belong(d, g, &at)?,
            toml::Value::Array(a) => {
                return Err(Error::Parse {
                    path: at.clone(),
                    message: format!(
                        "expected a table of named fields ([{at}] or {{ key = value, ... }}), got the array {}",
                        toml::Value::Array(a.clone())
                    ),
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// ` (line L, column C)` of byte offset `at` in `text`.
pub(super) fn line_col(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(" (line {line}, column {col})")
}
