//! The config reference, read from the config's own declarations: every field's name,
//! type, doc comment, default and range are declared once, where the field is defined
//! (`#[serde(default = ...)]`, `#[schemars(range(...))]`), and the JSON schema that
//! `schemars` derives from them is what `flitsim list`, `docs/reference/config.md` and
//! the range checks ([`check_ranges`]) read. Nothing here restates a field.

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;

use crate::config::Config;
use crate::error::{Error, Result};

/// One documented component or table: a variant of a tagged family (`[topology] type =
/// "torus"`) or a plain table (`[channel]`).
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    /// Family: topology, routing, router, pattern, injection, or table.
    pub family: &'static str,
    /// The `type = "..."` name of a family member, or a table's key path.
    pub name: String,
    /// What it is (its doc comment).
    pub summary: String,
    /// Its fields, in declaration order.
    pub params: Vec<Param>,
}

/// One field of an [`Entry`].
#[derive(Clone, Debug, Serialize)]
pub struct Param {
    /// The key.
    pub name: String,
    /// Its type and range (`integer 1..=16`, `one of wormhole, virtual_cut_through`).
    pub kind: String,
    /// Its default as TOML, `required`, or `none` (an optional field left unset).
    pub default: String,
    /// Its doc comment.
    pub doc: String,
}

/// The tagged families: key path in the config, family name, heading of the reference.
const FAMILIES: &[(&str, &str, &str)] = &[
    ("topology", "topology", "Topologies: `[topology] type = ...`"),
    ("routing", "routing", "Routing functions: `[routing] type = ...`"),
    ("router", "router", "Routers: `[router] type = ...`"),
    ("traffic.pattern", "pattern", "Traffic patterns: `[traffic.pattern] type = ...`"),
    ("traffic.injection", "injection", "Injection processes: `[traffic.injection] type = ...`"),
];

/// The config's JSON schema, derived once.
fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| schemars::schema_for!(Config).to_value())
}

/// Follow `$ref`s to the schema they name.
fn resolve(s: &Value) -> &Value {
    let mut s = s;
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or("");
        match schema().get("$defs").and_then(|d| d.get(name)) {
            Some(target) => s = target,
            None => break,
        }
    }
    s
}

/// The non-null alternatives of a schema (an `Option<T>` is `T` or null).
fn alternatives(s: &Value) -> Vec<&Value> {
    let s = resolve(s);
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = s.get(key).and_then(Value::as_array) {
            // (Nested: an optional field of an enumerated type.)
            return list.iter().filter(|a| a.get("type").and_then(Value::as_str) != Some("null")).flat_map(alternatives).collect();
        }
    }
    vec![s]
}

/// The `type` constant of a tagged-table alternative.
fn tag_of(s: &Value) -> Option<&str> {
    resolve(s).get("properties")?.get("type")?.get("const")?.as_str()
}

