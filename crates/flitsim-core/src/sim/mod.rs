//! The engine loop: time, RNG streams, the deadlock watchdog and invariant checks.
//!
//! A [`Simulation`] is built from a [`Spec`]. Each cycle every endpoint steps, then
//! every router with pending work (buffered flits, or flits or credits travelling to
//! it). All interaction goes through channels whose latency is at least one cycle, so
//! the order of these visits cannot change the result (the two-phase rule).

pub mod check;
pub mod deadlock;
pub mod distributed;
pub mod parallel;
pub mod peers;
mod pipeline;
mod team;
mod window;

use crate::config::Spec;
use crate::endpoint::Endpoints;
use crate::error::{Error, Result};
use crate::link::{Channels, End, RingPool};
use crate::report::{ChannelRow, PhaseReport, Report};
use crate::router::{RouterConfig, RouterFamily, Routers, StepContext};
use crate::stats::{Collector, FinishInfo};
use crate::topology::NONE;

pub use crate::packet::{Counters, Packet, PacketArena};
/// The packet arena and the random streams live at the crate root, where every layer may
/// use them; these paths stay for the engine's users.
pub use crate::{packet, rng};

/// Which part of the run a cycle belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Before the measurement window.
    Warmup,
    /// Inside the measurement window.
    Measure,
    /// After the window, until the measured packets are delivered.
    Drain,
}

/// Progress snapshot handed to a progress callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Current cycle.
    pub cycle: u64,
    /// warmup + measure (the drain length is not known in advance).
    pub planned: u64,
    /// Stage.
    pub stage: Stage,
    /// Flits inside the network.
    pub in_network: u64,
}

/// A network under simulation.
pub struct Simulation {
    spec: Spec,
    /// Routers.
    pub routers: Routers,
    /// Channels.
    pub channels: Channels,
    /// Endpoints.
    pub endpoints: Endpoints,
    /// Packet arena.
    pub packets: PacketArena,
    /// Measurement.
    pub stats: Collector,
    /// Event counters.
    pub counters: Counters,
    now: u64,
    /// Front flit of every input VC at the last watchdog period (partial deadlocks).
    fronts: Option<Vec<Option<crate::link::Flit>>>,
    measured_created: u64,
    /// Packets waiting in the source queues when the window opened and when it closed,
    /// recorded by [`Simulation::step`] so that a run stepped by hand reports the same.
    queue_at_window_start: u64,
    queue_at_window_end: u64,
    /// Source throttling with a global estimate (static or self-tuned threshold).
    congestion: Option<crate::congestion::Controller>,
    /// The other partitions when the simulation runs on several threads
    /// ([`Simulation::set_threads`]); the fields above are then partition 0's, except
    /// `counters`, which sum all partitions'.
    parallel: Option<parallel::Parallel>,
    /// Across processes: this process's share ([`distributed`]).
    distributed: Option<distributed::Distributed>,
    /// Cycles the partitions may step between two hand-overs ([`window`]); 1 when not
    /// partitioned.
    window: u64,
    /// Metapacket rounds usable this cycle (reused buffer).
    done: Vec<crate::congestion::metapacket::Completion>,
}

// (A Python object's memory has only the usual alignment: cache-padded state is boxed.)
const _: () = assert!(std::mem::align_of::<Simulation>() <= 16);

