//! Congestion control by source throttling: the `[congestion]` table and the global,
//! self-tuned throttle of Thottethodi, Lebeck and Mukherjee, *Self-Tuned Congestion
//! Control for Multiprocessor Networks* (IEEE TPDS; HPCA 2001), sections 3 and 4.
//!
//! This module is pure logic: it knows nothing of routers. The engine counts buffers and
//! delivered flits, hands them to a [`Controller`] every gather duration, and asks it once
//! per cycle whether sources are throttled. Policies ([`Policy`]):
//!
//! - `none`: no throttling.
//! - `alo`: At-Least-One (Baydal et al., the paper's section 5.1 baseline), a local test
//!   the engine makes at each source; the controller is not consulted.
//! - `static`: global estimate against a fixed threshold (the paper's Fig. 6).
//! - `tune`: global estimate against a self-tuned threshold (the paper's scheme).
//!
//! # The global estimate (section 3, [`sideband`])
//! Every `g` cycles (the gather duration) the engine samples the network-wide count of
//! full VC buffers and of flits delivered ([`Controller::on_sample`] at every multiple of
//! `g`, including cycle 0). The side-band's dimension-wise aggregation (Fig. 2) takes
//! `(k/2) h` cycles per dimension, `g` in all, so the snapshot sampled at `m g` is usable
//! from `(m + 1) g` on. At each cycle the estimate extrapolates the two newest usable
//! snapshots linearly to the present (or uses the newest, with `estimate = "last"`) and
//! sources are throttled while it is strictly above the threshold. The comparison is in
//! exact integer arithmetic, so every platform decides identically.
//! `g` defaults to the side-band's gather time on the topology ([`gather_cycles`]).
//!
//! # Self-tuning (section 4, [`tuner`])
//! At every positive multiple of the tuning period `P` (a multiple of `g`; the paper uses
//! `P = 96`, `g = 32`) the tuner updates the threshold from the period's throughput
//! (Table 1 hill climbing, section 4.1) and avoids local maxima (section 4.2). The
//! increment and decrement are fractions of all buffers counted, in whole buffers
//! (`floor(fraction x buffers)`: 1% and 4% of 3,072 are 30 and 122, as the paper says).
//! The initial threshold is the increment (the paper's "1 percent of all buffers").
//!
//! # Readings where the paper is silent (our choices)
//! - **Extrapolation origin.** The snapshot describes the network when it was sampled, so
//!   the line is carried from the sample cycle `t1` to the present `t`:
//!   `S1 + (S1 - S2)(t - t1)/g`, with `t - t1` in `[g, 2g)`. With one usable snapshot the
//!   estimate is that snapshot; with none it is 0. It is not clamped to `[0, buffers]`.
//! - **Throughput of a period** is the sum of the delivered-flit counts of the snapshots
//!   that *became usable* during it (`P/g` of them): what a node can know at the tuning
//!   instant. It therefore lags the period by `g`; the first period's count covers only
//!   `P - g` cycles (the sample of cycle 0 carries no deliveries).
//! - **"Throttling"** (Table 1's column) means the throttle decision was true in at least
//!   one cycle of the period; periods run `[(p-1)P, pP)` and the tuning at cycle `pP`
//!   acts before that cycle's decision.
//! - **No drop in the first period** (there is no previous one).
//! - **"Significantly below the maximum"** (section 4.2) uses the same `drop_fraction` as
//!   a drop; the reset takes precedence over Table 1; the `r`-th consecutive reset also
//!   forgets the maximum, and that period becomes the new maximum. `T_max` is the
//!   threshold in force during the best period; `N_max` the newest snapshot's count at
//!   the end of it.
//! - **Exact fractions.** `drop_fraction` is held to 1/65,536 and compared in integers;
//!   increments are `floor(fraction x buffers)` (a product within 1e-9 of an integer counts
//!   as that integer, so 0.29 x 100 is 29, not 28), but at least one buffer so a small
//!   network can still tune.
//! - **The threshold** is not capped (it may exceed the buffer count; the paper never
//!   reaches it) and cannot go below 0.
//! - **Gather time for odd radix and meshes.** The paper gives `(k/2) h` per dimension for
//!   its even-radix torus. A bidirectional ring of `k` nodes aggregates in `floor(k/2)`
//!   hops (each node must hear from `k - 1` others, `2j` after `j` hops), and a line
//!   (mesh dimension) in `k - 1` hops; [`gather_cycles`] uses these.
//! - **`static`** keeps its threshold; with `trace` it still records one entry per
//!   tuning period (action `hold`), and its `tuning_period` need not be a multiple of `g`.

