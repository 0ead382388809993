//! Deadlock diagnosis: a cycle in the wait-for graph of blocked buffers, for the router
//! families that have one ([`WaitGraph`]: input-queued and buffered-crossbar; the central
//! router's deadlocks are resolved by Duato's escape VCs or Disha, and the crosspoint
//! switch is deadlock-free by its node-order VCs).
//!
//! When the watchdog fires, every buffer holding flits waits for something (each family
//! says what); a cycle in this graph is the cycle of waiting channels that the report
//! names.

use super::Simulation;
use crate::error::{Error, Result};
use crate::link::{Channels, Flit};
use crate::router::RouterFamily;
pub use crate::router::WaitGraph;

/// A cycle of blocked nodes (input VCs of input-queued routers), if the wait-for graph
/// has one.
pub fn wait_cycle<G: WaitGraph + ?Sized>(g: &G, ch: &Channels) -> Option<Vec<usize>> {
    cycle_among(g, ch, &|i| g.front(i).is_some())
}

/// The front flit of every node, to compare a watchdog period later.
pub fn fronts<G: WaitGraph + ?Sized>(g: &G) -> Vec<Option<Flit>> {
    (0..g.nodes()).map(|i| g.front(i)).collect()
}

/// A **partial deadlock**: a cycle of nodes that wait for each other and none of which
/// has moved since `before` was taken ([`fronts`] a watchdog period ago: the same flit
/// still at the front). No member can move until the next one does, so they never will,
/// even while the rest of the network keeps moving (which hides the deadlock from the
/// network-wide watchdog).
pub fn stuck_cycle<G: WaitGraph + ?Sized>(g: &G, ch: &Channels, before: &[Option<Flit>]) -> Option<Vec<usize>> {
    cycle_among(g, ch, &|i| {
        let f = g.front(i);
        f.is_some() && before.get(i).copied().flatten() == f
    })
}

/// A cycle in the wait-for graph restricted to the nodes `member` accepts.
fn cycle_among<G: WaitGraph + ?Sized>(g: &G, ch: &Channels, member: &dyn Fn(usize) -> bool) -> Option<Vec<usize>> {
    let n = g.nodes();
    // 0 = unvisited, 1 = on the DFS stack, 2 = done.
    let mut color = vec![0u8; n];
    let mut succ = Vec::new();
    for start in 0..n {
        if color[start] != 0 || !member(start) {
            continue;
        }
        // Iterative DFS: stack of (node, successor list, next index).
        let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        g.waits(ch, start, &mut succ);
        stack.push((start, succ.clone(), 0));
        color[start] = 1;
        while let Some(top) = stack.last_mut() {
            if top.2 == top.1.len() {
                color[top.0] = 2;
                stack.pop();
                continue;
            }
            let next = top.1[top.2];
            top.2 += 1;
            if !member(next) {
                continue;
            }
            match color[next] {
                0 => {
                    color[next] = 1;
                    g.waits(ch, next, &mut succ);
                    stack.push((next, succ.clone(), 0));
                }
                1 => {
                    let pos = stack.iter().position(|f| f.0 == next).unwrap();
                    return Some(stack[pos..].iter().map(|f| f.0).collect());
                }
                _ => {}
            }
        }
    }
    None
}

impl Simulation {
    /// Once per watchdog period: a cycle of waiting buffers whose fronts have not moved
    /// since the last period is a partial deadlock; otherwise the fronts to compare next.
    pub(super) fn partial_check(&self, g: &dyn crate::router::WaitGraph) -> Result<Option<Vec<Option<crate::link::Flit>>>> {
        if let Some(cycle) = self.fronts.as_deref().and_then(|before| stuck_cycle(g, &self.channels, before)) {
            let topo = &self.spec.topology;
            let mut names: Vec<String> = cycle.iter().map(|&i| g.node_name(topo, i)).collect();
            names.push(g.node_name(topo, cycle[0]));
            let period = self.spec.config.sim.watchdog;
            return Err(Error::PartialDeadlock {
                cycle: self.now,
                period,
                buffered: self.in_network(),
                blocked: format!("  cycle of waiting channels ({} buffers, front flits unmoved): {}", cycle.len(), names.join(" -> ")),
            });
        }
        Ok((self.in_network() > 0).then(|| fronts(g)))
    }

