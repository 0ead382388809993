//! From a [`Config`] to a [`Spec`]: the network's routes (around failures too), and
//! validation, the ranges and cross-field rules every table's own checks cannot see.

use super::Config;
use crate::error::{Error, Result};
use crate::router::RouterConfig;
use crate::routing::{RoutingConfig, RoutingFunction, SearchProgress};
use crate::topology::Topology;
use crate::traffic::{NodeSpace, Workload};

/// A validated config with the network graph, routing function and workload built.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The config it came from (recorded in the report).
    pub config: Config,
    /// The network graph.
    pub topology: Topology,
    /// The routing function.
    pub routing: RoutingFunction,
    /// The NICs' dispersive route selection on a fat tree (`routing.selection =
    /// "adaptive"` or `"probing"`), with its parameters.
    pub dispersion: Option<crate::endpoint::dispersion::DispersionParams>,
    /// The workload.
    pub workload: Workload,
    /// With `[faults]`: what failed, and the routes around it.
    pub faults: Option<FaultRoutes>,
    /// With `[[faults.at]]`: the links failing during the run, by cycle (the routes to
    /// switch to are in the routing function).
    pub timed_failures: Vec<crate::faults::timed::TimedFailure>,
}

/// The failures of a run and the routes around them.
#[derive(Clone, Debug)]
pub struct FaultRoutes {
    /// What failed.
    pub failed: crate::faults::Failed,
    /// Endpoints whose router failed.
    pub dead: Vec<bool>,
    /// Node pairs the routes connect.
    pub mask: std::sync::Arc<crate::routing::cdg::PairMask>,
    /// The route check: connected pairs, stretch, dependency-graph verdict.
    pub check: crate::routing::cdg::CdgReport,
}

impl Config {
    /// The network's routes: the topology with the `[faults]` applied, the routing
    /// function, and with failures the routes' check — without refusing anything the
    /// check finds (`flitsim routes --check` reports it; [`Config::validate`] refuses).
    pub fn routes(&self) -> Result<(Topology, RoutingFunction, Option<FaultRoutes>)> {
        self.routes_with_progress(&|_| {})
    }

    /// [`Config::routes`], telling `on_progress` how a dateline search around failures
    /// advances (the long part of building routes on a large torus with failures).
    pub fn routes_with_progress(&self, on_progress: &dyn Fn(SearchProgress)) -> Result<(Topology, RoutingFunction, Option<FaultRoutes>)> {
        let mut topology = Topology::build(&self.topology, "topology")?;
        let (routing, faults) = self.routes_on(&mut topology, on_progress)?;
        Ok((topology, routing, faults))
    }

    fn routes_on(&self, topology: &mut Topology, on_progress: &dyn Fn(SearchProgress)) -> Result<(RoutingFunction, Option<FaultRoutes>)> {
        let vcs = self.router.vcs();
        let failed = self.faults.apply(topology, self.seed, "faults")?;
        if failed.is_empty() {
            return Ok((RoutingFunction::build_seeded(&self.routing, topology, vcs, false, self.seed, "routing")?, None));
        }
        let (routing, faults) = self.route_around(topology, vcs, failed, on_progress)?;
        Ok((routing, Some(faults)))
    }

    /// Routes around the failures `failed` already applied to `topology`, checked.
    fn route_around(
        &self,
        topology: &Topology,
        vcs: u32,
        failed: crate::faults::Failed,
        on_progress: &dyn Fn(SearchProgress),
    ) -> Result<(RoutingFunction, FaultRoutes)> {
        let mut down = vec![false; topology.num_routers as usize];
        for &r in &failed.routers {
            down[r as usize] = true;
        }
        let dead: Vec<bool> = (0..topology.num_nodes).map(|e| down[topology.router_of(e) as usize]).collect();
        let (routing, pairs, check) = RoutingFunction::build_around(&self.routing, topology, vcs, &dead, "routing", on_progress)?;
        Ok((routing, FaultRoutes { failed, dead, mask: std::sync::Arc::new(pairs.mask), check }))
    }

    /// The VC buffers the congestion estimate counts: the VCs of every connected network
    /// input port (3,072 in the paper's 16-ary 2-cube with 3 VCs).
    pub fn congestion_buffers(&self, topology: &Topology) -> u32 {
        let connected = topology
            .in_channel
            .iter()
            .enumerate()
            .filter(|&(i, &c)| (i as u32 % topology.ports) < topology.network_ports() && c != crate::topology::NONE)
            .count();
        let vcs = match &self.router {
            RouterConfig::Central(c) => c.vcs,
            other => other.vcs(),
        };
        connected as u32 * vcs
    }

