//! `flitsim routes CONFIG --from A --to B`: the path a packet takes, hop by hop, with
//! the output port, the VC and (table-driven routing) the table that answered.

use std::process::ExitCode;

use flitsim_core::routing::table::Lookup;

use crate::common::{load_routes, load_spec, CliResult};
use crate::ConfigArgs;

/// `flitsim routes`.
pub fn cmd_routes(args: &ConfigArgs, from: u32, to: u32, vc: u32, json: bool) -> CliResult<ExitCode> {
    // The routes as built, even for a fault set `run` would refuse: this is how one
    // looks at why.
    let (_, topo, routing, _) = load_routes(args)?;
    let topo = &topo;
    let n = topo.num_nodes;
    for (flag, v) in [("--from", from), ("--to", to)] {
        if v >= n {
            return Err(format!("{flag} {v} is not a node of this network (nodes are 0..{})", n - 1));
        }
    }
    let (lo, hi) = routing.injection_vcs();
    if vc < lo as u32 || vc >= hi as u32 {
        return Err(format!("--vc {vc} is not a VC sources inject on; use {lo}..{}", hi - 1));
    }
    let path = routing.path(topo, from, to, vc).map_err(|e| e.to_string())?;
    if json {
        let hops: Vec<serde_json::Value> = path
            .iter()
            .map(|h| {
                serde_json::json!({
                    "router": h.router,
                    "coords": topo.coords(h.router),
                    "in_port": topo.port_name(h.in_port),
                    "out_port": topo.port_name(h.port),
                    "vc": h.vc,
                    "vc_range": [h.vc_lo, h.vc_hi],
                    "table": h.table.map(|t| match t { Lookup::Local => "local", Lookup::Global => "global" }),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "from": from, "to": to, "hops": path.len() - 1, "path": hops })).unwrap()
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "node {from} at router {} -> node {to} at router {}: {} router-to-router hops (minimal {})",
        topo.router_name(topo.router_of(from)),
        topo.router_name(topo.router_of(to)),
        path.len() - 1,
        topo.node_distance(from, to)
    );
    println!("{:>4}  {:<14} {:<8} {:<8} {:<5} {:<8} table", "hop", "router", "in", "out", "vc", "allowed");
    for (i, h) in path.iter().enumerate() {
        let table = match h.table {
            Some(Lookup::Local) => "local",
            Some(Lookup::Global) => "global",
            None => "-",
        };
        println!(
            "{:>4}  {:<14} {:<8} {:<8} {:<5} {:<8} {table}",
            i,
            topo.router_name(h.router),
            topo.port_name(h.in_port),
            topo.port_name(h.port),
            format!("vc{}", h.vc),
            format!("{}..{}", h.vc_lo, h.vc_hi - 1),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `flitsim vc-balance`: the VC_balance of every link under uniform all-pairs traffic.
pub fn cmd_vc_balance(args: &ConfigArgs, json: bool) -> CliResult<ExitCode> {
    let spec = load_spec(args, true)?;
    let b = flitsim_core::routing::vc_balance::analyse(&spec.routing, &spec.topology, 0, spec.faults.as_ref().map(|f| &*f.mask))
        .map_err(|e| e.to_string())?;
    if json {
        println!("{}", serde_json::to_string_pretty(&b).unwrap());
        return Ok(ExitCode::SUCCESS);
    }
    println!("VC_balance = |P_vc0 - P_vc1| / (P_vc0 + P_vc1) per link, one packet per ordered node pair");
    println!("{:<5} {:>6} {:>8}   links per bin [0,.25] (.25,.5] (.5,.75] (.75,1]", "dim", "links", "mean");
    for d in &b.dims {
        println!(
            "{:<5} {:>6} {:>8.3}   {:>8} {:>8} {:>8} {:>8}",
            d.dim, d.links, d.mean, d.histogram[0], d.histogram[1], d.histogram[2], d.histogram[3]
        );
    }
    let ring: Vec<String> = b.ring.iter().map(|x| format!("{x:.2}")).collect();
    println!("ring of the last dimension through router 0, + links: {}", ring.join(" "));
    Ok(ExitCode::SUCCESS)
}

/// `flitsim routes --check`: the channel dependency graph of every route, and with
/// failures the pairs connected and the path stretch.
pub fn cmd_check(args: &ConfigArgs, json: bool) -> CliResult<ExitCode> {
    let (cfg, topo, routing, faults) = load_routes(args)?;
    let r = match &faults {
        Some(f) => f.check.clone(),
        None => flitsim_core::routing::cdg::check(&routing, &topo, cfg.router.vcs()),
    };
    if json {
        let mut v = serde_json::to_value(&r).unwrap();
        if let Some(f) = &faults {
            v["failed_links"] = serde_json::json!(f.failed.links);
            v["failed_routers"] = serde_json::json!(f.failed.routers);
            v["dateline"] = serde_json::json!(routing.datelines());
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        if let Some(f) = &faults {
            // (Only routes that have datelines name them: tables on a torus.)
            let datelines = routing.datelines().map(|d| format!("; datelines at {d:?}")).unwrap_or_default();
            println!("failures: {} links, {} routers{datelines}", f.failed.links.len(), f.failed.routers.len());
        }
        println!("channel dependency graph: {} (channel, VC) vertices, {} dependencies", r.vertices, r.edges);
        if r.acyclic {
            println!("acyclic: the routes are deadlock-free");
        } else {
            println!("CYCLE of {} dependencies (deadlock possible):", r.cycle.len() - 1);
            println!("  {}", r.cycle.join(" -> "));
            let pairs: Vec<String> = r.cycle_pairs.iter().map(|(s, d)| format!("{s}->{d}")).collect();
            println!("  made by the routes of (source->destination, one per dependency): {}", pairs.join(" "));
        }
        let connected = if r.unreachable_pairs == 0 && r.dropped_pairs == 0 {
            format!("every node pair is connected ({})", r.pairs)
        } else {
            format!(
                "pairs connected: {} of {} ({:.4}%)",
                r.routable_pairs,
                r.pairs,
                100.0 * r.routable_pairs as f64 / r.pairs.max(1) as f64
            )
        };
        println!(
            "{connected}; mean hops {:.3} (minimal without failures {:.3}, stretch {:.4}, at most {} extra)",
            r.mean_hops, r.mean_minimal_hops, r.stretch, r.max_extra_hops
        );
        if r.unreachable_pairs > 0 {
            println!("{} node pairs are NOT connected, e.g.:", r.unreachable_pairs);
            for u in &r.unreachable {
                println!("  {u}");
            }
        }
        if r.dropped_pairs > 0 {
            println!("{} node pairs' packets are DROPPED at a dateline node (they arrive there on VC1 and pass through: a table error, routing.dateline_errors)", r.dropped_pairs);
        }
    }
    Ok(if r.acyclic && r.unreachable_pairs == 0 && r.dropped_pairs == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `flitsim routes CONFIG --write-tables FILE`: the tables the config routes by, as a
/// file `routing.tables` can load.
pub fn cmd_write_tables(args: &ConfigArgs, file: &std::path::Path) -> CliResult<ExitCode> {
    let (_, topo, routing, _) = load_routes(args)?;
    let flitsim_core::routing::RoutingFunction::Table(t) = &routing else {
        return Err("only table-driven routing has tables to write: set routing.type = \"table\"".into());
    };
    let bytes = t.to_bytes(&topo);
    std::fs::write(file, &bytes).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    println!(
        "wrote the tables of {} routers x {} input ports ({} KiB) to {}",
        topo.num_routers,
        topo.ports,
        bytes.len() / 1024,
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}