/// A schema's properties in declaration order, with those of the schemas it names
/// (`$ref`, `allOf`), and its required keys.
fn properties(s: &Value) -> (Vec<(String, Value)>, Vec<String>) {
    let s = resolve(s);
    let mut props = Vec::new();
    let mut required: Vec<String> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(|k| k.as_str().map(String::from)).collect())
        .unwrap_or_default();
    if let Some(p) = s.get("properties").and_then(Value::as_object) {
        props.extend(p.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let mut nested: Vec<&Value> = s.get("allOf").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    if s.get("$ref").is_some() {
        nested.push(resolve(s));
    }
    for n in nested {
        let (p, r) = properties(n);
        props.extend(p);
        required.extend(r);
    }
    (props, required)
}

/// A doc comment as one line: rustdoc link brackets dropped, whitespace collapsed. A
/// field's own doc, else its type's.
fn doc_line(s: &Value) -> String {
    let own =
        |s: &Value| [s.get("title"), s.get("description")].into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>().join(". ");
    let mut text = own(s);
    if text.is_empty() {
        text = own(resolve(s));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    // `[`name`]` and `[`name`](target)`: keep the code span, drop the link.
    while let Some(i) = rest.find("[`") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find("`]") {
            Some(j) => {
                out.push_str(&after[..j + 1]);
                rest = &after[j + 2..];
                if rest.starts_with('(') {
                    rest = rest.find(')').map_or(rest, |k| &rest[k + 1..]);
                }
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A JSON number as the config writes it.
fn number(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => v.to_string(),
    }
}

/// A field's type, range and choices, for the reference.
fn kind(s: &Value) -> String {
    let alts = alternatives(s);
    if alts.len() > 1 {
        let consts: Vec<&str> = alts.iter().filter_map(|a| resolve(a).get("const").and_then(Value::as_str)).collect();
        if consts.len() == alts.len() {
            return format!("one of {}", consts.join(", "));
        }
        let tags: Vec<&str> = alts.iter().filter_map(|a| tag_of(a)).collect();
        if tags.len() == alts.len() {
            return format!("table, type = {}", tags.join(" | "));
        }
        return alts.iter().map(|a| kind(a)).collect::<Vec<_>>().join(" or ");
    }
    let s = resolve(alts[0]);
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return format!("one of {}", e.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "));
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join(" or "),
        _ => "table".into(),
    };
    let range = match (s.get("minimum"), s.get("maximum")) {
        (Some(lo), Some(hi)) => format!(" {}..={}", number(lo), number(hi)),
        (Some(lo), None) if lo.as_f64() != Some(0.0) => format!(" >= {}", number(lo)),
        (Some(_), None) => String::new(),
        (None, Some(hi)) => format!(" <= {}", number(hi)),
        (None, None) => String::new(),
    };
    match ty.as_str() {
        "array" => format!("array of {}", s.get("items").map_or("values".into(), kind)),
        "object" => "table".into(),
        "boolean" => "bool".into(),
        t => format!("{t}{range}"),
    }
}

/// A default value as TOML (strings bare).
fn toml_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(_) => number(v),
        Value::Null => "none".into(),
        // (A table's defaults are its fields', listed in its own section.)
        Value::Object(_) => "its fields'".into(),
        other => toml::Value::try_from(other.clone()).map(|t| t.to_string()).unwrap_or_else(|_| other.to_string()),
    }
}

/// The rows of a table's fields, skipping `type`.
fn params(s: &Value) -> Vec<Param> {
    let (props, required) = properties(s);
    props
        .iter()
        .filter(|(k, _)| k != "type")
        .map(|(k, p)| {
            let default = match p.get("default") {
                Some(d) => toml_text(d),
                None if required.contains(k) => "required".into(),
                None => "none".into(),
            };
            let mut doc = doc_line(p);
            // A field of an enumerated type: its values, with theirs.
            let values: Vec<String> = alternatives(p)
                .iter()
                .filter_map(|a| {
                    let a = resolve(a);
                    let name = a.get("const").and_then(Value::as_str)?;
                    let d = doc_line(a);
                    let d = d.trim_end_matches('.');
                    Some(if d.is_empty() { format!("`{name}`") } else { format!("`{name}`: {d}") })
                })
                .collect();
            if values.iter().any(|v| v.contains(':')) {
                doc = format!("{doc} Values: {}.", values.join("; "));
            }
            Param { name: k.clone(), kind: kind(p), default, doc }
        })
        .collect()
}

/// Every documented component and table: the tagged families member by member, then the
/// plain tables, in the config's order.
pub fn all() -> Vec<Entry> {
    let mut out = Vec::new();
    let (root, _) = properties(schema());
    for &(path, family, _) in FAMILIES {
        let s = lookup(&root, path).expect("every family's key is in the config");
        for alt in alternatives(&s) {
            let Some(name) = tag_of(alt) else { continue };
            out.push(Entry { family, name: name.to_string(), summary: doc_line(alt), params: params(alt) });
        }
    }
    // The top-level keys that are not tables, then every table, depth first.
    let top: Vec<Param> = params(schema()).into_iter().filter(|p| !p.kind.starts_with("table")).collect();
    out.push(Entry { family: "table", name: "top level".into(), summary: "keys outside any table".into(), params: top });
    for (key, s) in &root {
        tables(key, s, &mut out);
    }
    out
}

/// The schema of the field at key path `path` (`traffic.pattern`).
fn lookup(props: &[(String, Value)], path: &str) -> Option<Value> {
    let (head, rest) = path.split_once('.').map_or((path, None), |(h, r)| (h, Some(r)));
    let s = props.iter().find(|(k, _)| k == head)?.1.clone();
    match rest {
        None => Some(s),
        Some(r) => lookup(&properties(&s).0, r),
    }
}

/// The plain table at `path` (schema `s`) and the tables inside it, unless it is a tagged
/// family's.
fn tables(path: &str, s: &Value, out: &mut Vec<Entry>) {
    if FAMILIES.iter().any(|f| f.0 == path) {
        return;
    }
    // (An optional table, or a list of tables: its element.)
    let alts = alternatives(s);
    let mut s = resolve(alts[0]);
    if s.get("type").and_then(Value::as_str) == Some("array") {
        match s.get("items") {
            Some(items) => s = resolve(items),
            None => return,
        }
    }
    let (props, _) = properties(s);
    if alts.len() != 1 || props.is_empty() || tag_of(s).is_some() {
        return;
    }
    out.push(Entry { family: "table", name: path.to_string(), summary: doc_line(s), params: params(s) });
    for (key, p) in &props {
        tables(&format!("{path}.{key}"), p, out);
    }
}

/// The config reference (docs/reference/config.md).
pub fn markdown() -> String {
    let mut o = String::from(
        "# flitsim config reference\n\nGenerated by `flitsim list --markdown` from the config's declarations (each field's\ndoc comment, default and range, where it is defined); do not edit by hand. Every field\nhas a default unless it says `required`: an empty file is the default simulation.\nPluggable components are tables with a `type` key.\n",
    );
    let mut family = "";
    for e in all() {
        if e.family != family {
            family = e.family;
            let title = FAMILIES.iter().find(|f| f.1 == family).map_or("Other tables", |f| f.2);
            o.push_str(&format!("\n## {title}\n"));
        }
        let name = if e.family == "table" && e.name != "top level" { format!("[{}]", e.name) } else { e.name.clone() };
        o.push_str(&format!("\n### `{name}`\n{}\n", e.summary));
        if !e.params.is_empty() {
            o.push_str("\n| field | type | default | meaning |\n|---|---|---|---|\n");
            for p in &e.params {
                o.push_str(&format!("| `{}` | {} | {} | {} |\n", p.name, p.kind, cell(&p.default), cell(&p.doc)));
            }
        }
    }
    o
}

/// Text for a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Check every number of `config` against the range its field declares
/// (`#[schemars(range(min = .., max = ..))]`): the error names the key path and the range.
pub fn check_ranges(config: &Config) -> Result<()> {
    let v = serde_json::to_value(config).map_err(|e| Error::config("", format!("cannot read the config back: {e}")))?;
    within(schema(), &v, "")
}

fn within(s: &Value, v: &Value, path: &str) -> Result<()> {
    let s = resolve(s);
    match v {
        Value::Number(_) => {
            let x = v.as_f64().unwrap_or(0.0);
            let (lo, hi) = (s.get("minimum"), s.get("maximum"));
            let below = lo.and_then(Value::as_f64).is_some_and(|lo| x < lo);
            let above = hi.and_then(Value::as_f64).is_some_and(|hi| x > hi);
            if below || above {
                let range = match (lo, hi) {
                    (Some(lo), Some(hi)) => format!("{}..={}", number(lo), number(hi)),
                    (Some(lo), None) => format!("at least {}", number(lo)),
                    (_, Some(hi)) => format!("at most {}", number(hi)),
                    _ => String::new(),
                };
                let what = doc_line(s);
                let what = what.split(". ").next().unwrap_or("").trim_end_matches('.');
                let field = path.rsplit(['.', '[']).next().unwrap_or(path);
                let what = if what.is_empty() { format!("`{field}`") } else { format!("`{field}` ({what})") };
                return Err(Error::config(path, format!("{} is out of range: {what} must be {range}", number(v))));
            }
            Ok(())
        }
        Value::Array(items) => {
            let item = s.get("items").or_else(|| alternatives(s).into_iter().find_map(|a| resolve(a).get("items")));
            if let Some(item) = item {
                for (i, x) in items.iter().enumerate() {
                    within(item, x, &format!("{path}[{i}]"))?;
                }
            }
            Ok(())
        }
        Value::Object(map) => {
            // The alternative that describes this table: by its `type`, else the one with
            // properties.
            let alts = alternatives(s);
            let tag = map.get("type").and_then(Value::as_str);
            let chosen =
                alts.iter().find(|a| tag.is_some() && tag_of(a) == tag).or_else(|| alts.iter().find(|a| !properties(a).0.is_empty()));
            let Some(chosen) = chosen else { return Ok(()) };
            let (props, _) = properties(chosen);
            for (k, x) in map {
                if let Some((_, p)) = props.iter().find(|(name, _)| name == k) {
                    let sub = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    within(p, x, &sub)?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// Every tagged family member the reference lists parses under its family's key (a
    /// missing required field is fine; an unknown variant would be drift).
    #[test]
    fn every_listed_name_parses() {
        let listed: Vec<Entry> = all().into_iter().filter(|e| e.family != "table").collect();
        assert!(listed.len() > 40, "the families list their members: {}", listed.len());
        for e in listed {
            let key = FAMILIES.iter().find(|f| f.1 == e.family).unwrap().0;
            let text = format!("[{key}]\ntype = \"{}\"", e.name);
            if let Err(err) = Config::from_toml(&text, &[]) {
                let msg = err.to_string();
                assert!(!msg.contains("unknown variant"), "{}/{} is listed but not parsed: {msg}", e.family, e.name);
            }
        }
    }

    /// Every type the parser accepts is listed: an unknown name's error lists the valid
    /// choices, and each must appear in the reference.
    #[test]
    fn every_parsed_name_is_listed() {
        let names: Vec<String> = all().iter().map(|e| e.name.clone()).collect();
        for &(key, fam, _) in FAMILIES {
            let err = Config::from_toml(&format!("[{key}]\ntype = \"no_such_thing\""), &[]).unwrap_err().to_string();
            let listed = err.split("expected").nth(1).unwrap_or_else(|| panic!("{fam}: {err}"));
            let choices: Vec<&str> = listed.split('`').skip(1).step_by(2).collect();
            assert!(choices.len() >= 2, "{fam}: {err}");
            for choice in choices {
                assert!(names.iter().any(|n| n == choice), "{fam}: parser accepts `{choice}` but the reference does not list it");
            }
        }
    }

    /// Hand-worked rows: a field's declared default, range and kind reach the reference.
    #[test]
    fn the_reference_shows_declared_defaults_and_ranges() {
        let iq = all().into_iter().find(|e| e.family == "router" && e.name == "input_queued").unwrap();
        let vcs = iq.params.iter().find(|p| p.name == "vcs").unwrap();
        assert_eq!((vcs.kind.as_str(), vcs.default.as_str()), ("integer 1..=16", "4"));
        let fc = iq.params.iter().find(|p| p.name == "flow_control").unwrap();
        assert_eq!((fc.kind.as_str(), fc.default.as_str()), ("one of wormhole, virtual_cut_through", "wormhole"));
        let torus = all().into_iter().find(|e| e.family == "topology" && e.name == "torus").unwrap();
        let dims = torus.params.iter().find(|p| p.name == "dims").unwrap();
        assert_eq!(dims.default, "required");
        let sim = all().into_iter().find(|e| e.name == "sim").unwrap();
        assert!(sim.params.iter().any(|p| p.name == "warmup" && p.default == "1000"), "{:?}", sim.params);
    }

    /// A number outside its declared range is refused, naming the key path and the range;
    /// one inside is not.
    #[test]
    fn declared_ranges_are_checked() {
        let mut c = Config::default();
        assert!(check_ranges(&c).is_ok());
        if let crate::router::RouterConfig::InputQueued(iq) = &mut c.router {
            iq.vcs = 17;
        }
        let e = check_ranges(&c).unwrap_err().to_string();
        assert!(e.contains("router.vcs") && e.contains("17 is out of range") && e.contains("1..=16"), "{e}");
    }
}