impl Simulation {
    /// Build the network a spec describes.
    pub fn new(spec: Spec) -> Result<Self> {
        let cfg = &spec.config;
        let topo = &spec.topology;
        let rc = &cfg.router;
        let (r_n, p_n, n) = (topo.num_routers, topo.ports, topo.num_nodes);
        let total = (r_n * p_n + n) as usize;
        let mut latency = vec![1u32; total];
        let mut src = vec![End::None; total];
        let mut dst = vec![End::None; total];
        for r in 0..r_n {
            for o in 0..p_n {
                let c = (r * p_n + o) as usize;
                src[c] = End::Router { router: r, port: o };
                if let Some(node) = topo.node_at(r, o) {
                    dst[c] = End::Endpoint(node);
                    latency[c] = cfg.channel.endpoint_latency;
                } else {
                    let id = topo.out_channel[c];
                    if id != NONE {
                        let d = topo.channels[id as usize];
                        dst[c] = End::Router { router: d.dst_router, port: d.dst_port };
                        latency[c] = match (topo.link_latency(r, o), &cfg.channel.dim_latency) {
                            (Some(own), _) => own,
                            (None, Some(v)) => v[d.dim as usize],
                            (None, None) => cfg.channel.latency,
                        };
                    }
                }
            }
        }
        for e in 0..n {
            let c = (r_n * p_n + e) as usize;
            src[c] = End::Endpoint(e);
            dst[c] = End::Router { router: topo.router_of(e), port: topo.local_port_of(e) };
            latency[c] = cfg.channel.injection_latency();
        }
        let switch = rc.output_delay();
        let flit_caps = (0..total).map(|c| {
            if dst[c] == End::None {
                1
            } else if matches!(src[c], End::Router { .. }) {
                latency[c] + switch + 1
            } else {
                latency[c] + 1
            }
        });
        let credit_caps = (0..total).map(|c| if dst[c] == End::None { 1 } else { rc.credit_delay() + 1 });
        let channels = Channels {
            flits: RingPool::new(flit_caps.collect::<Vec<_>>()),
            credits: RingPool::new(credit_caps.collect::<Vec<_>>()),
            latency,
            src,
            dst,
        };
        let build = crate::router::Build {
            topo,
            channels: &channels,
            max_packet: spec.workload.size().max(),
            request_vcs: spec.routing.injection_vcs().1 as u32,
        };
        let mut routers = Routers::new(rc, &build);
        let mut endpoints = Endpoints::new(
            topo,
            &channels,
            &spec.workload,
            rc.vcs(),
            spec.routing.injection_vcs(),
            rc.initial_credits(),
            rc.flow_control(),
            cfg.seed,
        );
        // A probe's head crosses both endpoint channels and h + 1 router pipelines and h
        // router-to-router channels (the zero-load latency of tests/engine_invariants.rs).
        let (el, il, lat, pipe) =
            (cfg.channel.endpoint_latency as u64, cfg.channel.injection_latency() as u64, cfg.channel.latency as u64, rc.pipeline() as u64);
        // It is routed at the source switch `il + routing_delay` cycles after it left.
        let rd = rc.routing_delay() as u64;
        endpoints.set_probe_timing(il + el + pipe, pipe + lat, il + rd);
        let w = cfg.sim.warmup;
        let stats = Collector::new(&cfg.stats, n, total, rc.vcs(), w, w + cfg.sim.measure);
        use crate::congestion::{Controller, Policy};
        if let (Some(retry), Some(r)) = (&cfg.channel.retry, routers.crosspoint_mut()) {
            let latency = |id: usize| {
                let c = topo.channels[id];
                channels.latency[(c.src_router * topo.ports + c.src_port) as usize]
            };
            // Links failing during the run (`[[faults.at]]`) fail at their cycle.
            let mut fail_at = vec![None; topo.channels.len()];
            let mut nodes = Vec::new();
            for t in &spec.timed_failures {
                for &c in &t.channels {
                    fail_at[c as usize] = Some(t.cycle);
                }
                nodes.extend(t.nodes.iter().map(|&r| (r, t.cycle)));
            }
            r.enable_retry(retry, topo, latency, &fail_at, &nodes, cfg.seed)?;
        }
        let metapackets = cfg.congestion.distribution == crate::congestion::Distribution::Metapackets;
        let congestion = match cfg.congestion.policy {
            Policy::Static | Policy::Tune => {
                let c = Controller::new(&cfg.congestion, cfg.congestion_buffers(topo), cfg.gather(topo), n)?;
                Some(if metapackets { c.per_router(topo.num_routers) } else { c })
            }
            Policy::None | Policy::Alo => None,
        };
        if let (true, Some(r), RouterConfig::Central(rc)) = (metapackets, routers.central_mut(), &cfg.router) {
            let cc = &cfg.congestion;
            let coords = (0..topo.num_routers).flat_map(|r| topo.coords(r).to_vec()).collect();
            let timing = crate::congestion::metapacket::MetaTiming {
                interval: cc.metapacket_interval.unwrap_or_else(|| cfg.gather(topo)),
                flits: cc.metapacket_flits,
                routing_delay: rc.routing_delay,
                adder_delay: cc.adder_delay,
                measure_from: w,
            };
            let meta = crate::congestion::metapacket::MetaNet::new(topo.num_routers, topo.ports, topo.ndims(), coords, timing);
            r.enable_metapackets(
                meta,
                cc.count == crate::congestion::Count::Occupied,
                cc.metapacket_link == crate::congestion::MetaLink::Priority,
            );
        }
        Ok(Simulation {
            congestion,
            routers,
            channels,
            endpoints,
            packets: PacketArena::default(),
            stats,
            counters: Counters::default(),
            now: 0,
            fronts: None,
            measured_created: 0,
            queue_at_window_start: 0,
            queue_at_window_end: 0,
            parallel: None,
            distributed: None,
            window: 1,
            done: Vec::new(),
            spec,
        })
    }