    pub(super) fn deadlock_error(&self, idle: u64) -> Error {
        let topo = &self.spec.topology;
        let r = &self.routers;
        let (p_n, v_n) = (r.ports(), r.vcs());
        let mut lines = Vec::new();
        let mut count = 0;
        for router in 0..topo.num_routers {
            for p in 0..p_n {
                for v in 0..v_n {
                    let len = r.input_len(router, p, v);
                    if len == 0 {
                        continue;
                    }
                    count += 1;
                    if lines.len() < 24 {
                        let f = r.input_front(router, p, v).expect("non-empty");
                        let arena = self.parallel.as_ref().and_then(|p| p.arena_of(router)).unwrap_or(&self.packets);
                        let pk = arena.get(f.pid);
                        let why = r.describe_wait(router, p, v, self.now);
                        lines.push(format!(
                            "  router {} in-port {} vc{}: {} flits, front = packet {} ({} -> {}) flit {}/{}{}{}",
                            topo.router_name(router),
                            topo.port_name(p),
                            v,
                            len,
                            f.pid,
                            pk.src,
                            pk.dst,
                            f.idx,
                            f.last,
                            if why.is_empty() { "" } else { "; " },
                            why
                        ));
                    }
                }
            }
            if lines.len() < 24 {
                for l in r.describe(router, self.now).into_iter().take(8) {
                    lines.push(format!("  router {}: {l}", topo.router_name(router)));
                }
            }
        }
        if count > lines.len() {
            lines.push(format!("  ... and {} more blocked VCs", count - lines.len()));
        }
        if let Some(g) = r.wait_graph() {
            match wait_cycle(g, &self.channels) {
                Some(cycle) => {
                    let mut names: Vec<String> = cycle.iter().map(|&i| g.node_name(topo, i)).collect();
                    names.push(g.node_name(topo, cycle[0]));
                    lines.insert(0, format!("  cycle of waiting channels ({} {}): {}", cycle.len(), g.node_kind(), names.join(" -> ")));
                }
                None => lines.insert(0, "  no cycle found in the wait-for graph (a livelock or a chain blocked on something else)".into()),
            }
        }
        Error::Deadlock { cycle: self.now, idle, buffered: self.in_network(), blocked: lines.join("\n") }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::error::Error;

    /// A ring without datelines deadlocks; the report names a cycle that goes all the way
    /// round the ring through VC 0.
    #[test]
    fn ring_deadlock_names_the_cycle_of_waiting_channels() {
        let text = r#"
[topology]
type = "torus"
dims = [8]
[router]
vcs = 1
buffer_depth = 2
[routing]
type = "dor"
datelines = false
[traffic]
load = 0.9
packet_size = 8
pattern = { type = "tornado" }
[sim]
warmup = 0
measure = 20000
watchdog = 200
"#;
        let spec = Config::from_toml(text, &[]).unwrap().validate().unwrap();
        let err = crate::sim::Simulation::run_spec(spec).unwrap_err();
        let Error::Deadlock { blocked, .. } = err else { panic!("expected a deadlock, got {err}") };
        assert!(blocked.contains("cycle of waiting channels"), "{blocked}");
        // All 8 routers of the ring appear in the cycle (tornado waits all the way round).
        let cycle_line = blocked.lines().find(|l| l.contains("cycle of waiting channels")).unwrap();
        let hops = cycle_line.matches("->").count();
        assert!(hops >= 8, "{cycle_line}");
    }

    /// A deadlock among a few VCs while the rest of the network keeps moving: the routes
    /// around two failed links of a 4x4x4 torus with one dateline node per dimension,
    /// where the route check finds a dependency cycle, run anyway. The cycle wedges within a few hundred
    /// cycles while packets elsewhere still arrive (so the network-wide watchdog stays
    /// quiet); the partial-deadlock check names a cycle of unmoved VCs instead of letting
    /// the run end as "saturated". Without the failures the same traffic runs clean.
    #[test]
    fn a_partial_deadlock_is_found_while_other_flits_move() {
        partial_deadlock_with("vcs = 2", 0.3);
    }

    /// The same in buffered-crossbar routers, whose wait-for graph also holds the
    /// staging buffers: the cycle it names passes through them.
    #[test]
    fn a_partial_deadlock_is_found_in_buffered_crossbar_routers() {
        let blocked = partial_deadlock_with("type = \"buffered_crossbar\"\nvcs = 2", 0.5);
        assert!(blocked.contains("staging"), "{blocked}");
    }

    fn partial_deadlock_with(router: &str, load: f64) -> String {
        let text = format!(
            "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[router]\n{router}\n\
                    [routing]\ntype = \"table\"\nvc_policy = \"v3\"\ndateline = [3, 3, 0]\nring_datelines = \"dimension\"\n\
                    [traffic]\nload = {load}\n[sim]\nwarmup = 300\nmeasure = 20000\nwatchdog = 300\n"
        );
        let faulty = format!("{text}[faults]\nlinks = [[5, 4], [30, 4]]\nunroutable = \"skip\"\ncyclic_routes = \"run\"\n");
        let spec = Config::from_toml(&faulty, &[]).unwrap().validate().unwrap();
        let mut sim = crate::sim::Simulation::new(spec).unwrap();
        let err = (0..20_000).find_map(|_| sim.step().err()).expect("no deadlock reported in 20,000 cycles");
        let Error::PartialDeadlock { cycle, blocked, .. } = err else { panic!("expected a partial deadlock, got {err}") };
        // Found at a watchdog period, long before the 20,300 cycles planned.
        assert!(cycle % 300 == 0 && cycle < 20_000, "{cycle}");
        assert!(blocked.contains("cycle of waiting channels") && blocked.contains(" -> "), "{blocked}");
        // Packets were still being delivered in the last period before it was found.
        assert!(sim.counters.last_delivery + 300 > cycle, "last delivery {} at {cycle}", sim.counters.last_delivery);
        // The same traffic without the failures runs to the end.
        let spec = Config::from_toml(&text.replace("measure = 20000", "measure = 3000"), &[]).unwrap().validate().unwrap();
        assert!(crate::sim::Simulation::run_spec(spec).is_ok());
        blocked
    }
}