pub mod metapacket;
pub mod sideband;
pub mod tuner;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::schema::check_range;

pub use sideband::{Sideband, Snapshot};
pub use tuner::{Action, DropFraction, Period, Tuner};

/// Config table `[congestion]`: source throttling.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CongestionConfig {
    /// `none` (default), `alo`, `static` or `tune`; see [`Policy`].
    #[serde(default)]
    pub policy: Policy,
    /// Threshold in counted buffers (0..=all buffers counted). `static`: the threshold,
    /// required. `tune`: the initial threshold; default the increment (1% of all buffers).
    /// Refused with `none` and `alo`, which use no threshold.
    #[serde(default)]
    pub threshold: Option<u32>,
    /// `h`: side-band neighbour-to-neighbour delay in cycles. Default 2
    /// (the paper's; 3 and 6 in its section 5.2.2).
    #[serde(default = "d_hop_delay")]
    #[schemars(range(min = 1, max = 1024))]
    pub hop_delay: u32,
    /// `g`: gather duration in cycles, overriding the side-band's time on the topology
    /// (`(k/2) h` per dimension: 32 for a 16x16 torus with `h = 2`) (1..=1048576).
    /// Default: computed from the topology.
    #[serde(default)]
    pub gather: Option<u32>,
    /// How the snapshots become an estimate: `extrapolate` (default) or `last`; see
    /// [`Estimate`].
    #[serde(default)]
    pub estimate: Estimate,
    /// Cycles per tuning period; for `tune` a positive multiple of the gather duration.
    /// Default 96 (the paper's).
    #[serde(default = "d_tuning_period")]
    #[schemars(range(min = 1, max = 1073741824))]
    pub tuning_period: u32,
    /// A period whose throughput is below this fraction of the previous period's is a
    /// drop (Table 1), and one below this fraction of the best period's triggers a reset
    /// (section 4.2). In (0, 1), held to 1/65,536.
    #[serde(default = "d_drop_fraction")]
    pub drop_fraction: f64,
    /// Fraction of all counted buffers added to the threshold when throttling without a
    /// drop, in (0, 1]. Default 0.01 (30 of 3,072 buffers).
    #[serde(default = "d_increment")]
    pub increment: f64,
    /// Fraction of all counted buffers subtracted from the threshold on a drop, in
    /// (0, 1]. Default 0.04 (122 of 3,072 buffers).
    #[serde(default = "d_decrement")]
    pub decrement: f64,
    /// Local-maximum avoidance (section 4.2).
    #[serde(default = "d_true")]
    pub local_max: bool,
    /// `r`: consecutive resets after which the remembered maximum is forgotten (>= 1).
    #[serde(default = "d_max_resets")]
    #[schemars(range(min = 1))]
    pub max_resets: u32,
    /// ALO only: what counts as a free VC, `unassigned` (default) or `drained`; see
    /// [`AloFree`]. Refused with the other policies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alo_free: Option<AloFree>,
    /// Which VC buffers the estimate counts: `full` (default) or `occupied`; see
    /// [`Count`].
    #[serde(default)]
    pub count: Count,
    /// Record one trace entry per tuning period in the report.
    #[serde(default = "d_true")]
    pub trace: bool,
    /// How the global counts reach the nodes: `sideband` (default, the paper's dedicated
    /// side-band) or `metapackets` (the section 5.3 alternative on the data links); see
    /// [`Distribution`]. `metapackets` with `policy = "none"` gathers without throttling
    /// (the paper's "No tune").
    #[serde(default)]
    pub distribution: Distribution,
    /// Metapackets: cycles between gather rounds (1..=1048576). Default: the side-band's
    /// gather duration `g`, so both mechanisms sample equally often.
    #[serde(default)]
    pub metapacket_interval: Option<u32>,
    /// Metapackets: flits per metapacket. Default 2 (the paper's).
    #[serde(default = "d_metapacket_flits")]
    #[schemars(range(min = 1, max = 16))]
    pub metapacket_flits: u32,
    /// Metapackets: cycles a router's adder takes to add its counts. Default 1
    /// (the paper's "one cycle adder-delay").
    #[serde(default = "d_adder_delay")]
    #[schemars(range(min = 0, max = 64))]
    pub adder_delay: u32,
    /// Metapackets: how their flits share a link with data flits: `round_robin` (default)
    /// or `priority`; see [`MetaLink`].
    #[serde(default)]
    pub metapacket_link: MetaLink,
}