    /// Build from a spec and run to completion.
    pub fn run_spec(spec: Spec) -> Result<Report> {
        Simulation::new(spec)?.run(&mut |_| {})
    }

    /// The spec being simulated.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Step the network on `threads` threads (partitions of routers and their
    /// endpoints, [`parallel`]), before the first cycle. Results are the same, bit for
    /// bit, whatever the count. Returns the threads used: 1 when the network is not
    /// partitioned ([`Simulation::serial_reason`]).
    pub fn set_threads(&mut self, threads: usize) -> Result<usize> {
        if self.now != 0 || self.parallel.is_some() || self.distributed.is_some() {
            return Err(Error::Config {
                path: "threads".into(),
                message: "the thread count is set before the first cycle, once, and not with processes".into(),
            });
        }
        if threads == 0 {
            return Err(Error::Config { path: "threads".into(), message: "0 threads: give at least 1".into() });
        }
        if self.serial_reason(threads).is_some() {
            return Ok(1);
        }
        let p = parallel::Parallel::new(threads, &self.spec, &mut self.routers, &self.channels, &mut self.endpoints, &self.stats)?;
        // Handing over cycle by cycle inside a step, the partitions may step any number
        // of cycles between two meetings.
        self.window = if p.pipelined() { u64::MAX } else { window::lookahead(&self.spec, &self.routers, &self.channels) };
        self.parallel = Some(p);
        Ok(threads)
    }

