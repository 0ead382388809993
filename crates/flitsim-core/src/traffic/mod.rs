//! Traffic: the workload that endpoints inject. It owns the `[traffic]` config table and
//! keeps *where* a packet goes ([`pattern`]) apart from *when* it is created
//! ([`injection`]) and *how big* it is ([`size`]), as BookSim does.
//!
//! A [`TrafficConfig`] is validated against the network's [`NodeSpace`] into a
//! [`Workload`]. The engine asks the workload once per endpoint per cycle
//! ([`Workload::generate`]) whether that endpoint creates a packet, and if so its
//! destination and size. All randomness comes from the endpoint's own [`SimRng`] stream,
//! so results do not depend on visiting order or thread count.
//!
//! An optional phased schedule (`[[traffic.phases]]`) changes the load and pattern over
//! time; without it one open-ended phase runs at `traffic.load`.

pub mod app;
pub mod bisection;
pub mod injection;
pub mod message;
pub mod pattern;
pub mod size;
pub mod trace;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng::SimRng;

pub use injection::{InjectionConfig, InjectionProcess, SourceState};
pub use message::{Message, MessageConfig};
pub use pattern::{NodeSpace, Pattern, PatternConfig};
pub use size::{PacketSize, PacketSizeConfig, MAX_PACKET_FLITS};
pub use trace::{Trace, TraceConfig};

/// Config table `[traffic]`: what the endpoints inject.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrafficConfig {
    /// Offered load per endpoint in flits/node/cycle, >= 0. A source creates at most one
    /// packet per cycle, so with `bernoulli` and `periodic` injection the load is at most
    /// the mean packet size (e.g. 16/15 with 16-flit packets, as in Thottethodi et al.'s
    /// bursty load); above 1 flit/node/cycle, the injection channel's bandwidth, the
    /// excess waits in the source queue. With `on_off` it is at most 1 (below the peak).
    /// Ignored when `phases` is given (each phase has its own load).
    #[serde(default = "default_load")]
    pub load: f64,
    /// Where packets go: `{ type = "uniform" }`, `bit_complement`, `complement`,
    /// `bit_reverse`, `shuffle`, `transpose`, `matrix_transpose`, `tornado`, `neighbor`,
    /// `random_permutation`, `random_bisection`, `hotspot`, `merge_to_one`, `all_to_all`,
    /// `recursive_doubling`.
    #[serde(default)]
    pub pattern: PatternConfig,
    /// When packets are created: `{ type = "bernoulli" }`, `periodic`, `on_off` or
    /// `backlogged`.
    #[serde(default)]
    pub injection: InjectionConfig,
    /// Flits per packet: a number, or `{ sizes = [...], weights = [...] }`.
    #[serde(default)]
    pub packet_size: PacketSizeConfig,
    /// Optional phased schedule, run in order from cycle 0; when non-empty it replaces
    /// `load` (and, per phase, optionally `pattern`) and injection stops after the last
    /// phase. Default: none (one open-ended phase at `load`).
    #[serde(default)]
    pub phases: Vec<PhaseConfig>,
    /// Most packets each source creates over the whole run (all phases together), >= 1;
    /// a source stops creating packets once it has created this many. With
    /// `pattern = { type = "all_to_all" }` and N - 1 packets per source this is one
    /// finite all-to-all exchange. Default: no limit.
    #[serde(default)]
    pub packets_per_source: Option<u64>,
    /// Most packets a source queue holds (>= 1), the one being sent included. A packet
    /// the injection process creates while the queue is full is not created (a source
    /// that "tries to generate" a packet, as in the self-tuned congestion-control paper);
    /// such packets are counted in `counters.packets_suppressed`. Default: unbounded (the
    /// offered load is never throttled by the network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_queue: Option<u32>,
    /// Message-level traffic (`{ bytes, mtu, header_flits, per_source }`, see
    /// [`message::MessageConfig`]): the injection process creates whole messages, which
    /// the NIC segments into packets; the load counts the packets' flits. Needs
    /// `channel.flit_bytes`; replaces `packet_size` and `packets_per_source`, and
    /// `source_queue` then counts messages. Default: none (single packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<MessageConfig>,
    /// Replay a trace of messages (`{ file }` or `{ messages = [...] }`, see
    /// [`trace::TraceConfig`]) instead of a pattern and an injection process; replaces
    /// every other key of `[traffic]`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceConfig>,
}

fn default_load() -> f64 {
    0.3
}

impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig {
            load: default_load(),
            pattern: PatternConfig::default(),
            injection: InjectionConfig::default(),
            packet_size: PacketSizeConfig::default(),
            phases: Vec::new(),
            packets_per_source: None,
            source_queue: None,
            message: None,
            trace: None,
        }
    }
}

/// One entry of `[[traffic.phases]]`: a stretch of cycles with its own load and pattern.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseConfig {
    /// Length of the phase in cycles, >= 1. Required.
    pub duration: u64,
    /// Offered load during the phase in flits/node/cycle, with the same bounds as
    /// `traffic.load` (at most the mean packet size, or 1 with `on_off`). Required.
    pub load: f64,
    /// Pattern during the phase (same table as `traffic.pattern`). Default: the top-level
    /// `traffic.pattern`.
    #[serde(default)]
    pub pattern: Option<PatternConfig>,
}

/// Timing of one phase of a built workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseInfo {
    /// First cycle of the phase.
    pub start: u64,
    /// First cycle after the phase; `u64::MAX` when open-ended.
    pub end: u64,
    /// Offered load during the phase, flits/node/cycle.
    pub load: f64,
}

/// When an endpoint's source may next create ([`Workload::next_creation`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextCreation {
    /// In any cycle: a random or periodic process decides (and draws) every cycle.
    EveryCycle,
    /// Not before this cycle (a trace message's time).
    At(u64),
    /// Not until a packet is delivered to the endpoint (it waits for data), or never in
    /// this phase.
    OnDelivery,
}

/// A built, validated workload: patterns, injection processes and packet sizes per phase.
#[derive(Clone, Debug)]
pub struct Workload {
    info: Vec<PhaseInfo>,
    phases: Vec<Phase>,
    /// Distinct patterns; phases without their own share index 0 (the top-level one).
    patterns: Vec<Pattern>,
    size: PacketSize,
    /// Most packets per source over the run; `u64::MAX` when unlimited.
    packets_per_source: u64,
    /// Source queue capacity in packets; `u32::MAX` when unbounded.
    source_queue: u32,
    /// Message-level traffic: each creation is a whole message of this shape.
    message: Option<Message>,
    /// Backlogged sources (`injection = { type = "backlogged" }`): a source creates
    /// whenever its queue has room, and never counts a suppressed packet.
    backlogged: bool,
    /// With failures: the pairs the routes connect, and the endpoints whose router
    /// failed ([`Workload::restrict_to`]).
    reachable: Option<Reachable>,
    /// A trace replayed instead of the pattern and injection process.
    trace: Option<std::sync::Arc<Trace>>,
}

/// Which packets a network with failures can carry.
#[derive(Clone, Debug)]
struct Reachable {
    /// Pairs the routes around failures before the run connect (None: every pair).
    mask: Option<std::sync::Arc<crate::routing::cdg::PairMask>>,
    /// Per endpoint: the first cycle it is dead (0: failed before the run; `u64::MAX`:
    /// never).
    dead_from: Vec<u64>,
}

#[derive(Clone, Debug)]
struct Phase {
    pattern: usize,
    injection: InjectionProcess,
}

/// Negative loads, NaN, and loads above what `injection` can offer with packets of
/// `mean_size` flits ([`InjectionConfig::max_load`]) are config errors.
fn check_load(load: f64, injection: &InjectionConfig, mean_size: f64, path: &str) -> Result<()> {
    let max = injection.max_load(mean_size);
    if (0.0..=max).contains(&load) {
        return Ok(());
    }
    let why = match injection {
        InjectionConfig::OnOff { .. } => "an on/off source offers at most its peak, and the peak \
             is at most 1 flit/node/cycle, the injection channel's bandwidth; lower the load, or \
             use `bernoulli` or `periodic` injection, which accept up to one packet per cycle"
            .to_string(),
        _ => format!(
            "a source creates at most one packet per cycle and packets average {mean_size} \
             flits here (above 1 flit/node/cycle, the injection channel's bandwidth, the excess \
             waits in the source queue); lower the load, or raise `traffic.packet_size` to at \
             least the load in flits"
        ),
    };
    Err(Error::config(path, format!("load {load} must be in [0, {max}] flits/node/cycle: {why}")))
}

impl Workload {
    /// Source queue capacity in packets (`u32::MAX`: unbounded).
    #[inline]
    pub fn source_queue(&self) -> u32 {
        self.source_queue
    }
}