fn d_metapacket_flits() -> u32 {
    2
}
fn d_adder_delay() -> u32 {
    1
}

fn d_hop_delay() -> u32 {
    2
}
fn d_tuning_period() -> u32 {
    96
}
fn d_drop_fraction() -> f64 {
    0.75
}
fn d_increment() -> f64 {
    0.01
}
fn d_decrement() -> f64 {
    0.04
}
fn d_true() -> bool {
    true
}
fn d_max_resets() -> u32 {
    5
}

impl Default for CongestionConfig {
    fn default() -> Self {
        CongestionConfig {
            policy: Policy::None,
            threshold: None,
            hop_delay: 2,
            gather: None,
            estimate: Estimate::Extrapolate,
            tuning_period: 96,
            drop_fraction: 0.75,
            increment: 0.01,
            decrement: 0.04,
            local_max: true,
            max_resets: 5,
            alo_free: None,
            count: Count::Full,
            trace: true,
            distribution: Distribution::Sideband,
            metapacket_interval: None,
            metapacket_flits: 2,
            adder_delay: 1,
            metapacket_link: MetaLink::RoundRobin,
        }
    }
}

/// The throttling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Sources are never throttled.
    #[default]
    None,
    /// At-Least-One (Baydal et al.): a source may inject only if every useful output
    /// channel of its router has a free VC, or some useful output has all VCs free. Local;
    /// evaluated by the engine, the controller is not consulted.
    Alo,
    /// Throttle while the global estimate exceeds `threshold`.
    Static,
    /// Throttle while the global estimate exceeds a self-tuned threshold.
    Tune,
}

/// What ALO counts as a free VC of an output channel (`congestion.alo_free`).
///
/// Baydal et al.'s test asks for VCs "free", i.e. not assigned to a packet. The
/// central-arbiter router gives an output VC to a new packet only once the downstream
/// buffer has drained (every credit back); between its last packet's tail leaving and
/// that moment the VC is assigned to no packet yet not reusable. Which of the two the
/// paper's simulator counted is not stated; they differ sharply under Disha recovery:
/// `unassigned` lets ALO inject into a network that then deadlocks and collapses, as the
/// paper's ALO does (uniform 0.05 packets/node/cycle: 0.005 flits/node/cycle, bursty
/// latency ~2,570 cycles against the paper's 2,571), while `drained` keeps the network
/// out of deadlock altogether (0.337, latency 139). See the self-tuned-congestion study.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AloFree {
    /// No packet holds it: its last packet's tail has left this router (default).
    #[default]
    Unassigned,
    /// Reusable: also its downstream buffer has drained.
    Drained,
}

/// How the side-band's snapshots become the estimate of the present.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Estimate {
    /// Linear extrapolation from the two newest usable snapshots (the paper's).
    #[default]
    Extrapolate,
    /// The newest usable snapshot (the paper's "previous snapshot" comparison).
    Last,
}

/// How the network-wide counts reach every node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// A dedicated side-band: every node sees the same snapshot `g` cycles after it was
    /// sampled ([`sideband`]).
    #[default]
    Sideband,
    /// Metapackets on an extra, high-priority VC of the data links, aggregated row by row
    /// ([`metapacket`]): each router sees each round when its own gather completes, and
    /// keeps its own estimate and tuner.
    Metapackets,
}

