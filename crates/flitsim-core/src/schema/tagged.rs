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
/// So a tagged family is declared with `#[serde(remote = "Self")]` ([`Tagged`]) and read
/// here in its externally tagged form (`{ name = { key = ... } }`), which serde tracks
/// field by field. Errors inside the table carry their key path at the front of the
/// message (see [`PATH_MARK`]); `family` names the table in messages ("topology",
/// "traffic pattern", ...). `default_type` is used when the table has no `type` key: give
/// it only for a family with a single, obvious choice (so `--set router.vcs=2` works
/// without `router.type`).
pub(crate) fn deserialize_tagged<'de, D, T>(deserializer: D, family: &str, default_type: Option<&str>) -> std::result::Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Tagged,
{
    use serde::de::Error as _;
    let value = toml::Value::deserialize(deserializer)?;
    let names = || variant_names::<External<T>>();
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
    let first_key = table.keys().next().cloned();
    let mut external = toml::Table::new();
    external.insert(tag.clone(), toml::Value::Table(table));
    serde_path_to_error::deserialize::<_, External<T>>(toml::Value::Table(external)).map(|e| e.0).map_err(|e| {
        let (nested, mut message) = split_marked(&without_context(&e.inner().to_string()));
        let mut path = join_path(&path_string(e.path()), &nested);
        if path.is_empty() && message.starts_with("unknown variant") {
            path = "type".into();
        }
        if message == "expected empty table" {
            // A variant without fields given some: name the first stray key.
            let key = first_key.clone().unwrap_or_default();
            path = join_path(&path, &key);
            message = format!("unknown field `{key}`: type \"{tag}\" takes no other keys");
        }
        D::Error::custom(mark_path(&path, &message))
    })
}

/// A tagged config family: an enum declared once with `#[serde(remote = "Self")]`, so that
/// serde derives its externally tagged form as inherent functions, and whose `Serialize`
/// and `Deserialize` ([`tagged_serde!`](crate::schema::tagged_serde)) write and read the
/// internally tagged table `{ type = "name", ... }` through them: the type's variants
/// and fields are declared once, and errors inside a table keep their key path.
pub(crate) trait Tagged: Sized {
    /// The externally tagged form serde derives (`{ name = { key = ... } }`).
    fn serialize_external<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error>;
    /// Read the externally tagged form.
    fn deserialize_external<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error>;
}

/// `T` read in its externally tagged form, for [`deserialize_tagged`].
struct External<T>(T);

impl<'de, T: Tagged> Deserialize<'de> for External<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        T::deserialize_external(deserializer).map(External)
    }
}

/// Write `value` as an internally tagged table: `type = "variant"` first, then the
/// variant's fields (a struct variant's, or those of the struct a newtype variant holds).
pub(crate) fn serialize_tagged<T: Tagged, S: serde::Serializer>(value: &T, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    value.serialize_external(ser::Variant(serializer))
}

/// The serializers behind [`serialize_tagged`]: [`ser::Variant`] turns the variant serde
/// announces into a struct that starts with its `type`, [`ser::Inner`] the struct a newtype
/// variant holds into the same; anything else is not a config table and an error.
mod ser {
    use serde::ser::{Error, Impossible, Serialize, SerializeStruct, SerializeStructVariant, Serializer};

    pub(super) struct Variant<S>(pub(super) S);
    struct Inner<S> {
        serializer: S,
        tag: &'static str,
    }
    pub(super) struct Fields<T>(T);

    fn refuse<E: Error>() -> E {
        E::custom("a tagged config table holds a unit, struct or newtype-of-struct variant")
    }

    impl<T: SerializeStruct> SerializeStructVariant for Fields<T> {
        type Ok = T::Ok;
        type Error = T::Error;
        fn serialize_field<V: ?Sized + Serialize>(&mut self, key: &'static str, value: &V) -> Result<(), T::Error> {
            self.0.serialize_field(key, value)
        }
        fn skip_field(&mut self, key: &'static str) -> Result<(), T::Error> {
            self.0.skip_field(key)
        }
        fn end(self) -> Result<T::Ok, T::Error> {
            self.0.end()
        }
    }