impl Workload {
    /// Validate `cfg` against `space` and build the workload. `run_seed` seeds random
    /// permutations that have no seed of their own. Errors name the full key path
    /// (`traffic.phases[1].load`, `traffic.pattern.nodes`, ...).
    pub fn build(cfg: &TrafficConfig, space: &NodeSpace, run_seed: u64) -> Result<Workload> {
        Self::build_with(cfg, space, run_seed, None)
    }

    /// As [`build`](Self::build), with the channel's flit size in bytes
    /// (`channel.flit_bytes`), which message-level traffic needs.
    pub fn build_with(cfg: &TrafficConfig, space: &NodeSpace, run_seed: u64, units: Option<crate::link::units::Units>) -> Result<Workload> {
        if let Some(t) = &cfg.trace {
            return Self::build_trace(cfg, t, space, run_seed, units);
        }
        let flit_bytes = units.map(|u| u.flit_bytes);
        let size = PacketSize::build(&cfg.packet_size, "traffic.packet_size")?;
        let message = match &cfg.message {
            None => None,
            Some(m) => {
                if cfg.packet_size != PacketSizeConfig::default() {
                    return Err(Error::config(
                        "traffic.packet_size",
                        "with `traffic.message` the packets' sizes follow from the message, MTU and flit size; remove `packet_size`",
                    ));
                }
                if cfg.packets_per_source.is_some() {
                    return Err(Error::config(
                        "traffic.packets_per_source",
                        "with `traffic.message` limit messages instead: use `traffic.message.per_source`",
                    ));
                }
                Some(Message::build(m, flit_bytes, "traffic.message")?)
            }
        };
        // Loads count flits; a creation is a whole message with messages.
        let size = match message {
            Some(m) => PacketSize::message(&m),
            None => size,
        };
        check_load(cfg.load, &cfg.injection, size.mean(), "traffic.load")?;
        if cfg.source_queue == Some(0) {
            return Err(Error::config(
                "traffic.source_queue",
                "a source queue of 0 packets could never hold a packet; use at least 1, or remove it for an unbounded queue",
            ));
        }
        if cfg.packets_per_source == Some(0) {
            return Err(Error::config(
                "traffic.packets_per_source",
                "packets_per_source 0 would create no packets at all; set it to at least 1 \
                 (e.g. N - 1 for one all-to-all exchange), or remove it for no limit",
            ));
        }
        let mut patterns = vec![Pattern::build(&cfg.pattern, space, run_seed, "traffic.pattern")?];
        let injection = |load: f64, load_path: &str| {
            InjectionProcess::build_at(&cfg.injection, load, size.mean(), "traffic.injection", Some(load_path))
        };

        let mut info = Vec::new();
        let mut phases = Vec::new();
        if cfg.phases.is_empty() {
            info.push(PhaseInfo { start: 0, end: u64::MAX, load: cfg.load });
            phases.push(Phase { pattern: 0, injection: injection(cfg.load, "traffic.load")? });
        }
        let mut start = 0u64;
        for (i, ph) in cfg.phases.iter().enumerate() {
            let path = format!("traffic.phases[{i}]");
            if ph.duration == 0 {
                return Err(Error::config(
                    format!("{path}.duration"),
                    "duration 0 is empty; a phase lasts at least 1 cycle (remove the phase instead)",
                ));
            }
            let end = start.checked_add(ph.duration).filter(|&e| e < u64::MAX).ok_or_else(|| {
                Error::config(
                    format!("{path}.duration"),
                    format!(
                        "duration {} makes the schedule end after cycle {}, past the last \
                         representable cycle; use a shorter duration",
                        ph.duration,
                        u64::MAX - 1
                    ),
                )
            })?;
            let load_path = format!("{path}.load");
            check_load(ph.load, &cfg.injection, size.mean(), &load_path)?;
            let pattern = match &ph.pattern {
                None => 0,
                Some(p) => {
                    patterns.push(Pattern::build(p, space, run_seed, &format!("{path}.pattern"))?);
                    patterns.len() - 1
                }
            };
            info.push(PhaseInfo { start, end, load: ph.load });
            phases.push(Phase { pattern, injection: injection(ph.load, &load_path)? });
            start = end;
        }
        let backlogged = cfg.injection == InjectionConfig::Backlogged;
        if backlogged {
            // A backlogged source offers all the injection channel carries.
            info.iter_mut().for_each(|p| p.load = 1.0);
        }
        if message.is_some_and(|m| m.exchange) {
            if let Some(i) = patterns.iter().position(|p| !p.pairs()) {
                return Err(Error::config(
                    "traffic.message.exchange",
                    format!(
                        "an exchange waits for the messages a node's destination sends back, but pattern {i} does not pair the nodes (a destination that does not send back to its source would never answer); use random_bisection, bridge or a permutation that pairs them, or remove exchange"
                    ),
                ));
            }
        }
        if message.is_some() && patterns.iter().any(|p| p.round_of(0).is_some()) {
            return Err(Error::config(
                "traffic.message",
                "a pattern with rounds (recursive doubling) counts single packets; remove `traffic.message` or use another pattern",
            ));
        }
        let per_message = message.map_or(1, |m| m.packets as u64);
        let source_queue = match cfg.source_queue {
            Some(q) => (q as u64 * per_message).min(u32::MAX as u64) as u32,
            // A backlogged source holds one message (or packet) at a time.
            None if backlogged => per_message.min(u32::MAX as u64) as u32,
            None => u32::MAX,
        };
        let packets_per_source = match message {
            Some(m) => m.per_source.saturating_mul(per_message),
            None => cfg.packets_per_source.unwrap_or(u64::MAX),
        };
        Ok(Workload { info, phases, patterns, size, packets_per_source, source_queue, message, backlogged, reachable: None, trace: None })
    }