/// How metapacket flits share an output link with data flits. Either way a metapacket
/// never waits for the central arbiter (its unit routes it: the VC's priority) and never
/// for credits (the next unit absorbs it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MetaLink {
    /// One more requester in the output's flit-by-flit round robin over the VCs: a
    /// metapacket flit waits at most one turn of the data VCs. Its delay then grows with
    /// the data load and falls again when saturated data stops moving, as the paper's
    /// Fig. 11 shows.
    #[default]
    RoundRobin,
    /// Absolute priority: a metapacket flit always takes the link next cycle, so gather
    /// times do not depend on the data load.
    Priority,
}

/// Which VC buffers the estimate counts (the engine counts; the paper counts "full
/// virtual channel buffers").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// A VC buffer counts when it holds as many flits as its capacity.
    #[default]
    Full,
    /// A VC buffer counts when it holds any flit.
    Occupied,
}

impl CongestionConfig {
    /// Range checks that need no knowledge of the network; `path` is "congestion".
    pub fn validate(&self, path: &str) -> Result<()> {
        let field = |f: &str| format!("{path}.{f}");
        if let Some(g) = self.gather {
            check_range(path, "gather", g, 1, 1 << 20, "the gather duration in cycles")?;
        }
        let d = self.drop_fraction;
        if !(d > 0.0 && d < 1.0) {
            return Err(Error::config(
                field("drop_fraction"),
                format!("{d} is not a fraction in (0, 1); the paper uses 0.75 (a drop is a period below 75% of the previous one)"),
            ));
        }
        for (name, v, example) in
            [("increment", self.increment, "0.01 (1% of all buffers)"), ("decrement", self.decrement, "0.04 (4% of all buffers)")]
        {
            if !(v > 0.0 && v <= 1.0) {
                return Err(Error::config(
                    field(name),
                    format!("{v} is not a fraction in (0, 1] of all buffers; the paper uses {example}"),
                ));
            }
        }
        if let Some(i) = self.metapacket_interval {
            check_range(path, "metapacket_interval", i, 1, 1 << 20, "the cycles between metapacket gather rounds")?;
        }
        if self.policy != Policy::Alo && self.alo_free.is_some() {
            return Err(Error::config(field("alo_free"), "only policy \"alo\" counts free VCs; set policy = \"alo\", or remove alo_free"));
        }
        if matches!(self.policy, Policy::None | Policy::Alo) && self.threshold.is_some() {
            // (Refused rather than ignored: a study sweeping it would see no effect.)
            return Err(Error::config(
                field("threshold"),
                "only policies \"static\" and \"tune\" throttle against a threshold; set one of them, or remove the threshold",
            ));
        }
        if self.policy == Policy::Static && self.threshold.is_none() {
            return Err(Error::config(
                field("threshold"),
                "policy \"static\" needs a threshold in full buffers; add e.g. threshold = 250 (the paper's static threshold for uniform traffic, 8% of 3,072 buffers), or use policy = \"tune\"",
            ));
        }
        Ok(())
    }
}

/// The side-band's gather duration `g` on a k-ary n-cube (section 3.1): the sum over
/// dimensions of the hops to aggregate along that dimension times `hop_delay`. A torus
/// (ring) dimension of radix `k` takes `floor(k/2)` hops, a mesh (line) dimension `k - 1`.
/// At least 1 cycle. 32 for a 16x16 torus with `h = 2` (the paper's).
pub fn gather_cycles(dims: &[u32], wrap: &[bool], hop_delay: u32) -> u32 {
    let hops: u32 =
        dims.iter().enumerate().map(|(d, &k)| if wrap.get(d).copied().unwrap_or(true) { k / 2 } else { k.saturating_sub(1) }).sum();
    hops.saturating_mul(hop_delay).max(1)
}

/// [`gather_cycles`] with every dimension a torus ring.
pub fn default_gather(dims: &[u32], hop_delay: u32) -> u32 {
    gather_cycles(dims, &[], hop_delay)
}

/// `floor(fraction x buffers)`, taking a product within 1e-9 of an integer as that
/// integer, and at least 1.
fn buffers_of(fraction: f64, buffers: u32) -> u32 {
    let x = fraction * f64::from(buffers);
    let r = x.round();
    let whole = if (x - r).abs() <= 1e-9 * x.max(1.0) { r } else { x.floor() };
    (whole as u32).max(1)
}

