//! Parsing helpers of the config: `--set` overrides applied to TOML tables, key paths
//! (`a.b[2].c`) into them, the tagged tables (`{ type = "...", ... }`) deserialized so that
//! their errors keep the key path, and serde's messages made into ones that name the
//! key, the value and the fix; and the lines of the data files a config names (links,
//! traces).

use serde::Deserialize;

use super::Config;
use crate::error::{Error, Result};

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

/// Separates a key path carried inside a serde error message from the message itself:
/// `\u{1f}path\u{1f}message`. Tagged tables (`{ type = "...", ... }`) are deserialized
/// in a nested pass (see [`deserialize_tagged`]) whose key path serde cannot report to the
/// outer pass, so the nested pass puts it at the front of the message and
/// [`Config::from_table`] joins it onto the outer path.
const PATH_MARK: char = '\u{1f}';

/// `message` with `path` marked at its front (see [`PATH_MARK`]); no mark for an empty path.
fn mark_path(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("{PATH_MARK}{path}{PATH_MARK}{message}")
    }
}

/// Split a message made by [`mark_path`] into `(path, message)`; `("", msg)` when unmarked.
pub(super) fn split_marked(msg: &str) -> (String, String) {
    if let Some(rest) = msg.strip_prefix(PATH_MARK) {
        if let Some((path, message)) = rest.split_once(PATH_MARK) {
            return (path.to_string(), message.to_string());
        }
    }
    (String::new(), msg.to_string())
}

/// The message on one line, without the "in `key`" context lines toml appends.
pub(super) fn without_context(msg: &str) -> String {
    let lines: Vec<&str> =
        msg.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("in `") && !l.trim_start().starts_with('|')).collect();
    lines.join(" ").trim().to_string()
}

/// `a.b` + `c` = `a.b.c`; `a` + `[2].x` = `a[2].x`; either side may be empty.
pub(super) fn join_path(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (_, true) => outer.to_string(),
        (true, false) => inner.to_string(),
        (false, false) if inner.starts_with('[') => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
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

/// A serde_path_to_error path as `a.b[2].c`, skipping enum-variant segments (the variant
/// of a tagged table is its `type` key, not a table of its own).
pub(super) fn path_string(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => out = join_path(&out, key),
            Segment::Enum { .. } => {}
            Segment::Unknown => out = join_path(&out, "?"),
        }
    }
    out
}

/// ` (line L, column C)` of byte offset `at` in `text`.
pub(super) fn line_col(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(" (line {line}, column {col})")
}

/// serde's description of a TOML value's kind, for "invalid type" messages.
fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("string {s:?}"),
        toml::Value::Integer(i) => format!("integer `{i}`"),
        toml::Value::Float(f) => format!("floating point `{f}`"),
        toml::Value::Boolean(b) => format!("boolean `{b}`"),
        toml::Value::Datetime(d) => format!("datetime `{d}`"),
        toml::Value::Array(_) => "array".into(),
        toml::Value::Table(_) => "table".into(),
    }
}

/// The valid variant names of the externally tagged mirror enum `R`, as serde lists them
/// (`` `a`, `b`, `c` `` or `` `a` or `b` ``), found by asking it for a name it lacks.
fn variant_names<R: serde::de::DeserializeOwned>() -> String {
    let mut probe = toml::Table::new();
    probe.insert("\u{0}".into(), toml::Value::Table(toml::Table::new()));
    match serde_path_to_error::deserialize::<_, R>(toml::Value::Table(probe)) {
        Ok(_) => String::new(),
        Err(e) => {
            let m = without_context(&e.inner().to_string());
            let list = m.split_once("expected ").map_or("", |(_, l)| l);
            list.strip_prefix("one of ").unwrap_or(list).to_string()
        }
    }
}

/// Deserialize an internally tagged config table (`{ type = "name", key = ... }`) with
/// precise error paths.
///
/// serde's derived internally tagged enums buffer the table before choosing the variant,
/// which loses the key path of any error inside it (`router` instead of `router.vcs`).
/// So each tagged family keeps serde's internal tagging for serialization, and
/// deserializes through this function and `R`, an externally tagged mirror enum with the
/// same variants (`{ name = { key = ... } }`), which serde tracks field by field. Errors
/// inside the table carry their key path at the front of the message (see [`PATH_MARK`]);
/// `family` names the table in messages ("topology", "traffic pattern", ...).
/// `default_type` is used when the table has no `type` key: give it only for a family with
/// a single, obvious choice (so `--set router.vcs=2` works without `router.type`).
pub(crate) fn deserialize_tagged<'de, D, R>(deserializer: D, family: &str, default_type: Option<&str>) -> std::result::Result<R, D::Error>
where
    D: serde::Deserializer<'de>,
    R: serde::de::DeserializeOwned,
{
    use serde::de::Error as _;
    let value = toml::Value::deserialize(deserializer)?;
    let names = || variant_names::<R>();
    let first = || names().split('`').nth(1).unwrap_or("").to_string();
    let toml::Value::Table(mut table) = value else {
        return Err(D::Error::custom(format!(
            "invalid type: {}, expected a {family} table such as `{{ type = \"{}\" }}` (types: {})",
            describe(&value),
            first(),
            names()
        )));
    };
    let tag = match table.remove("type") {
        Some(toml::Value::String(s)) => s,
        None if default_type.is_some() => default_type.unwrap_or_default().to_string(),
        None => {
            return Err(D::Error::custom(mark_path(
                "type",
                &format!("missing field `type`; say which {family} this is, e.g. `type = \"{}\"` (types: {})", first(), names()),
            )))
        }
        Some(other) => {
            return Err(D::Error::custom(mark_path(
                "type",
                &format!("invalid type: {}, expected the name of a {family} as a string: {}", describe(&other), names()),
            )))
        }
    };
    let mut external = toml::Table::new();
    external.insert(tag.clone(), toml::Value::Table(table));
    serde_path_to_error::deserialize::<_, R>(toml::Value::Table(external)).map_err(|e| {
        let (nested, mut message) = split_marked(&without_context(&e.inner().to_string()));
        let mut path = join_path(&path_string(e.path()), &nested);
        if path.is_empty() && message.starts_with("unknown variant") {
            path = "type".into();
        }
        if let Some(field) = message.strip_suffix(", there are no fields") {
            message = format!("{field}: type \"{tag}\" takes no other keys");
        }
        D::Error::custom(mark_path(&path, &message))
    })
}

/// The lines of a data file a config names (a graph's links, a trace) that hold data:
/// `(line number from 1, the text before any `#` comment, trimmed)`, blank ones skipped.
pub(crate) fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let body = line.split('#').next().unwrap_or("").trim();
        (!body.is_empty()).then_some((i + 1, body))
    })
}
