//! Config table `[routing]`: the routing function and its parameters, as a config gives
//! them ([`super::RoutingFunction::build`] builds the function).

use serde::{Deserialize, Serialize};

use super::{adaptive, dor, dragonfly, graph, hyperx, source, table, updown_net};

/// Config table `[routing]`. `type` may be left out: it defaults to `dor`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(!remote, tag = "type")]
pub enum RoutingConfig {
    /// Dimension-order routing, minimal in every dimension; on torus dimensions the VCs
    /// are split into two dateline classes (lower half before the dateline, upper half
    /// from the hop that crosses it) so the ring cannot deadlock.
    Dor {
        /// Order in which dimensions are corrected, e.g. `[2, 0, 1]` for z, x, y.
        /// Default: natural order (x, then y, then z).
        #[serde(default)]
        order: Option<Vec<u32>>,
        /// Use dateline VC classes on torus dimensions (default true). `false` leaves the
        /// torus rings cyclic: deadlock becomes possible (the watchdog reports it); only for
        /// studying deadlock.
        #[serde(default = "yes")]
        datelines: bool,
        /// Traffic classes (1..=8, default 1): the VCs are split into this many equal
        /// groups (class `c` = VCs `[c*V/classes, (c+1)*V/classes)`) and a packet never
        /// leaves the class of the VC it was injected on; the dateline split is made
        /// inside each class. The Cray XT uses 2 (request VC0/VC1, response VC2/VC3).
        /// Synthetic sources inject into class 0 (requests).
        #[serde(default = "one")]
        classes: u32,
        /// Direction of a tie, a destination exactly half way round an even torus ring:
        /// `plus` (default: always `+`), `random` (a fair coin per packet, as BookSim2),
        /// `source_parity` or `destination_parity` (`+` from or to an even coordinate in
        /// that dimension). The default is the papers' routers'; on a torus that models no
        /// particular machine, `source_parity` with `dateline_class = "at_entry"` carries
        /// 12-33% more uniform traffic (experiments/validation/booksim/README.md). See
        /// [`dor::TiePolicy`].
        #[schemars(!skip_serializing_if)]
        #[serde(default, skip_serializing_if = "is_default")]
        ties: dor::TiePolicy,
        /// When a packet that crosses a torus ring's dateline takes the upper VC class:
        /// `at_wrap` (default: on the wrap-around hop, as the Cray XT's dateline) or
        /// `at_entry` (for the whole dimension, chosen where it enters, as BookSim2; 1-7%
        /// more throughput). See [`dor::DatelineClass`].
        #[schemars(!skip_serializing_if)]
        #[serde(default, skip_serializing_if = "is_default")]
        dateline_class: dor::DatelineClass,
    },
    /// Table-driven routing (Cray XT): per-input-port lookup tables, hierarchical
    /// (global tables by destination region, local tables within it), generated from
    /// dimension-order routing with the same `order`, `datelines` and `classes`.
    Table {
        /// Dimension order of the generated routes (default natural).
        #[serde(default)]
        order: Option<Vec<u32>>,
        /// Dateline VC classes on torus dimensions (default true).
        #[serde(default = "yes")]
        datelines: bool,
        /// Traffic classes (1..=8, default 1), as for `dor`.
        #[serde(default = "one")]
        classes: u32,
        /// Ties on even rings in the generated tables, as for `dor`, but one route per
        /// destination: `plus` (default), `source_parity` or `destination_parity`.
        #[schemars(!skip_serializing_if)]
        #[serde(default, skip_serializing_if = "is_default")]
        ties: dor::TiePolicy,
        /// Dateline classes of the generated tables under `vc_policy = "dor"`, as for
        /// `dor`: `at_wrap` (default) or `at_entry`. The XT policies keep their own.
        #[schemars(!skip_serializing_if)]
        #[serde(default, skip_serializing_if = "is_default")]
        dateline_class: dor::DatelineClass,
        /// Nodes per region: a power of two and a whole number of YZ planes (default
        /// 4096, SeaStar's local table size). Networks of at most this many nodes have
        /// one region and route exactly as `dor`.
        #[serde(default = "d_region")]
        region_size: u32,
        /// VC assignment (Cray XT, section 3 of the VC-assignment paper): `dor` (default:
        /// the dateline classes of `dor`, any VC where free), or the XT policies
        /// `initial`, `v1`, `v2`, `v3`, which pick VC0 or VC1 of the class per dimension
        /// with a dateline node per torus dimension (they need 2 VCs per class).
        #[serde(default)]
        vc_policy: table::VcPolicy,
        /// Dateline node per dimension (its coordinate) for the XT policies. Default: the
        /// last node of each dimension (k - 1). Ignored on mesh dimensions.
        #[serde(default)]
        dateline: Option<table::Datelines>,
        /// Where each ring's dateline node is around failed links, for the XT
        /// policies: `at_failures` (default): a ring with a failed link has its own
        /// dateline node just past the failure, so a packet that detours around the
        /// failure re-enters the ring on VC1 and the rules' detours do not close the
        /// broken ring into a dependency cycle (flitsim's placement: the tables hold a
        /// VC rule per entry, so they can express it); or `dimension`: every ring of a dimension at
        /// `dateline`, one node per dimension as the paper describes. Rings without
        /// failures are the same under both.
        #[serde(default)]
        ring_datelines: table::RingDatelines,
        /// Load the tables from this file instead of generating them (one written by
        /// `flitsim routes CONFIG --write-tables FILE`, possibly edited; a relative path is
        /// read from the folder of the config file that names it). The file fixes the tables, VC rules and datelines;
        /// the fields above must still describe the same classes. Loaded tables are
        /// checked like routes around failures: every pair connected, no dependency
        /// cycle. Default: generate.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tables: Option<String>,
        /// A packet arriving at a dateline node on VC1 and passing through "is considered
        /// a software error and it will be dropped by the router" (XT VC-assignment paper,
        /// section 3). `refuse` (default): check the tables first and refuse a set that
        /// would drop any pair's packets, naming the pairs; `drop`: run it, the router
        /// dropping those packets (counted in the result's `dateline_drops` and
        /// `counters.packets_lost`). Generated tables drop nothing; this is for tables
        /// loaded from a file. XT VC policies only.
        #[serde(default)]
        dateline_errors: table::DatelineErrors,
    },
    /// Minimal fully adaptive routing with deadlock avoidance (Duato escape VCs) or
    /// recovery (Disha), as in the self-tuned congestion-control paper; needs the
    /// central-arbiter router (`router.type = "central"`).
    Adaptive {
        /// `avoidance` (default: Duato, escape VCs routed dimension-order) or `recovery`
        /// (Disha: all VCs adaptive, time-out, deadlock buffers and a token).
        #[serde(default)]
        deadlock: adaptive::DeadlockHandling,
        /// Escape network of `avoidance`: `mesh_dor` (default: one VC, dimension-order
        /// without wrap-around channels) or `dateline_dor` (two VCs, minimal, dateline).
        #[serde(default)]
        escape: adaptive::Escape,
        /// Disha: cycles a blocked header waits before it is presumed deadlocked
        /// (1..=65535, default 8 as in the paper).
        #[serde(default = "d_timeout")]
        timeout: u32,
        /// Dimension order of the escape routes and the recovery path (default natural).
        #[serde(default)]
        order: Option<Vec<u32>>,
    },
    /// Source routing on a Kautz graph (SiCortex): the string-shift shortest route, with
    /// VCs assigned by node order (a packet moves down one VC at a node that is higher
    /// than both its neighbours on the route); needs `floor(D/2) + 1` VCs.
    Source {
        /// The first VC: `exact` (default: the route's number of decrements, so the
        /// packet arrives on VC 0) or `half` (`floor(D/2)` for every packet).
        #[serde(default)]
        vc_start: source::VcStart,
        /// Multi-rail (section 6.1): spread each pair's packets round robin over this many
        /// of its node-disjoint routes (1..=d; shortest first). Default 1 (the shortest
        /// route). Longer routes need up to floor(D/2) + 2 VCs. Crosspoint switches only.
        #[serde(default = "one")]
        rails: u32,
        /// Multi-rail only for long messages (section 6.1: "long messages ... are split
        /// into three separate streams"): messages of at least this many bytes take the
        /// `rails`, shorter ones the shortest route. Needs `traffic.message`. Default:
        /// none (every packet multi-rail).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rail_threshold: Option<u64>,
    },
    /// Up*/down* source routing on a fat tree (Clos, k-ary n-tree): the NIC chooses one
    /// of the shortest up*/down* routes per packet and the packet carries it (one port
    /// per switch); deadlock-free on one VC. Input-queued router only.
    Updown {
        /// `static` (default: one fixed route per pair, by `static_scheme`), `random` (a
        /// random route per packet), `adaptive` or `probing` (dispersion at the NIC on
        /// sensing back-pressure, [`crate::endpoint::dispersion`]).
        #[serde(default)]
        selection: updown_net::Selection,
        /// Which route a static table holds: `destination` (default, destination-mod-k),
        /// `source` (source-mod-k) or `hashed` (pseudo-random per pair from the seed).
        #[serde(default)]
        static_scheme: updown_net::StaticSchemeConfig,
        /// Adaptive and probing: blocked packets tolerated before dispersing. Default 4
        /// (adaptive), 16 (probing), the paper's settings.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threshold: Option<u32>,
        /// Adaptive and probing: probability in [0, 1] of changing route on sensing
        /// contention. Default 0.5 (adaptive), 1 (probing).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probability: Option<f64>,
        /// Probing: failed probes in a row before a forced dispersion (>= 1). Default:
        /// none; the dispersion is forced once every other route of the pair has failed
        /// a probe twice (section 4.3: "until all possible routes have been probed
        /// multiple times"; pairs of more than 256 routes: after twice the route count).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probe_limit: Option<u32>,
    },
    /// Routing on a dragonfly ([`dragonfly`]): minimal or Valiant, with one VC class
    /// per global hop taken (deadlock-free; checked by `flitsim routes --check`).
    /// Input-queued router only.
    Dragonfly {
        /// `minimal` (default: at most one global hop; needs 2 VCs), `valiant` (via a
        /// random intermediate group drawn per packet; needs 3 VCs) or `ugal` (UGAL-L:
        /// per packet minimal or Valiant, whichever has the smaller product of the source
        /// router's output queue and hop count; needs 3 VCs).
        #[serde(default)]
        mode: dragonfly::DragonflyPath,
    },
    /// Routing on a HyperX ([`hyperx`]): dimension order, Valiant or UGAL-L, in one VC
    /// class (dimension order) or two (one per phase). Input-queued router only.
    Hyperx {
        /// `dor` (default: minimal, dimension order, x first; any number of VCs),
        /// `valiant` (via a random intermediate router per packet; VCs split in two
        /// classes, so at least 2) or `ugal` (UGAL-L: minimal or Valiant per packet by
        /// the source router's output queues; at least 2 VCs).
        #[serde(default)]
        mode: hyperx::HyperXPath,
    },
    /// Routing on any graph ([`graph`]): minimal routes with a VC class per hop, or
    /// up*/down* on one VC. Input-queued router only.
    Graph {
        /// `minimal` (default: shortest routes, VC class = hops taken; needs as many VCs
        /// as the graph's diameter) or `updown` (Autonet up*/down* from router 0: a
        /// shortest route that never goes up after down; one VC, possibly longer routes).
        #[serde(default)]
        mode: graph::GraphPath,
    },
}

crate::schema::tagged::tagged_serde!(RoutingConfig, "routing function", Some("dor"));

fn d_timeout() -> u32 {
    8
}

fn d_region() -> u32 {
    4096
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig::Dor {
            order: None,
            datelines: true,
            classes: 1,
            ties: dor::TiePolicy::default(),
            dateline_class: dor::DatelineClass::default(),
        }
    }
}