/// One tuning period in the report.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct TraceEntry {
    /// The cycle the period ended (a multiple of the tuning period).
    pub cycle: u64,
    /// The threshold after this period's decision (in force from `cycle` on).
    pub threshold: u32,
    /// The period's throughput in flits/node/cycle (delivered flits of the snapshots that
    /// became usable in it, over `nodes x tuning_period`).
    pub throughput: f64,
    /// Full buffers in the newest usable snapshot.
    pub full: u32,
    /// The estimate at `cycle` (after the decision's snapshot arrived).
    pub estimate: f64,
    /// Fraction of the period's cycles in which sources were throttled.
    pub throttled_fraction: f64,
    /// What the tuner did.
    pub action: Action,
}

/// What the controller did over a run.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct CongestionReport {
    /// The policy.
    pub policy: Policy,
    /// The estimate.
    pub estimate: Estimate,
    /// Gather duration `g` in cycles.
    pub gather: u32,
    /// Tuning period in cycles.
    pub tuning_period: u32,
    /// VC buffers the estimate counts.
    pub total_buffers: u32,
    /// The increment in buffers.
    pub increment: u32,
    /// The decrement in buffers.
    pub decrement: u32,
    /// The final threshold (with metapackets: router 0's).
    pub threshold: u32,
    /// Cycles in which sources were throttled (with metapackets: router-cycles, summed
    /// over the routers).
    pub cycles_throttled: u64,
    /// Side-band samples taken (with metapackets: rounds completed, summed over routers).
    pub snapshots: u64,
    /// One entry per tuning period (with `trace`).
    pub trace: Vec<TraceEntry>,
}

/// The global throttle: side-band snapshots, the estimate and the (tuned) threshold.
#[derive(Clone, Debug)]
pub struct Controller {
    policy: Policy,
    estimate: Estimate,
    gather: u32,
    tuning_period: u32,
    total_buffers: u32,
    nodes: u32,
    increment: u32,
    decrement: u32,
    record: bool,
    sideband: Sideband,
    tuner: Tuner,
    /// Cumulative delivered flits at the previous sample.
    last_delivered: u64,
    /// Delivered flits of the snapshots that became usable in the current period.
    period_delivered: u64,
    /// Throttled cycles in the current period.
    period_throttled: u64,
    cycles_throttled: u64,
    snapshots: u64,
    /// The cycle of the last [`Controller::throttled`] call and its answer.
    decided: Option<(u64, bool)>,
    trace: Vec<TraceEntry>,
    /// Metapackets: each router's own snapshots, tuner and period (empty on a side-band).
    views: Vec<RouterView>,
    /// Metapackets: this cycle's decision per router.
    bits: Vec<bool>,
}

/// What one router knows when the counts travel in metapackets: the two newest rounds it
/// completed, its own tuner, and its own tuning period's counts.
#[derive(Clone, Debug)]
struct RouterView {
    latest: Option<Snapshot>,
    before: Option<Snapshot>,
    tuner: Tuner,
    /// Cumulative delivered flits of the newest round.
    last_delivered: u64,
    period_delivered: u64,
    period_throttled: u64,
}

