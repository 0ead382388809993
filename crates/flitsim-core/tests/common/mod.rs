//! Helpers shared by the integration tests (each test file that needs them declares
//! `mod common;`).

use std::path::Path;

use flitsim_core::config::{Config, Spec};
use flitsim_core::routing::table::{rule, TableRouting};
use flitsim_core::routing::RoutingFunction;

/// The table set of `toml` (table routing under an XT VC policy) with every VC rule
/// rewritten to the upper VC, written to `file`: a packet passing a dateline node then
/// arrives there on VC1, which the XT router drops. Returns the config's spec and the
/// rewritten tables.
pub fn write_upper_vc_tables(toml: &str, file: &Path) -> (Spec, TableRouting) {
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let RoutingFunction::Table(t) = &spec.routing else { panic!("table routing") };
    let mut bad = (**t).clone();
    for e in bad.entries_mut() {
        if e.vc != rule::ANY {
            e.vc = rule::UPPER;
        }
    }
    std::fs::write(file, bad.to_bytes(&spec.topology)).unwrap();
    (spec, bad)
}