    /// A trace workload: `[traffic.trace]` and nothing else in `[traffic]`.
    fn build_trace(
        cfg: &TrafficConfig,
        t: &TraceConfig,
        space: &NodeSpace,
        seed: u64,
        units: Option<crate::link::units::Units>,
    ) -> Result<Workload> {
        let alone = TrafficConfig { trace: Some(t.clone()), ..TrafficConfig::default() };
        let other = [
            ("load", cfg.load != alone.load),
            ("pattern", cfg.pattern != alone.pattern),
            ("injection", cfg.injection != alone.injection),
            ("packet_size", cfg.packet_size != alone.packet_size),
            ("phases", !cfg.phases.is_empty()),
            ("packets_per_source", cfg.packets_per_source.is_some()),
            ("source_queue", cfg.source_queue.is_some()),
            ("message", cfg.message.is_some()),
        ];
        if let Some((key, _)) = other.iter().find(|x| x.1) {
            return Err(Error::config(
                format!("traffic.{key}"),
                "a trace says where, when and how big every message is; remove this key (or the trace)",
            ));
        }
        let trace = if t.format == app::TraceFormat::Messages {
            let plain =
                TraceConfig { file: t.file.clone(), messages: t.messages.clone(), packet_flits: t.packet_flits, ..TraceConfig::default() };
            let app_keys = [
                ("placement", t.placement != plain.placement),
                ("compute_scale", t.compute_scale != plain.compute_scale),
                ("collectives", t.collectives != plain.collectives),
            ];
            if let Some((key, _)) = app_keys.iter().find(|x| x.1) {
                return Err(Error::config(
                    format!("traffic.trace.{key}"),
                    "this option is for application traces (format = \"ranks\" or \"otf2\"); a trace of messages says where each goes",
                ));
            }
            Trace::build(t, space.num_nodes, "traffic.trace")?
        } else {
            app::build(t, space, seed, units, "traffic.trace")?
        };
        // The routers size their buffers and credit tests for the largest packet.
        let size = PacketSize::build(&PacketSizeConfig::Fixed(trace.largest_packet()), "traffic.trace.packet_flits")?;
        let pattern = Pattern::build(&PatternConfig::default(), space, 0, "traffic.pattern")?;
        let injection = InjectionProcess::build_at(&InjectionConfig::default(), 0.0, 1.0, "traffic.injection", None)?;
        Ok(Workload {
            // One open-ended phase; its offered load is left at 0: the trace sets the times.
            info: vec![PhaseInfo { start: 0, end: u64::MAX, load: 0.0 }],
            phases: vec![Phase { pattern: 0, injection }],
            patterns: vec![pattern],
            size,
            packets_per_source: u64::MAX,
            source_queue: u32::MAX,
            message: None,
            backlogged: false,
            reachable: None,
            trace: Some(std::sync::Arc::new(trace)),
        })
    }