impl Controller {
    /// A controller for `cfg`. `total_buffers`: VC buffers counted by the estimate (3,072
    /// in the paper's network); `gather`: `g` in cycles (already resolved by the engine:
    /// `cfg.gather` or the topology's [`gather_cycles`]); `nodes`: endpoint count.
    pub fn new(cfg: &CongestionConfig, total_buffers: u32, gather: u32, nodes: u32) -> Result<Self> {
        let path = "congestion";
        cfg.validate(path)?;
        if gather == 0 {
            return Err(Error::config("congestion.gather", "is 0: the gather duration must be at least one cycle"));
        }
        if nodes == 0 {
            return Err(Error::config(path, "the network has no endpoints to throttle"));
        }
        let global = matches!(cfg.policy, Policy::Static | Policy::Tune);
        if global && total_buffers == 0 {
            return Err(Error::config("congestion.policy", "the network has no VC buffers to count; use policy = \"none\""));
        }
        if let (true, Some(t)) = (global, cfg.threshold) {
            if t > total_buffers {
                return Err(Error::config(
                    "congestion.threshold",
                    format!("{t} is more than the {total_buffers} buffers the estimate counts, so sources would never be throttled; use threshold <= {total_buffers}"),
                ));
            }
        }
        let p = cfg.tuning_period;
        if cfg.policy == Policy::Tune && cfg.distribution == Distribution::Sideband && !p.is_multiple_of(gather) {
            let below = p / gather * gather;
            let suggest = if below == 0 { format!("{gather}") } else { format!("{below} or {}", below + gather) };
            let source = if cfg.gather.is_some() {
                "congestion.gather".to_string()
            } else {
                format!("the topology's side-band (hop_delay {})", cfg.hop_delay)
            };
            return Err(Error::config(
                "congestion.tuning_period",
                format!("{p} cycles is not a multiple of the gather duration g = {gather} cycles (from {source}); the tuner needs whole snapshots per period: use tuning_period = {suggest}"),
            ));
        }
        let increment = buffers_of(cfg.increment, total_buffers);
        let decrement = buffers_of(cfg.decrement, total_buffers);
        let initial = cfg.threshold.unwrap_or(increment);
        Ok(Controller {
            policy: cfg.policy,
            estimate: cfg.estimate,
            gather,
            tuning_period: p,
            total_buffers,
            nodes,
            increment,
            decrement,
            record: cfg.trace,
            sideband: Sideband::new(gather, cfg.estimate),
            tuner: Tuner::new(initial, increment, decrement, DropFraction::new(cfg.drop_fraction), cfg.local_max, cfg.max_resets),
            last_delivered: 0,
            period_delivered: 0,
            period_throttled: 0,
            cycles_throttled: 0,
            snapshots: 0,
            decided: None,
            trace: Vec::new(),
            views: Vec::new(),
            bits: Vec::new(),
        })
    }

    /// Switch to per-router estimates for a metapacket gather over `routers` routers:
    /// every router runs the estimate and the tuner on the rounds it completes
    /// ([`Controller::on_gathered`], [`Controller::throttled_each`]).
    pub fn per_router(mut self, routers: u32) -> Self {
        let view = RouterView {
            latest: None,
            before: None,
            tuner: self.tuner.clone(),
            last_delivered: 0,
            period_delivered: 0,
            period_throttled: 0,
        };
        self.views = vec![view; routers as usize];
        self.bits = vec![false; routers as usize];
        self
    }

    /// Metapackets: a round completed at a router (see
    /// [`metapacket::Completion`]); usable from now on.
    pub fn on_gathered(&mut self, c: &metapacket::Completion) {
        let v = &mut self.views[c.router as usize];
        let window = c.sum.delivered.saturating_sub(v.last_delivered);
        v.last_delivered = c.sum.delivered;
        let s = Snapshot { cycle: c.launch, full: u32::try_from(c.sum.full).unwrap_or(u32::MAX), delivered: window };
        v.before = v.latest.replace(s);
        v.period_delivered += window;
        self.snapshots += 1;
    }

    /// Metapackets: [`Controller::throttled`] per router, each on its own estimate and
    /// threshold. At each positive multiple of the tuning period every router's tuner
    /// acts first; the trace follows router 0. `cycles_throttled` counts router-cycles.
    pub fn throttled_each(&mut self, now: u64) -> &[bool] {
        if !matches!(self.policy, Policy::Static | Policy::Tune) {
            return &self.bits;
        }
        let end = now > 0 && now.is_multiple_of(u64::from(self.tuning_period));
        for i in 0..self.views.len() {
            if end {
                let v = &mut self.views[i];
                let full = v.latest.map_or(0, |s| s.full);
                let delivered = std::mem::take(&mut v.period_delivered);
                let throttled_cycles = std::mem::take(&mut v.period_throttled);
                let action = match self.policy {
                    Policy::Tune => v.tuner.tune(Period { delivered, throttled: throttled_cycles > 0, full }),
                    _ => Action::Hold,
                };
                if i == 0 && self.record {
                    let p = f64::from(self.tuning_period);
                    let (num, den) = sideband::fraction(self.estimate, v.latest, v.before, now);
                    self.trace.push(TraceEntry {
                        cycle: now,
                        threshold: v.tuner.threshold(),
                        throughput: delivered as f64 / (f64::from(self.nodes) * p),
                        full,
                        estimate: num as f64 / den as f64,
                        throttled_fraction: throttled_cycles as f64 / p,
                        action,
                    });
                }
            }
            let v = &mut self.views[i];
            let (num, den) = sideband::fraction(self.estimate, v.latest, v.before, now);
            let answer = num > i128::from(v.tuner.threshold()) * den;
            v.period_throttled += answer as u64;
            self.cycles_throttled += answer as u64;
            self.bits[i] = answer;
        }
        &self.bits
    }