    /// The side-band gather duration g: `congestion.gather`, or the dimension-wise
    /// aggregation time of the topology.
    pub fn gather(&self, topology: &Topology) -> u32 {
        self.congestion
            .gather
            .unwrap_or_else(|| crate::congestion::gather_cycles(&topology.dims, &topology.wrap, self.congestion.hop_delay))
    }

    /// The longest channel latency (router-to-router or endpoint).
    fn longest_wire(&self) -> u32 {
        let ch = &self.channel;
        match &ch.dim_latency {
            Some(dl) => dl.iter().copied().max().unwrap_or(0),
            None => ch.latency,
        }
        .max(ch.endpoint_latency)
        .max(ch.injection_latency())
    }

    /// The longest a flit may legitimately wait between two moves in this network: a head
    /// crossing a router pipeline and then the longest wire, or a flit waiting for a
    /// credit. A network in which no flit has moved for longer is stuck.
    pub fn quiet_cycles(&self) -> u64 {
        u64::from((self.router.pipeline() + self.longest_wire()).max(self.router.credit_delay()))
    }

    /// [`Config::quiet_cycles`] counting the links' own latencies in `topology` too (a
    /// graph's `[a, b, latency]`).
    pub fn quiet_cycles_on(&self, topology: &Topology) -> u64 {
        self.quiet_cycles().max(u64::from(self.router.pipeline() + topology.longest_link()))
    }

    /// Validate everything and build the spec.
    pub fn validate(&self) -> Result<Spec> {
        self.validate_with_progress(&|_| {})
    }