    /// The trace replayed (with `traffic.trace`).
    #[inline]
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_deref()
    }

    /// Is endpoint `e` alive at `now` (its router has not failed)? A failed node
    /// creates nothing more, and nothing is sent to it.
    #[inline]
    pub fn alive(&self, now: u64, e: u32) -> bool {
        self.reachable.as_ref().is_none_or(|r| r.dead_from[e as usize] > now)
    }

    /// Can a packet from `src` reach `dst` at `now` under the failures (`dst` alive, and
    /// the routes connect the pair)?
    #[inline]
    pub fn routable(&self, now: u64, src: u32, dst: u32) -> bool {
        self.alive(now, dst) && self.reachable.as_ref().is_none_or(|r| r.mask.as_ref().is_none_or(|m| m.get(src, dst)))
    }

    /// Failures: endpoints with `dead[e]` create nothing, and a packet whose destination
    /// `mask` says is unreachable is not injected but counted in its source's state
    /// ([`SourceState::unroutable`]), as the NIC would refuse it.
    pub fn restrict_to(&mut self, mask: std::sync::Arc<crate::routing::cdg::PairMask>, dead: &[bool]) {
        let dead_from = dead.iter().map(|&d| if d { 0 } else { u64::MAX }).collect();
        self.reachable = Some(Reachable { mask: Some(mask), dead_from });
    }

    /// Nodes failing during the run (`[[faults.at]]` nodes): endpoint `e` dies at cycle
    /// `at` for each `(e, at)` of `deaths` (`endpoints`: how many there are). From then
    /// on it creates nothing and packets to it are refused as unreachable ones are.
    pub fn fail_later(&mut self, endpoints: u32, deaths: &[(u32, u64)]) {
        let reach = self.reachable.get_or_insert_with(|| Reachable { mask: None, dead_from: vec![u64::MAX; endpoints as usize] });
        for &(e, at) in deaths {
            let d = &mut reach.dead_from[e as usize];
            *d = (*d).min(at);
        }
    }

    /// The config key of the workload that waits for data (`traffic.trace` or
    /// `traffic.pattern`).
    pub fn dependency_key(&self) -> &'static str {
        if self.trace.is_some() {
            "traffic.trace"
        } else {
            "traffic.pattern"
        }
    }

    /// What waits for data (so that an undeliverable packet would stall it for ever),
    /// named for error messages: a trace with `after`, or a recursive-doubling exchange.
    pub fn dependency(&self) -> Option<&'static str> {
        if self.trace.as_ref().is_some_and(|t| t.has_waits()) {
            Some("a trace whose messages wait for others (`after`)")
        } else if self.patterns.iter().any(|p| p.round_of(0).is_some()) {
            Some("a recursive-doubling exchange")
        } else {
            None
        }
    }

    /// The phases in order. Without a schedule, a single phase `[0, u64::MAX)` at
    /// `traffic.load`.
    pub fn phases(&self) -> &[PhaseInfo] {
        &self.info
    }

    /// Does every source stop creating at some point: a packet (or message) budget per
    /// source, or a phased schedule that ends? (`sim.until_done` needs it.)
    pub fn ends(&self) -> bool {
        self.trace.is_some() || self.packets_per_source != u64::MAX || self.info.last().is_some_and(|p| p.end != u64::MAX)
    }

    /// Index of the phase that contains `cycle`; `None` after the last phase of a
    /// schedule (injection has stopped).
    pub fn phase_at(&self, cycle: u64) -> Option<usize> {
        let i = self.info.partition_point(|p| p.end <= cycle);
        (i < self.info.len()).then_some(i)
    }

    /// Message-level traffic: the shape of every message (`None`: single packets).
    #[inline]
    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// Backlogged sources: create whenever the source queue has room, count nothing
    /// suppressed.
    #[inline]
    pub fn backlogged(&self) -> bool {
        self.backlogged
    }

    /// The packet-size distribution (shared by all phases).
    pub fn size(&self) -> &PacketSize {
        &self.size
    }

    /// The pattern in force during `phase`.
    pub fn pattern(&self, phase: usize) -> &Pattern {
        &self.patterns[self.phases[phase].pattern]
    }

    /// Initial injection state of endpoint `src`, drawn from the first phase's process
    /// (on/off sources start in its stationary distribution, periodic sources at a random
    /// offset within their first interval). The state then carries over phase boundaries:
    /// on/off sources relax to each new phase's distribution within about `burst_length`
    /// cycles, periodic sources scale the time to their next packet to the new interval;
    /// a zero-load phase leaves it untouched.
    pub fn new_source_state(&self, src: u32, rng: &mut SimRng) -> SourceState {
        debug_assert!(src < self.patterns[0].num_nodes());
        self.phases[0].injection.initial_state(rng)
    }

    /// Whether an exchange's source waits for its peer's answer: it has created k whole
    /// messages and received fewer than k ([`MessageConfig::exchange`]).
    #[inline]
    fn awaits_answer(&self, state: &SourceState) -> bool {
        self.message.is_some_and(|m| m.exchange && state.messages_in < state.created / m.packets as u64)
    }

    /// Called once per endpoint per cycle with the phase index from
    /// [`phase_at`](Self::phase_at). Returns `Some((dest, size_flits))` if endpoint `src`
    /// creates a packet this cycle, and counts it in `state`. Endpoints that are not
    /// sources under the phase's pattern (merge_to_one's destination) and sources that
    /// have created `traffic.packets_per_source` packets return `None` without drawing.
    /// Hot path, no allocation.
    #[inline(always)]
    pub fn generate(&self, now: u64, phase: usize, src: u32, state: &mut SourceState, rng: &mut SimRng) -> Option<(u32, u32)> {
        let ph = &self.phases[phase];
        let pattern = &self.patterns[ph.pattern];
        if state.created >= self.packets_per_source
            || !pattern.is_source(src)
            || self.awaits_answer(state)
            || pattern.may_create(state.created, &state.received) != Some(true)
            || !ph.injection.fires(state, rng)
        {
            return None;
        }
        // With messages, a creation is a whole message: its packets take the next
        // `packets` sequence numbers, and the pattern sees the message's index.
        let (k, count, size) = match &self.message {
            Some(m) => (state.created / m.packets as u64, m.packets as u64, m.flits_of(0)),
            None => (state.created, 1, 0),
        };
        state.created += count;
        let dest = pattern.dest(src, k, rng);
        let size = if self.message.is_some() { size } else { self.size.sample(rng) };
        if self.reachable.is_some() {
            if !self.alive(now, src) {
                // A failed node's endpoint sends nothing (its draws are kept, so the
                // other sources' streams do not depend on which nodes failed).
                state.created -= count;
                return None;
            }
            if !self.routable(now, src, dest) {
                state.unroutable += count;
                state.to_failed += !self.alive(now, dest) as u64 * count;
                return None;
            }
        }
        Some((dest, size))
    }

    /// Will source `src` (state `state`) never create another packet? True when it has
    /// created its quota, is not a source of the pattern in force, or its node failed;
    /// always true after the schedule (`phase` `None`).
    pub fn exhausted(&self, now: u64, phase: Option<usize>, src: u32, state: &SourceState) -> bool {
        let Some(ph) = phase else { return true };
        state.created >= self.packets_per_source || !self.patterns[self.phases[ph].pattern].is_source(src) || !self.alive(now, src)
    }

    /// When source `src` (state `state`, trace cursor `cursor`) may next create, as far
    /// as its state tells (endpoint activity tracking, `endpoint/wake.rs`): only
    /// sources whose [`Workload::generate`] (or trace replay) would neither create nor
    /// draw a random number in a cycle skip it, so that skipping changes no result.
    pub fn next_creation(&self, now: u64, phase: Option<usize>, src: u32, state: &SourceState, cursor: &trace::Cursor) -> NextCreation {
        let Some(ph) = phase else { return NextCreation::OnDelivery };
        if let Some(t) = &self.trace {
            return match t.next_due(src, cursor) {
                Some(at) if self.alive(now, src) => NextCreation::At(at),
                _ => NextCreation::OnDelivery,
            };
        }
        let p = &self.phases[ph];
        let pattern = &self.patterns[p.pattern];
        if state.created >= self.packets_per_source
            || !pattern.is_source(src)
            || self.awaits_answer(state)
            || pattern.may_create(state.created, &state.received) != Some(true)
            || p.injection.is_silent()
        {
            NextCreation::OnDelivery
        } else {
            NextCreation::EveryCycle
        }
    }

    /// A packet created in `phase` as its source's `seq`-th packet was delivered to the
    /// endpoint whose source state is `state`: patterns with data dependencies
    /// (recursive doubling) count it for the round it belongs to.
    #[inline]
    pub fn delivered(&self, phase: u32, seq: u64, state: &mut SourceState) {
        let Some(ph) = self.phases.get(phase as usize) else { return };
        if let Some(r) = self.patterns[ph.pattern].round_of(seq) {
            state.received[r] += 1;
        }
    }

    /// Offered load of `phase` in flits/node/cycle (as configured; a pattern's
    /// non-sources offer nothing).
    pub fn offered_load(&self, phase: usize) -> f64 {
        self.info[phase].load
    }
}

#[cfg(test)]
mod tests;