    /// Share the run with other processes (MPI ranks, [`distributed`]), before the first
    /// cycle: this process steps its partition and exchanges crossings with the others
    /// through `peers`; process 0's report is the one-process report, bit for bit.
    /// Returns why the run is not split (every process then simulates it whole; process
    /// 0's report is the same), or `None` if it is.
    pub fn set_peers(&mut self, peers: Box<dyn peers::Peers>) -> Result<Option<&'static str>> {
        if self.now != 0 || self.parallel.is_some() || self.distributed.is_some() {
            return Err(Error::Config {
                path: "processes".into(),
                message: "processes are set before the first cycle, once, and not with threads".into(),
            });
        }
        if let Some(why) = distributed::whole_reason(&self.spec, &self.routers, peers.size()) {
            return Ok(Some(why));
        }
        self.distributed = Some(distributed::Distributed::new(peers, &self.spec, &mut self.routers, &mut self.endpoints));
        self.window = window::lookahead(&self.spec, &self.routers, &self.channels);
        Ok(None)
    }

    /// Processes sharing the run (1 unless [`Simulation::set_peers`] split it).
    pub fn processes(&self) -> usize {
        self.distributed.as_ref().map_or(1, |d| d.processes())
    }

    /// Why this network would run on one thread with `threads` asked for (`None`: it is
    /// partitioned).
    pub fn serial_reason(&self, threads: usize) -> Option<&'static str> {
        parallel::serial_reason(&self.spec, &self.routers, threads)
    }

    /// The network's lookahead (`sim/window.rs`): the least delay of a flit or credit
    /// crossing a partition boundary, and so the cycles partitions that meet after every
    /// window may step between two meetings; 1 when not partitioned.
    pub fn lookahead(&self) -> u64 {
        if self.parallel.is_none() && self.distributed.is_none() {
            return 1;
        }
        window::lookahead(&self.spec, &self.routers, &self.channels)
    }

    /// Do the partitions hand over cycle by cycle, point to point, and meet only at the
    /// ends of long windows (`sim/pipeline.rs`)? False when not partitioned.
    pub fn pipelined(&self) -> bool {
        self.parallel.as_ref().is_some_and(|p| p.pipelined())
    }

    /// Threads stepping the network.
    pub fn threads(&self) -> usize {
        self.parallel.as_ref().map_or(1, |p| p.threads())
    }

    /// Flits that crossed from one partition to another so far (0 on one thread).
    pub fn crossed_flits(&self) -> u64 {
        self.parallel.as_ref().map_or(0, |p| p.crossed_flits()) + self.distributed.as_ref().map_or(0, |d| d.crossed_flits())
    }

    /// Packets waiting in every source queue.
    fn queued(&self) -> u64 {
        let here = self.endpoints.queued() + self.parallel.as_ref().map_or(0, |p| p.queued());
        self.distributed.as_ref().map_or(here, |d| d.total(here))
    }

    /// Current cycle (the next one to be simulated).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Flits inside the network (injected, not yet ejected, not lost to a fault).
    pub fn in_network(&self) -> u64 {
        self.counters.flits_injected - self.counters.flits_ejected - self.counters.flits_lost
    }

    /// Simulate one cycle.
    pub fn step(&mut self) -> Result<()> {
        self.step_cycle()?;
        self.settle();
        Ok(())
    }

    /// Simulate one cycle, leaving the hand-over between partitions pending.
    fn step_cycle(&mut self) -> Result<()> {
        let now = self.now;
        self.sample_queues(now);
        let phase = self.spec.workload.phase_at(now);
        let created_before = self.counters.packets_created;
        // From a scheduled link failure on, the sources route around it.
        if let crate::routing::RoutingFunction::Source(s) = &mut self.spec.routing {
            s.advance(now);
        }
        // Metapacket rounds usable now, finished at routers of any partition (or
        // process). Without throttling (the paper's "No tune") they are dropped.
        let mut done = std::mem::take(&mut self.done);
        done.clear();
        let metapackets = if let Some(meta) = self.routers.metapackets() {
            if let Some(d) = &mut self.distributed {
                d.pop_meta(now, &mut done);
            } else {
                while let Some(x) = meta.pop_usable(now) {
                    done.push(x);
                }
                if let Some(p) = &mut self.parallel {
                    p.pop_meta(now, &mut done);
                }
            }
            true
        } else {
            false
        };
        // (Source throttling runs on the central-arbiter routers only: Config::validate.)
        let throttle = match &mut self.congestion {
            Some(c) if metapackets => {
                // (Each round updates its own router's estimate: their order does not
                // matter.)
                for x in &done {
                    c.on_gathered(x);
                }
                crate::endpoint::Throttle::PerRouter(c.throttled_each(now))
            }
            Some(c) => {
                if c.sample_due(now) {
                    let occupied = self.spec.config.congestion.count == crate::congestion::Count::Occupied;
                    // The count over every partition (and process).
                    let here = self.routers.congestion_count(occupied).unwrap_or(0)
                        + self.parallel.as_ref().map_or(0, |p| p.count_buffers(occupied));
                    let full = self.distributed.as_ref().map_or(here as u64, |d| d.total(here as u64));
                    c.on_sample(now, full as u32, self.counters.flits_ejected);
                }
                crate::endpoint::Throttle::Global(c.throttled(now))
            }
            None => match (&self.spec.routing, self.spec.config.congestion.policy) {
                (crate::routing::RoutingFunction::Adaptive(a), crate::congestion::Policy::Alo) => {
                    crate::endpoint::Throttle::Alo(a, self.spec.config.congestion.alo_free.unwrap_or_default())
                }
                _ => crate::endpoint::Throttle::Open,
            },
        };
        if let Some(d) = &mut self.distributed {
            let (counters, made) = d.step(
                now,
                1,
                &self.spec,
                &mut self.routers,
                &mut self.channels,
                &mut self.endpoints,
                &mut self.packets,
                &mut self.stats,
                throttle,
            );
            self.counters = counters;
            self.measured_created += made;
        } else if let Some(par) = &mut self.parallel {
            let (counters, made) = par.step(
                now,
                1,
                &self.spec,
                &mut self.routers,
                &mut self.channels,
                &mut self.endpoints,
                &mut self.packets,
                &mut self.stats,
                throttle,
            );
            self.counters = counters;
            self.measured_created += made;
        } else {
            self.endpoints.step_all(
                now,
                phase,
                &self.spec.workload,
                &mut self.channels,
                &mut self.packets,
                &mut self.stats,
                &mut self.counters,
                &mut self.routers,
                throttle,
                crate::endpoint::NicView { routing: &self.spec.routing, dispersion: self.spec.dispersion.as_ref() },
            );
            if self.stats.in_window(now) {
                self.measured_created += self.counters.packets_created - created_before;
            }
            let mut cx = StepContext {
                now,
                topo: &self.spec.topology,
                routing: &self.spec.routing,
                ch: &mut self.channels,
                packets: &mut self.packets,
                stats: &mut self.stats,
                ctr: &mut self.counters,
            };
            self.routers.step(crate::router::crossing::Which::All, &mut cx);
        }
        self.done = done;
        if self.spec.config.sim.check {
            check::verify(self)?;
        }
        self.watch(now, now)?;
        self.now += 1;
        Ok(())
    }

    /// After cycles `first..=last`: the deadlock watchdog (no flit moved for
    /// `sim.watchdog` cycles while flits are in the network: the error is reported as of
    /// the cycle it trips in) and, once per watchdog period, the search for a partial
    /// deadlock.
    fn watch(&mut self, first: u64, last: u64) -> Result<()> {
        let watchdog = self.spec.config.sim.watchdog;
        let progress = self.counters.last_progress;
        if last.saturating_sub(progress) >= watchdog && self.in_network() > 0 {
            let at = first.max(progress + watchdog);
            self.now = at;
            self.settle();
            if let Some(p) = &self.parallel {
                p.gather_routers(&mut self.routers);
            }
            return Err(self.deadlock_error(at - progress));
        }
        // A deadlock among some VCs while others still move: once per watchdog period,
        // a cycle of waiting input VCs whose front flits have not changed in a period.
        let now = last;
        if now > 0 && now.is_multiple_of(watchdog) && self.distributed.is_none() {
            self.settle();
            if let Some(p) = &self.parallel {
                p.gather_routers(&mut self.routers);
            }
            // (Families without a wait-for graph: the central router's deadlocks are
            // handled by Duato's escape VCs or Disha, the crosspoint switch is deadlock-free
            // by its node-order VCs; a network that stops altogether still trips the
            // watchdog above.)
            let found = match self.routers.wait_graph() {
                Some(g) => self.partial_check(g),
                None => Ok(None),
            };
            self.fronts = found?;
        }
        Ok(())
    }

    /// Run `cycles` cycles (for stepwise use).
    pub fn run_cycles(&mut self, cycles: u64) -> Result<()> {
        // (In windows between hand-overs, as `drive` steps, and settled at the end.)
        let end = self.now + cycles;
        while self.now < end {
            match self.window_len(end) {
                1 => self.step_cycle()?,
                k => self.step_window(k)?,
            }
        }
        self.settle();
        Ok(())
    }

    /// Run warm-up, measurement and drain, then report. `progress` is called every
    /// 4096 cycles. After [`Simulation::run_cycles`] it continues from the current cycle:
    /// the report is the one-shot run's unless the steps went past the cycle where that
    /// run would have stopped.
    pub fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> Result<Report> {
        let info = self.drive(progress)?;
        Ok(self.report(info))
    }

    /// [`Simulation::run`] up to the report, which [`Simulation::report`] then makes:
    /// the simulation stays readable if an error (a deadlock) stops it.
    pub fn drive(&mut self, progress: &mut dyn FnMut(&Progress)) -> Result<FinishInfo> {
        let s = self.spec.config.sim.clone();
        let end = s.warmup + s.measure;
        while self.now < end {
            match self.window_len(end) {
                1 => self.step_cycle()?,
                k => self.step_window(k)?,
            }
            if s.until_done {
                self.settle();
            }
            if s.until_done && self.now > s.warmup && self.live_packets() == 0 && self.exhausted() {
                self.stats.close_window(self.now);
                if let Some(p) = &mut self.parallel {
                    p.close_window(self.now);
                }
                self.queue_at_window_end = 0;
                break;
            }
            if self.now.is_multiple_of(window::PROGRESS_EVERY) {
                let stage = if self.now < s.warmup { Stage::Warmup } else { Stage::Measure };
                progress(&Progress { cycle: self.now, planned: end, stage, in_network: self.in_network() });
            }
        }
        self.settle();
        if self.now == end {
            self.queue_at_window_end = self.queued();
        }
        let drain_start = self.now.min(end);
        while self.measured_outstanding() > 0 && self.now - drain_start < s.drain_limit {
            self.step()?;
            if self.now.is_multiple_of(window::PROGRESS_EVERY) {
                progress(&Progress { cycle: self.now, planned: end, stage: Stage::Drain, in_network: self.in_network() });
            }
        }
        let info = FinishInfo {
            measured_created: self.measured_created,
            measured_outstanding: self.measured_outstanding(),
            drain_cycles: self.now - drain_start,
            source_queue_at_start: self.queue_at_window_start,
            source_queue_at_end: self.queue_at_window_end,
            cycles: self.now,
            in_network: self.in_network(),
            stalled_for: if self.in_network() > 0 { (self.now - 1).saturating_sub(self.counters.last_progress) } else { 0 },
            quiet_cycles: self.spec.config.quiet_cycles_on(&self.spec.topology),
            watchdog: s.watchdog,
        };
        Ok(info)
    }

    /// The report of a run [`Simulation::drive`] has finished (`info`, what it returned).
    pub fn report(self, info: FinishInfo) -> Report {
        self.finish(info)
    }

    /// Packets alive in every partition.
    fn live_packets(&self) -> u64 {
        let here = self.packets.live() + self.parallel.as_ref().map_or(0, |p| p.live_packets());
        self.distributed.as_ref().map_or(here, |d| d.total(here))
    }

    /// Will no source create another packet?
    fn exhausted(&self) -> bool {
        let (w, phase) = (&self.spec.workload, self.spec.workload.phase_at(self.now));
        let here = self.endpoints.exhausted(self.now, w, phase) && self.parallel.as_ref().is_none_or(|p| p.exhausted(self.now, w, phase));
        self.distributed.as_ref().map_or(here, |d| d.all(here))
    }

    fn measured_outstanding(&self) -> u64 {
        self.measured_created - self.counters.measured_delivered - self.counters.measured_lost
    }

    fn finish(mut self, info: FinishInfo) -> Report {
        self.settle();
        if let Some(p) = self.parallel.take() {
            p.finish(&mut self.routers, &mut self.endpoints, &mut self.stats);
        }
        if let Some(d) = self.distributed.take() {
            d.finish(&mut self.routers, &mut self.endpoints, &mut self.stats);
        }
        let topo = &self.spec.topology;
        let mut stats = self.stats.finish(info);
        let spec = &self.spec;
        let vc_balance = if spec.config.stats.vc_balance {
            let connected = spec.faults.as_ref().map(|f| &*f.mask);
            let source = |c: usize| match self.channels.src[c] {
                crate::link::End::Router { router, port } => Some((router, port)),
                _ => None,
            };
            crate::routing::vc_balance::report(&spec.routing, &spec.topology, connected, &source, &stats.channel_flits)
        } else {
            None
        };
        let window = (stats.window.1 - stats.window.0).max(1) as f64;
        let mut channels = Vec::new();
        if !stats.channel_flits.is_empty() {
            for (c, vc_flits) in stats.channel_flits.iter().enumerate() {
                if self.channels.dst[c] == End::None {
                    continue;
                }
                let name = |e: End| match e {
                    End::Router { router, port } => {
                        format!("{}{}", topo.router_name(router), topo.port_name(port))
                    }
                    End::Endpoint(n) => format!("node{n}"),
                    End::None => "-".into(),
                };
                let kind = match (self.channels.src[c], self.channels.dst[c]) {
                    (End::Endpoint(_), _) => "injection",
                    (_, End::Endpoint(_)) => "ejection",
                    _ => "network",
                };
                let total: u64 = vc_flits.iter().sum();
                let into_router = matches!(self.channels.dst[c], End::Router { .. });
                let sampled = |v: &Vec<f64>| v.get(c).copied().filter(|_| into_router);
                channels.push(ChannelRow {
                    id: c as u32,
                    kind: kind.into(),
                    from: name(self.channels.src[c]),
                    to: name(self.channels.dst[c]),
                    vc_flits: vc_flits.clone(),
                    utilization: total as f64 / window,
                    buffered: sampled(&stats.channel_buffered),
                    blocked: sampled(&stats.channel_blocked),
                    timeline: stats.channel_timeline.get(c).cloned().unwrap_or_default(),
                });
            }
        }
        stats.channel_flits = Vec::new();
        stats.channel_utilization = Vec::new();
        stats.channel_timeline = Vec::new();
        let phases = self
            .spec
            .workload
            .phases()
            .iter()
            .zip(&self.endpoints.phase_flits)
            .enumerate()
            .map(|(i, (ph, &flits))| PhaseReport {
                index: i as u32,
                start: ph.start,
                end: ph.end.min(self.now),
                offered: ph.load,
                delivered_flits: flits,
            })
            .collect();
        let wire = crate::link::units::Units::build(self.spec.config.channel.flit_bytes, self.spec.config.channel.link_gbps).ok().flatten();
        let units = wire.map(|u| {
            let b = u.flit_bytes as f64;
            let mb = |flits: f64| u.bytes_per_s().map(|r| flits * b * r / 1e6);
            let ns = |cycles: f64| u.cycle_ns.map(|c| cycles * c);
            let a = &stats.accepted;
            crate::report::UnitsReport {
                flit_bytes: u.flit_bytes,
                link_gbps: u.link_gbps,
                cycle_ns: u.cycle_ns,
                offered_bytes_per_cycle: stats.offered * b,
                accepted_bytes_per_cycle: a.mean * b,
                offered_mb_per_s: mb(stats.offered),
                accepted_mb_per_s: mb(1.0).map(|_| [mb(a.mean).unwrap(), mb(a.min).unwrap(), mb(a.max).unwrap()]),
                packet_latency_ns: ns(stats.packet_latency.mean),
                network_latency_ns: ns(stats.network_latency.mean),
            }
        });
        let messages = self.endpoints.reassembly.as_ref().map(|r| {
            let per = self.spec.workload.message().map_or(1, |m| m.packets as u64);
            r.report(self.counters.packets_created / per, wire.and_then(|u| u.bytes_per_s()))
        });
        let trace = self.spec.workload.trace().map(|t| t.report(&self.endpoints.trace));
        let dispersion = self.spec.dispersion.is_some().then_some(self.endpoints.dispersion);
        let family = self.routers.report(topo);
        Report {
            dispersion,
            messages,
            trace,
            units,
            version: crate::VERSION.to_string(),
            seed: self.spec.config.seed,
            config: self.spec.config.clone(),
            topology: topo.summary(),
            cycles: self.now,
            counters: self.counters,
            stats,
            phases,
            channels,
            vc_balance,
            router_counters: family.router_counters,
            congestion: self.congestion.as_ref().map(|c| c.report()),
            metapackets: family.metapackets,
            central: family.central,
            crosspoint: family.crosspoint,
            retry: family.retry,
            dateline_drops: match &self.spec.routing {
                crate::routing::RoutingFunction::Table(t) if t.policy() != crate::routing::table::VcPolicy::Dor => {
                    self.routers.dateline_drops()
                }
                _ => None,
            },
            failures_during_run: self.spec.timed_failures.clone(),
            packets_refused_to_failed_nodes: self
                .spec
                .timed_failures
                .iter()
                .any(|t| !t.nodes.is_empty())
                .then(|| self.endpoints.unroutable().1),
            faults: self.spec.faults.as_ref().map(|f| {
                let (unroutable, to_failed) = self.endpoints.unroutable();
                crate::report::FaultsReport {
                    failed_links: f.failed.links.clone(),
                    failed_routers: f.failed.routers.clone(),
                    routes: f.check.clone(),
                    routable_fraction: if f.check.pairs == 0 { 1.0 } else { f.check.routable_pairs as f64 / f.check.pairs as f64 },
                    packets_unroutable: unroutable,
                    packets_to_failed_nodes: to_failed,
                }
            }),
        }
    }
}