    /// The serializer methods that refuse: every kind of value but those listed.
    macro_rules! refuse_all {
        ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
            $(fn $method(self, $(_: $arg),*) -> Result<$ret, Self::Error> { Err(refuse()) })*
        };
    }

    macro_rules! refuse_values {
        () => {
            refuse_all! {
                serialize_bool(bool) -> Self::Ok;
                serialize_i8(i8) -> Self::Ok;
                serialize_i16(i16) -> Self::Ok;
                serialize_i32(i32) -> Self::Ok;
                serialize_i64(i64) -> Self::Ok;
                serialize_u8(u8) -> Self::Ok;
                serialize_u16(u16) -> Self::Ok;
                serialize_u32(u32) -> Self::Ok;
                serialize_u64(u64) -> Self::Ok;
                serialize_f32(f32) -> Self::Ok;
                serialize_f64(f64) -> Self::Ok;
                serialize_char(char) -> Self::Ok;
                serialize_str(&str) -> Self::Ok;
                serialize_bytes(&[u8]) -> Self::Ok;
                serialize_none() -> Self::Ok;
                serialize_unit() -> Self::Ok;
                serialize_unit_struct(&'static str) -> Self::Ok;
                serialize_seq(Option<usize>) -> Self::SerializeSeq;
                serialize_tuple(usize) -> Self::SerializeTuple;
                serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
                serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
                serialize_map(Option<usize>) -> Self::SerializeMap;
            }
            fn serialize_some<V: ?Sized + Serialize>(self, _: &V) -> Result<Self::Ok, Self::Error> {
                Err(refuse())
            }
            fn serialize_newtype_struct<V: ?Sized + Serialize>(self, _: &'static str, _: &V) -> Result<Self::Ok, Self::Error> {
                Err(refuse())
            }
        };
    }

    impl<S: Serializer> Serializer for Variant<S> {
        type Ok = S::Ok;
        type Error = S::Error;
        type SerializeSeq = Impossible<S::Ok, S::Error>;
        type SerializeTuple = Impossible<S::Ok, S::Error>;
        type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
        type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
        type SerializeMap = Impossible<S::Ok, S::Error>;
        type SerializeStruct = Impossible<S::Ok, S::Error>;
        type SerializeStructVariant = Fields<S::SerializeStruct>;

        refuse_values!();
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, S::Error> {
            Err(refuse())
        }
        fn serialize_unit_variant(self, name: &'static str, _: u32, variant: &'static str) -> Result<S::Ok, S::Error> {
            let mut table = self.0.serialize_struct(name, 1)?;
            table.serialize_field("type", variant)?;
            table.end()
        }
        fn serialize_newtype_variant<V: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
            value: &V,
        ) -> Result<S::Ok, S::Error> {
            value.serialize(Inner { serializer: self.0, tag: variant })
        }
        fn serialize_struct_variant(
            self,
            name: &'static str,
            _: u32,
            variant: &'static str,
            len: usize,
        ) -> Result<Self::SerializeStructVariant, S::Error> {
            let mut table = self.0.serialize_struct(name, len + 1)?;
            table.serialize_field("type", variant)?;
            Ok(Fields(table))
        }
    }

    impl<S: Serializer> Serializer for Inner<S> {
        type Ok = S::Ok;
        type Error = S::Error;
        type SerializeSeq = Impossible<S::Ok, S::Error>;
        type SerializeTuple = Impossible<S::Ok, S::Error>;
        type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
        type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
        type SerializeMap = Impossible<S::Ok, S::Error>;
        type SerializeStruct = S::SerializeStruct;
        type SerializeStructVariant = Impossible<S::Ok, S::Error>;

        refuse_values!();
        fn serialize_struct(self, name: &'static str, len: usize) -> Result<S::SerializeStruct, S::Error> {
            let mut table = self.serializer.serialize_struct(name, len + 1)?;
            table.serialize_field("type", self.tag)?;
            Ok(table)
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<S::Ok, S::Error> {
            Err(refuse())
        }
        fn serialize_newtype_variant<V: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &V,
        ) -> Result<S::Ok, S::Error> {
            Err(refuse())
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, S::Error> {
            Err(refuse())
        }
    }
}

/// `Serialize` and `Deserialize` for a [`Tagged`] family declared with
/// `#[serde(remote = "Self")]`: `tagged_serde!(Type, "family name in messages",
/// default type or None)`.
macro_rules! tagged_serde {
    ($ty:ty, $family:literal, $default:expr) => {
        impl $crate::schema::tagged::Tagged for $ty {
            fn serialize_external<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
                <$ty>::serialize(self, serializer)
            }
            fn deserialize_external<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
                <$ty>::deserialize(deserializer)
            }
        }
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
                $crate::schema::tagged::serialize_tagged(self, serializer)
            }
        }
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
                $crate::schema::tagged::deserialize_tagged(deserializer, $family, $default)
            }
        }
    };
}
pub(crate) use tagged_serde;

#[cfg(test)]
mod tests {
    use crate::router::RouterConfig;
    use crate::topology::TopologyConfig;
    use crate::traffic::{InjectionConfig, PatternConfig};

    /// The three kinds of variant written as internally tagged tables, `type` first, as
    /// serde's own internal tagging writes them (hand-written expected JSON).
    #[test]
    fn tagged_tables_are_written_type_first() {
        let json = |v: &dyn Erased| v.json();
        // A unit variant: only its type.
        assert_eq!(json(&PatternConfig::Uniform), r#"{"type":"uniform"}"#);
        assert_eq!(json(&InjectionConfig::Backlogged), r#"{"type":"backlogged"}"#);
        // A struct variant: its fields after the type, in declaration order.
        assert_eq!(
            json(&TopologyConfig::Torus { dims: vec![2, 3], concentration: 1 }),
            r#"{"type":"torus","dims":[2,3],"concentration":1}"#
        );
        assert_eq!(json(&InjectionConfig::OnOff { burst_length: 4.0, peak: 1.0 }), r#"{"type":"on_off","burst_length":4.0,"peak":1.0}"#);
        // A newtype variant: the struct it holds, flattened after the type.
        let iq = json(&RouterConfig::default());
        assert!(iq.starts_with(r#"{"type":"input_queued","vcs":4,"buffer_depth":8,"#), "{iq}");
        // And read back as written.
        let torus: TopologyConfig = serde_json::from_str(r#"{"type":"torus","dims":[2,3],"concentration":1}"#).unwrap();
        assert_eq!(torus, TopologyConfig::Torus { dims: vec![2, 3], concentration: 1 });
        assert_eq!(serde_json::from_str::<PatternConfig>(r#"{"type":"uniform"}"#).unwrap(), PatternConfig::Uniform);
        let t: TopologyConfig = toml::from_str("type = \"torus\"\ndims = [2, 3]").unwrap();
        assert_eq!(t, TopologyConfig::Torus { dims: vec![2, 3], concentration: 1 });
    }

    /// Any config value as compact JSON (one helper for the several types above).
    trait Erased {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Erased for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap()
        }
    }
}