    /// The policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The gather duration `g` in cycles.
    pub fn gather(&self) -> u32 {
        self.gather
    }

    /// True at cycles where the engine must hand a sample: `now % g == 0` (including 0).
    pub fn sample_due(&self, now: u64) -> bool {
        now.is_multiple_of(u64::from(self.gather))
    }

    /// The side-band sample taken at cycle `now` (a multiple of `g`): `full` = buffers
    /// counted at the start of cycle `now`; `delivered` = total flits delivered to
    /// endpoints since cycle 0. The aggregate is usable from cycle `now + g` on.
    pub fn on_sample(&mut self, now: u64, full: u32, delivered: u64) {
        debug_assert!(self.sample_due(now), "sample at cycle {now}, not a multiple of g = {}", self.gather);
        debug_assert!(delivered >= self.last_delivered, "delivered flits must not decrease");
        let window = delivered.saturating_sub(self.last_delivered);
        self.last_delivered = delivered;
        self.snapshots += 1;
        if let Some(arrived) = self.sideband.sample(now, full, window) {
            self.period_delivered += arrived.delivered;
        }
    }

    /// Called once per cycle after any [`Controller::on_sample`] of that cycle: at each
    /// positive multiple of the tuning period ends the period (tuning the threshold with
    /// `tune`), then says whether sources are throttled this cycle (the estimate strictly
    /// above the threshold). Always false for `none` and `alo`. A second call in the same
    /// cycle returns the first answer.
    pub fn throttled(&mut self, now: u64) -> bool {
        if let Some((cycle, answer)) = self.decided {
            if cycle == now {
                return answer;
            }
        }
        if !matches!(self.policy, Policy::Static | Policy::Tune) {
            self.decided = Some((now, false));
            return false;
        }
        if now > 0 && now.is_multiple_of(u64::from(self.tuning_period)) {
            self.end_period(now);
        }
        let answer = self.sideband.exceeds(now, self.tuner.threshold());
        if answer {
            self.period_throttled += 1;
            self.cycles_throttled += 1;
        }
        self.decided = Some((now, answer));
        answer
    }

    fn end_period(&mut self, now: u64) {
        let full = self.sideband.latest(now).map_or(0, |s| s.full);
        let delivered = std::mem::take(&mut self.period_delivered);
        let throttled_cycles = std::mem::take(&mut self.period_throttled);
        let action = match self.policy {
            Policy::Tune => self.tuner.tune(Period { delivered, throttled: throttled_cycles > 0, full }),
            _ => Action::Hold,
        };
        if self.record {
            let p = f64::from(self.tuning_period);
            self.trace.push(TraceEntry {
                cycle: now,
                threshold: self.tuner.threshold(),
                throughput: delivered as f64 / (f64::from(self.nodes) * p),
                full,
                estimate: self.sideband.estimate(now),
                throttled_fraction: throttled_cycles as f64 / p,
                action,
            });
        }
    }

    /// The current threshold in buffers (router 0's with metapackets).
    pub fn threshold(&self) -> u32 {
        self.views.first().map_or(self.tuner.threshold(), |v| v.tuner.threshold())
    }

    /// What the controller did so far.
    pub fn report(&self) -> CongestionReport {
        CongestionReport {
            policy: self.policy,
            estimate: self.estimate,
            gather: self.gather,
            tuning_period: self.tuning_period,
            total_buffers: self.total_buffers,
            increment: self.increment,
            decrement: self.decrement,
            threshold: self.threshold(),
            cycles_throttled: self.cycles_throttled,
            snapshots: self.snapshots,
            trace: self.trace.clone(),
        }
    }
}

#[cfg(test)]
mod tests;
