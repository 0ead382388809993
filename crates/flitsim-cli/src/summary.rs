//! Human-readable text for reports and topology summaries.

use std::fmt::Write;

use flitsim_core::report::Report;
use flitsim_core::stats::LatencyStats;
use flitsim_core::topology::TopologySummary;

/// Topology summary as aligned text.
pub fn topology_text(s: &TopologySummary) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "topology            {}", s.description);
    let _ = writeln!(o, "nodes               {}", s.nodes);
    let _ = writeln!(o, "routers             {}", s.routers);
    let _ = writeln!(o, "router radix        {} ports", s.router_radix);
    let _ = writeln!(o, "channels            {} (unidirectional, router to router)", s.channels);
    let _ = writeln!(o, "diameter            {} hops", s.diameter);
    let _ = writeln!(o, "average hops        {:.4} (uniform incl. self), {:.4} (distinct pairs)", s.avg_hops, s.avg_hops_distinct);
    let _ = writeln!(o, "bisection channels  {} ({})", s.bisection_channels, s.bisection_note);
    let _ = writeln!(
        o,
        "uniform bound       {:.4} flits/node/cycle (bisection {:.4}, busiest channel on the routes {:.4})",
        s.uniform_bisection_bound.min(s.uniform_channel_bound),
        s.uniform_bisection_bound,
        s.uniform_channel_bound
    );
    o
}

fn latency_line(name: &str, l: &LatencyStats) -> String {
    if l.count == 0 {
        // (Zeros here would read as a measured latency of 0 cycles.)
        return format!("{name:<17} none: no packet was measured (n=0)");
    }
    format!(
        "{name:<17} mean {:>9.2}  p50 {:>6}  p90 {:>6}  p99 {:>6}  p99.9 {:>6}  max {:>7}  (n={})",
        l.mean, l.p50, l.p90, l.p99, l.p999, l.max, l.count
    )
}

