//! The routing functions and their parameters as `flitsim list` shows them (the same
//! registry the config docs are generated from).

/// Registry entries for `flitsim list`.
pub const REGISTRY: &[crate::schema::Entry] = &[crate::schema::Entry {
    family: "routing",
    name: "dor",
    summary: "dimension-order routing, minimal per dimension, dateline VC classes on torus rings",
    params: &[
        ("order", "natural", "order in which dimensions are corrected, e.g. [2, 0, 1]"),
        ("datelines", "true", "split VCs into two dateline classes on torus dimensions"),
        ("classes", "1", "traffic classes (VC groups, e.g. 2 = request/response); datelines split each"),
        ("ties", "plus", "direction to a destination half way round an even ring: plus | random (per packet, BookSim2's) | source_parity | destination_parity (a torus modelling no machine: source_parity with at_entry carries most)"),
        ("dateline_class", "at_wrap", "when a packet crossing the dateline takes the upper VC class: at_wrap (the wrap hop, the XT's) | at_entry (the whole dimension, BookSim2's; more throughput)"),
    ],
}, crate::schema::Entry {
    family: "routing",
    name: "table",
    summary: "Cray XT table-driven routing: per-input-port global/local lookup tables generated from DOR",
    params: &[
        ("order", "natural", "dimension order of the generated routes"),
        ("datelines", "true", "dateline VC classes on torus dimensions"),
        ("classes", "1", "traffic classes, as for dor"),
        ("ties", "plus", "ties on even rings, as for dor, one route per destination: plus | source_parity | destination_parity"),
        ("dateline_class", "at_wrap", "with vc_policy = dor, as for dor: at_wrap | at_entry"),
        ("region_size", "4096", "nodes per region (power of two, whole YZ planes)"),
        ("vc_policy", "dor", "dor | initial | v1 | v2 | v3 (Cray XT VC assignment)"),
        ("dateline", "[k-1, ...]", "dateline node per dimension for the XT policies, or \"auto\" (section 3.5)"),
        ("tables", "generate", "load the tables from a file written by `flitsim routes CONFIG --write-tables FILE` (checked before use)"),
        ("dateline_errors", "refuse", "packets the tables would drop at a dateline node (arriving on VC1, passing through): refuse the tables, or drop them as the XT router does (counted)"),
    ],
}, crate::schema::Entry {
    family: "routing",
    name: "adaptive",
    summary: "minimal fully adaptive routing with Duato escape VCs or Disha recovery (central router)",
    params: &[
        ("deadlock", "avoidance", "avoidance (Duato escape VCs) | recovery (Disha deadlock buffers and token)"),
        ("escape", "mesh_dor", "mesh_dor (1 escape VC, no wrap links) | dateline_dor (2 escape VCs)"),
        ("timeout", "8", "Disha: cycles blocked before a header is presumed deadlocked"),
        ("order", "natural", "dimension order of the escape routes / recovery path"),
    ],
}, crate::schema::Entry {
    family: "routing",
    name: "source",
    summary: "Kautz source routing (SiCortex): string-shift shortest routes, VCs by node order (floor(D/2) + 1 VCs)",
    params: &[
        ("vc_start", "exact", "exact (arrive on VC 0) | half (start every packet on floor(D/2))"),
        ("rails", "1", "multi-rail: spread packets over this many node-disjoint routes (1..=d; crosspoint switch)"),
        ("rail_threshold", "none", "multi-rail only for messages of at least this many bytes (needs traffic.message)"),
    ],
}, crate::schema::Entry {
    family: "routing",
    name: "updown",
    summary: "up*/down* source routes on a fat tree (Clos, k-ary n-tree), chosen at the NIC and carried in the packet; deadlock-free on 1 VC (input-queued router)",
    params: &[
        ("selection", "static", "static (one route per pair) | random (a random route per packet) | adaptive | probing (dispersion at the NIC on back-pressure)"),
        ("threshold", "4 / 16", "adaptive, probing: blocked packets tolerated before dispersing"),
        ("probability", "0.5 / 1", "adaptive, probing: probability of changing route on sensing contention"),
        ("probe_limit", "every route twice", "probing: failed probes in a row before a forced dispersion; default: once every other route failed twice"),
        ("static_scheme", "destination", "destination (destination-mod-k) | source (source-mod-k) | hashed (per pair, from the seed)"),
    ],
}, crate::schema::Entry {
    family: "routing",
    name: "dragonfly",
    summary: "dragonfly routes (Kim et al. 2008): minimal, Valiant or UGAL-L, a VC class per global hop taken (deadlock-free; input-queued router)",
    params: &[("mode", "minimal", "minimal (at most one global hop; 2 VCs) | valiant (via a random intermediate group per packet; 3 VCs) | ugal (UGAL-L: minimal or Valiant per packet by the source router's queues x hops; 3 VCs)")],
}, crate::schema::Entry {
    family: "routing",
    name: "hyperx",
    summary: "HyperX routes (Ahn et al. 2009): dimension order, Valiant or UGAL-L, one VC class per phase (deadlock-free; input-queued router)",
    params: &[("mode", "dor", "dor (minimal, x first, one hop per differing dimension; 1 VC) | valiant (via a random intermediate router per packet; 2 VCs) | ugal (UGAL-L: minimal or Valiant per packet by the source router's queues x hops; 2 VCs)")],
}, crate::schema::Entry {
    family: "routing",
    name: "graph",
    summary: "routes on any graph, deadlock-free: minimal with a VC class per hop, or Autonet up*/down* on one VC (input-queued router); also on tori, meshes, HyperX and dragonflies, around their [faults]",
    params: &[("mode", "minimal", "minimal (shortest routes, VC class = hops taken; vcs >= the diameter, after failures the damaged one) | updown (never up after down, from a BFS tree at router 0, or after failures at the router reaching the most; 1 VC)")],
}];
