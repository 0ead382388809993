//! Tagged config tables (`{ type = "...", ... }`) deserialized so that their errors keep
//! the key path, and the path helpers the config's own messages share with them.

use serde::Deserialize;

/// Separates a key path carried inside a serde error message from the message itself:
/// `\u{1f}path\u{1f}message`. Tagged tables (`{ type = "...", ... }`) are deserialized
/// in a nested pass (see [`deserialize_tagged`]) whose key path serde cannot report to the
/// outer pass, so the nested pass puts it at the front of the message and
/// `Config::from_table` joins it onto the outer path.
const PATH_MARK: char = '\u{1f}';

/// `message` with `path` marked at its front (see [`PATH_MARK`]); no mark for an empty path.
pub(crate) fn mark_path(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("{PATH_MARK}{path}{PATH_MARK}{message}")
    }
}

/// Split a message made by [`mark_path`] into `(path, message)`; `("", msg)` when unmarked.
pub(crate) fn split_marked(msg: &str) -> (String, String) {
    if let Some(rest) = msg.strip_prefix(PATH_MARK) {
        if let Some((path, message)) = rest.split_once(PATH_MARK) {
            return (path.to_string(), message.to_string());
        }
    }
    (String::new(), msg.to_string())
}

/// The message on one line, without the "in `key`" context lines toml appends.
pub(crate) fn without_context(msg: &str) -> String {
    let lines: Vec<&str> =
        msg.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("in `") && !l.trim_start().starts_with('|')).collect();
    lines.join(" ").trim().to_string()
}

/// `a.b` + `c` = `a.b.c`; `a` + `[2].x` = `a[2].x`; either side may be empty.
pub(crate) fn join_path(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (_, true) => outer.to_string(),
        (true, false) => inner.to_string(),
        (false, false) if inner.starts_with('[') => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
    }
}

/// A serde_path_to_error path as `a.b[2].c`, skipping enum-variant segments (the variant
/// of a tagged table is its `type` key, not a table of its own).
pub(crate) fn path_string(path: &serde_path_to_error::Path) -> String {
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