/// A run's summary.
pub fn report_text(r: &Report, wall_secs: Option<f64>) -> String {
    let mut o = String::new();
    let st = &r.stats;
    let _ = writeln!(o, "flitsim {}  seed {}  {}", r.version, r.seed, r.topology.description);
    let _ = writeln!(
        o,
        "cycles {} (warm-up {}, window {}..{}, drained to {})",
        r.cycles, r.config.sim.warmup, st.window.0, st.window.1, r.cycles
    );
    let _ = writeln!(o, "offered load      {:.4} flits/node/cycle", st.offered);
    let _ = writeln!(
        o,
        "accepted          {:.4} flits/node/cycle (min {:.4}, max {:.4}, Jain {:.4})",
        st.accepted.mean, st.accepted.min, st.accepted.max, st.accepted.jain
    );
    let _ = writeln!(
        o,
        "per source        mean {:.4}  min {:.4}  max {:.4}  Jain {:.4}",
        st.per_source.mean, st.per_source.min, st.per_source.max, st.per_source.jain
    );
    if st.saturated {
        let _ = writeln!(o, "SATURATED: latency is not meaningful at this load:");
        for reason in &st.saturation_reasons {
            let _ = writeln!(o, "  - {reason}");
        }
    } else {
        let _ = writeln!(o, "{}", latency_line("packet latency", &st.packet_latency));
        let _ = writeln!(o, "{}", latency_line("network latency", &st.network_latency));
    }
    let _ =
        writeln!(o, "average hops      {:.3}   packets measured {}  delivered {}", st.avg_hops, st.packets_measured, st.packets_delivered);
    let c = &r.counters;
    if c.packets_lost > 0 {
        let _ = writeln!(
            o,
            "LOST              {} packets ({} flits, {} of them measured) to failures or dateline drops (counters.packets_lost)",
            c.packets_lost, c.flits_lost, c.measured_lost
        );
    }
    if let Some(d) = r.dateline_drops.as_ref().filter(|d| d.packets > 0) {
        let first = d.first.map_or(String::new(), |e| {
            format!("; first at cycle {}, router {} input port {} vc{}, packet {} -> {}", e.cycle, e.router, e.port, e.vc, e.src, e.dst)
        });
        let _ = writeln!(o, "DATELINE DROPS    {} packets arrived at a dateline node on VC1 and were dropped, a table error (routing.dateline_errors){first}", d.packets);
    }
    if let Some(u) = &r.units {
        let mut line = format!(
            "in bytes          {} B/flit: offered {:.2}, accepted {:.2} B/node/cycle",
            u.flit_bytes, u.offered_bytes_per_cycle, u.accepted_bytes_per_cycle
        );
        if let (Some(c), Some([mean, min, max])) = (u.cycle_ns, u.accepted_mb_per_s) {
            line += &format!("; cycle {c:.3} ns, accepted {mean:.1} MB/s/node (min {min:.1}, max {max:.1})");
        }
        let _ = writeln!(o, "{line}");
    }
    if let Some(m) = &r.messages {
        let _ = writeln!(
            o,
            "messages          {} B in {} packets ({} flits): {} created, {} delivered, {} incomplete; latency mean {:.1} (min {}, max {}) cycles, last done at {}",
            m.bytes, m.packets, m.flits, m.created, m.delivered, m.incomplete, m.latency_mean, m.latency_min, m.latency_max, m.completion
        );
        let f = &m.flow_bandwidth;
        let mut line = format!("  per flow        {} flows: mean {:.3}, min {:.3}, max {:.3} B/cycle", f.flows, f.mean, f.min, f.max);
        if let Some(b) = &m.flow_mib_per_s {
            line += &format!(" = mean {:.1}, min {:.1}, max {:.1} MiB/s", b.mean, b.min, b.max);
        }
        let _ = writeln!(o, "{line}");
    }
    if let Some(t) = &r.trace {
        let mut line =
            format!("trace             {} messages ({} flits): {} created, {} completed", t.messages, t.flits, t.created, t.completed);
        for (n, what) in [(t.incomplete, "incomplete"), (t.not_created, "not created"), (t.unroutable, "unroutable")] {
            if n > 0 {
                line += &format!(", {n} {what}");
            }
        }
        line += &format!("; message latency mean {:.1} (min {}, max {}) cycles; ", t.latency_mean, t.latency_min, t.latency_max);
        line += &if t.completed == t.messages {
            format!("all done at cycle {}", t.completion)
        } else {
            format!("last done at cycle {} (not all done)", t.completion)
        };
        let _ = writeln!(o, "{line}");
        if let Some(a) = &t.app {
            let ns = a.time_ns.map(|n| format!(" = {:.1} us", n / 1e3)).unwrap_or_default();
            let _ = writeln!(
                o,
                "application       {} ranks ({} placement): run time {} cycles{ns}, slowest rank {}, mean rank finish {:.0}",
                a.ranks, a.placement, a.time_cycles, a.slowest_rank, a.finish_mean
            );
            if let Some(m) = &a.measured {
                let _ = writeln!(
                    o,
                    "  measured        on the traced machine: longest rank {:.1} us, in MPI at most {:.1} us (mean {:.1} us)",
                    m.span_ns_max as f64 / 1e3,
                    m.mpi_ns_max as f64 / 1e3,
                    m.mpi_ns_mean / 1e3
                );
            }
            // A time in cycles, and in us when the cycle time is known.
            let cycle_ns = a.time_ns.map(|n| n / a.time_cycles.max(1) as f64);
            let time = |c: f64| match cycle_ns {
                Some(ns) => format!("{c:.0} cycles = {:.1} us", c * ns / 1e3),
                None => format!("{c:.0} cycles"),
            };
            if a.compute_max > 0 {
                let _ = writeln!(o, "  computation     per rank mean {}, max {}", time(a.compute_mean), time(a.compute_max as f64));
            }
            for c in &a.calls {
                let how = match (&c.algorithm, c.calls) {
                    (Some(alg), n) => format!("{n} calls by {alg}, "),
                    (None, _) => String::new(),
                };
                let _ = writeln!(
                    o,
                    "  {:<15} {how}{} messages ({} flits), latency mean {:.1}, max {} cycles; time per rank mean {}, max {}",
                    c.call,
                    c.messages,
                    c.flits,
                    c.latency_mean,
                    c.latency_max,
                    time(c.time_mean),
                    time(c.time_max as f64)
                );
            }
        }
    }
    if r.phases.len() > 1 {
        for p in &r.phases {
            let _ = writeln!(
                o,
                "phase {:<3} cycles {}..{} offered {:.3}, delivered {} flits",
                p.index, p.start, p.end, p.offered, p.delivered_flits
            );
        }
    }
    if !st.timeline.is_empty() {
        let accepted: Vec<f64> = st.timeline.iter().map(|b| b.accepted).collect();
        let (_, _, max) = crate::series::range(&accepted);
        let _ = writeln!(
            o,
            "accepted per {} cycles, 0..{max:.3} (stats.timeline): {}",
            r.config.stats.timeline,
            crate::series::sparkline(&accepted, 60)
        );
    }
    if let Some(c) = &r.router_counters {
        let _ = writeln!(o, "router counters (Table 4 of the SeaStar aging paper, summed per port direction):");
        let _ = writeln!(o, "  port   stalled  occupancy  packets   blocked/VC          ages 0-63/64-127/128-191/192-255");
        for p in &c.ports {
            let pkts: u64 = p.vc_pkts.iter().sum();
            let blocked: Vec<String> = p.vc_blocked.iter().map(|b| b.to_string()).collect();
            let ages: Vec<String> = p.age_groups.iter().map(|b| b.to_string()).collect();
            let _ = writeln!(
                o,
                "  {:<5} {:>8} {:>10.2} {:>8}   {:<19} {}",
                p.port,
                p.stalled,
                p.occupancy,
                pkts,
                blocked.join("/"),
                ages.join("/")
            );
        }
        let q: Vec<String> = c.queueing.iter().map(|d| format!("{} {:.1}", d.dim, d.mean_cycles)).collect();
        let _ = writeln!(o, "  queueing per hop (cycles, arrival to hand-off): {}", q.join(", "));
    }
    if let Some(s) = wall_secs {
        let _ = writeln!(
            o,
            "simulated in {:.2} s: {:.0} cycles/s, {:.2} M flit-hops/s",
            s,
            r.cycles as f64 / s,
            r.counters.flit_traversals as f64 / s / 1e6
        );
    }
    o
}