    /// [`Config::validate`], telling `on_progress` how a dateline search around failures
    /// advances (on the XT's 2,112-node torus, about 15 candidates of ~2 s each).
    pub fn validate_with_progress(&self, on_progress: &dyn Fn(SearchProgress)) -> Result<Spec> {
        // The ranges every field declares, first.
        super::reference::check_ranges(self)?;
        let mut topology = Topology::build(&self.topology, "topology")?;
        let space = match topology.shape {
            // No coordinates: patterns see the nodes as one group, as on a crossbar.
            crate::topology::Shape::Kautz | crate::topology::Shape::FatTree | crate::topology::Shape::Graph => {
                NodeSpace::crossbar(topology.num_nodes)
            }
            _ => NodeSpace { num_nodes: topology.num_nodes, dims: topology.dims.clone(), concentration: topology.concentration },
        };
        if self.stats.vc_balance && topology.shape != crate::topology::Shape::Cube {
            return Err(Error::config("stats.vc_balance", crate::routing::vc_balance::ONLY_CUBES));
        }
        let units = crate::link::units::Units::build(self.channel.flit_bytes, self.channel.link_gbps)?;
        let workload = Workload::build_with(&self.traffic, &space, self.seed, units)?;
        let max_packet = workload.size().max();
        let vcs = self.router.vcs();
        // The family's own checks, the routing functions it runs, its input VCs.
        let ch = &self.channel;
        let longest_wire = ch.dim_latency.iter().flatten().copied().chain([ch.latency, topology.longest_link()]).max().unwrap_or(1);
        let cx = crate::router::Validation { topology: &topology, max_packet, longest_wire, injection_latency: ch.injection_latency() };
        self.router.validate(&cx, &self.routing)?;
        if let Some(retry) = &self.channel.retry {
            if !matches!(self.router, RouterConfig::Crosspoint(_)) {
                return Err(Error::config("channel.retry", "link-level retry is modelled on the SiCortex crosspoint switch; set router.type = \"crosspoint\" (Kautz topology, source routing), or remove [channel.retry]"));
            }
            retry.validate("channel.retry")?;
        }
        // (Checked whatever the policy: a field given for a mechanism that is off is
        // refused, not ignored.)
        self.congestion.validate("congestion")?;
        if self.congestion.distribution == crate::congestion::Distribution::Metapackets {
            if !matches!(self.router, RouterConfig::Central(_)) {
                return Err(Error::config(
                    "congestion.distribution",
                    "metapackets travel on the central-arbiter router's links; set router.type = \"central\" and routing.type = \"adaptive\", or distribution = \"sideband\"",
                ));
            }
            if topology.wrap.iter().any(|&w| !w) || topology.dims.len() > crate::congestion::metapacket::MAX_DIMS {
                return Err(Error::config(
                    "congestion.distribution",
                    format!(
                        "metapackets circle the rings of a torus (at most {} dimensions); this topology has a mesh dimension or more dimensions: use a torus, or distribution = \"sideband\"",
                        crate::congestion::metapacket::MAX_DIMS
                    ),
                ));
            }
        }
        if self.congestion.policy != crate::congestion::Policy::None {
            if !matches!(self.router, RouterConfig::Central(_)) {
                return Err(Error::config(
                    "congestion.policy",
                    "source throttling is modelled on the central-arbiter router with adaptive routing; set router.type = \"central\" and routing.type = \"adaptive\", or congestion.policy = \"none\"",
                ));
            }
            // The controller's own checks (threshold range, tuning period, ...).
            crate::congestion::Controller::new(
                &self.congestion,
                self.congestion_buffers(&topology),
                self.gather(&topology),
                topology.num_nodes,
            )?;
        }
        if !self.faults.at.is_empty() {
            let crosspoint_with_retry = matches!(self.router, RouterConfig::Crosspoint(_)) && self.channel.retry.is_some();
            crate::faults::timed::check_setup(&topology, crosspoint_with_retry)?;
        }
        let (mut routing, faults) = self.routes_on(&mut topology, on_progress)?;
        let dispersion = crate::endpoint::dispersion::DispersionParams::of_routing(&self.routing, "routing")?;
        let mut timed_failures = Vec::new();
        if let (RoutingFunction::Source(s), RoutingConfig::Source { vc_start, .. }, false) =
            (&routing, &self.routing, self.faults.at.is_empty())
        {
            let dead = faults.as_ref().map(|f| f.failed.routers.clone()).unwrap_or_default();
            let (failures, switches) = crate::faults::timed::schedule(&self.faults.at, &topology, vcs, *vc_start, &dead, "faults")?;
            routing = RoutingFunction::Source(s.clone().with_switches(switches));
            timed_failures = failures;
        }
        if let RoutingConfig::Source { rail_threshold: Some(t), .. } = &self.routing {
            let Some(m) = workload.message() else {
                return Err(Error::config(
                    "routing.rail_threshold",
                    "the threshold compares message sizes: give `traffic.message`, or remove the threshold (every packet multi-rail)",
                ));
            };
            if let (RoutingFunction::Source(s), true) = (&mut routing, m.bytes < *t) {
                s.single_rail();
            }
        }
        if let (RoutingConfig::Table { tables: Some(file), .. }, None) = (&self.routing, &faults) {
            // Tables from a file are checked as routes around failures are.
            let check = crate::routing::cdg::check(&routing, &topology, self.router.vcs());
            if check.unreachable_pairs > 0 || !check.acyclic {
                let why = if check.acyclic {
                    let drops = if check.dropped_pairs > 0 && !routing.runs_drops() {
                        format!(
                            " ({} of them dropped at a dateline node; routing.dateline_errors = \"drop\" simulates the drops)",
                            check.dropped_pairs
                        )
                    } else {
                        String::new()
                    };
                    format!(
                        "do not connect {} of {} node pairs{drops}, e.g. {}",
                        check.unreachable_pairs,
                        check.pairs,
                        check.unreachable.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
                    )
                } else {
                    format!("can deadlock: channel dependency cycle {}", check.cycle.join(" -> "))
                };
                return Err(Error::config("routing.tables", format!("the tables in {file} {why}; fix the tables")));
            }
            if let (true, Some(what)) = (check.dropped_pairs > 0, workload.dependency()) {
                return Err(Error::config(
                    "routing.dateline_errors",
                    format!("the tables in {file} drop the packets of {} node pairs at dateline nodes, and {what} waits for data, so it could never finish; fix the tables, or use a workload without waits", check.dropped_pairs),
                ));
            }
        }
        let mut workload = workload;
        if let Some(f) = &faults {
            if f.check.unreachable_pairs > 0 && self.faults.unroutable == crate::faults::Unroutable::Refuse {
                return Err(Error::config(
                    "faults",
                    format!(
                        "with {} failed links and {} failed nodes the routes do not connect {} of {} node pairs, e.g. {}; fail fewer links or other ones, or set faults.unroutable = \"skip\" to run without their traffic",
                        f.failed.links.len(),
                        f.failed.routers.len(),
                        f.check.unreachable_pairs,
                        f.check.pairs,
                        f.check.unreachable.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
                    ),
                ));
            }
            if !f.check.acyclic && self.faults.cyclic_routes == crate::faults::CyclicRoutes::Refuse {
                return Err(Error::config(
                    "faults",
                    format!(
                        "with {} failed links and {} failed nodes the routes can deadlock (set faults.cyclic_routes = \"run\" to simulate them anyway): channel dependency cycle {}",
                        f.failed.links.len(),
                        f.failed.routers.len(),
                        f.check.cycle.join(" -> ")
                    ),
                ));
            }
            if let (true, Some(what)) = (f.check.routable_pairs < f.check.pairs, workload.dependency()) {
                return Err(Error::config(
                    workload.dependency_key(),
                    format!("{what} waits for data, but the failures disconnect some pairs, so it could never finish; use a workload without waits, or fewer failures"),
                ));
            }
        }
        if let Some(f) = &faults {
            workload.restrict_to(std::sync::Arc::clone(&f.mask), &f.dead);
        }
        let mut deaths: Vec<(u32, u64)> = Vec::new();
        for t in &timed_failures {
            deaths.extend((0..topology.num_nodes).filter(|&e| t.nodes.contains(&topology.router_of(e))).map(|e| (e, t.cycle)));
        }
        if !deaths.is_empty() {
            if let Some(what) = workload.dependency() {
                return Err(Error::config(workload.dependency_key(), format!("{what} waits for data, but a node failing during the run (faults.at nodes) never sends again, so it could never finish; use a workload without waits")));
            }
            workload.fail_later(topology.num_nodes, &deaths);
        }
        let ch = &self.channel;
        let lat_ok = |v: u32| (1..=1000).contains(&v);
        if !lat_ok(ch.latency) {
            return Err(Error::config(
                "channel.latency",
                format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.latency),
            ));
        }
        if !lat_ok(ch.endpoint_latency) {
            return Err(Error::config(
                "channel.endpoint_latency",
                format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.endpoint_latency),
            ));
        }
        if !lat_ok(ch.injection_latency()) {
            return Err(Error::config(
                "channel.injection_latency",
                format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.injection_latency()),
            ));
        }
        if let Some(dl) = &ch.dim_latency {
            if dl.len() != topology.ndims() {
                return Err(Error::config(
                    "channel.dim_latency",
                    format!(
                        "has {} entries but the topology has {} dimensions; give one latency per dimension",
                        dl.len(),
                        topology.ndims()
                    ),
                ));
            }
            for (i, &v) in dl.iter().enumerate() {
                if !lat_ok(v) {
                    return Err(Error::config(format!("channel.dim_latency[{i}]"), format!("{v} is out of range: 1..=1000 cycles")));
                }
            }
        }
        let s = &self.sim;
        if s.measure == 0 {
            return Err(Error::config("sim.measure", "is 0: the measurement window needs at least one cycle"));
        }
        if s.until_done && !workload.ends() {
            return Err(Error::config(
                "sim.until_done",
                "the workload never ends: every source creates packets for as long as the run lasts (no traffic.packets_per_source, \
                 traffic.message.per_source or phased schedule that ends), so the run could never be done; give the sources a budget \
                 (e.g. traffic.packets_per_source = 100), or remove until_done to measure the fixed window",
            ));
        }
        if s.watchdog == 0 {
            return Err(Error::config(
                "sim.watchdog",
                "is 0: give the number of idle cycles after which a deadlock is reported (e.g. 5000)",
            ));
        }
        let rc = &self.router;
        let (pipeline, wire) = (rc.pipeline(), self.longest_wire().max(topology.longest_link()));
        let quiet = self.quiet_cycles_on(&topology);
        if s.watchdog < quiet {
            return Err(Error::config(
                "sim.watchdog",
                format!(
                    "{} cycles is shorter than the {quiet} cycles a flit may wait between two moves in this \
                     network (router pipeline {pipeline} + longest channel latency {wire}, or the credit delay {}), \
                     so it would report deadlocks that are not there; use watchdog >= {quiet} (default 5000)",
                    s.watchdog,
                    rc.credit_delay()
                ),
            ));
        }
        if s.warmup.checked_add(s.measure).and_then(|x| x.checked_add(s.drain_limit)).is_none_or(|t| t > 1 << 50) {
            return Err(Error::config(
                "sim.measure",
                format!(
                    "warmup {} + measure {} + drain_limit {} is too large: the run may last at most 2^50 cycles; shorten them",
                    s.warmup, s.measure, s.drain_limit
                ),
            ));
        }
        self.stats.validate("stats")?;
        Ok(Spec { config: self.clone(), topology, routing, dispersion, workload, faults, timed_failures })
    }
}
