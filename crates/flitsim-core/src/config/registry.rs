//! The component registry: every pluggable component declares its name, summary and
//! parameters beside its code; `flitsim list` prints this, and tests check that every
//! registered name parses and every parser variant is registered, so they cannot drift.

/// One registered component.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Entry {
    /// Family: topology, routing, router, pattern, injection, ...
    pub family: &'static str,
    /// The `type = "..."` name used in config.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// `(parameter, default, doc)`.
    pub params: &'static [(&'static str, &'static str, &'static str)],
}

/// Every registered component, family by family.
pub fn all() -> Vec<Entry> {
    let mut v = Vec::new();
    v.extend_from_slice(crate::topology::REGISTRY);
    v.extend_from_slice(crate::routing::REGISTRY);
    v.extend_from_slice(crate::router::REGISTRY);
    v
}
