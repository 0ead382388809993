//! BookSim2's parameters in flitsim's terms: the one place where every BookSim2
//! parameter flitsim can express is mapped to the config that makes flitsim model and
//! count as BookSim2 does. The differential cross-check (`flitsim crosscheck`) and the
//! test of its recorded figures build their flitsim configs here.
//!
//! The BookSim2-compatible conventions, together (each is also a setting of its own):
//! - `channel.injection_latency = 2`: BookSim2's traffic manager clocks the network's
//!   inputs before it injects, so a packet reaches its first router a cycle later.
//! - `routing.ties = "random"` and `routing.dateline_class = "at_entry"` on tori: the
//!   choices of BookSim2's `dim_order_torus` (a coin per packet for a destination half way
//!   round, the upper VC class for a whole dimension that wraps).
//! - `router.vc_allocator` as BookSim2's `vc_allocator`, and with the separable
//!   input-first one `router.vc_alloc_pointer = "per_router"` (its input arbiters keep one
//!   pointer over all the router's output VCs).
//! - Channel latency: 1 cycle on a mesh; on a torus 2 cycles for data and credits alike,
//!   as BookSim2 lays a torus out folded (`use_noc_latency = 1`, its default), else 1.
//! - `router.credit_delay` = the credit channel's latency + `credit_delay` +
//!   [`CREDIT_LOOP_EXTRA`]: BookSim2 sends a credit over its own channel and the upstream
//!   router applies it `credit_delay` cycles after receiving it.
//! - Runs: `warmup_periods` sample periods of warm-up, then `max_samples -
//!   warmup_periods` measured ones (BookSim2 counts the warm-up among its samples), then
//!   the drain of the measured packets.
//!
//! A parameter flitsim cannot express, or a value of one that it models differently,
//! is refused with the parameter's name, never ignored.

use crate::config::Config;
use crate::error::{Error, Result};

/// Cycles BookSim2's credit loop takes beyond its credit channel's latency and its
/// `credit_delay`: flitsim's `credit_delay` (the whole way back) is the sum of the three.
pub const CREDIT_LOOP_EXTRA: u32 = 1;

/// A BookSim2 config: `key = value;` statements in order (`//` comments allowed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BookSimParams {
    entries: Vec<(String, String)>,
}

impl BookSimParams {
    /// Read BookSim2's config language (one `key = value;` per statement).
    pub fn parse(text: &str) -> Result<Self> {
        let mut p = BookSimParams::default();
        let body: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        for (i, stmt) in body.split(';').enumerate() {
            let stmt = stmt.trim();
            if stmt.is_empty() {
                continue;
            }
            let Some((k, v)) = stmt.split_once('=') else {
                return Err(Error::config("booksim", format!("statement {} \"{stmt}\" is not `key = value`", i + 1)));
            };
            p.set(k.trim(), v.trim());
        }
        Ok(p)
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Set `key` (replacing a value it had).
    pub fn set(&mut self, key: &str, value: impl ToString) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(e) => e.1 = value.to_string(),
            None => self.entries.push((key.to_string(), value.to_string())),
        }
    }

    /// These parameters with `over`'s set on top.
    pub fn with(&self, over: &BookSimParams) -> BookSimParams {
        let mut p = self.clone();
        for (k, v) in &over.entries {
            p.set(k, v);
        }
        p
    }

    /// The config text BookSim2 reads.
    pub fn text(&self) -> String {
        self.entries.iter().map(|(k, v)| format!("{k} = {v};\n")).collect()
    }

    fn int(&self, key: &str, default: i64) -> Result<i64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| Error::config(format!("booksim.{key}"), format!("\"{v}\" is not a whole number"))),
        }
    }

    fn float(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| Error::config(format!("booksim.{key}"), format!("\"{v}\" is not a number"))),
        }
    }

    fn word<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key).unwrap_or(default)
    }

    /// The flitsim config of this BookSim2 config, with `injection_rate` as the load.
    pub fn to_config(&self) -> Result<Config> {
        let unsupported = |key: &str, v: &str, why: &str| Error::config(format!("booksim.{key}"), format!("{v}: {why}"));
        for (k, v) in &self.entries {
            if !KNOWN.contains(&k.as_str()) {
                return Err(unsupported(k, v, "flitsim has no counterpart for this BookSim2 parameter in the cross-check's mapping"));
            }
        }
        // Parameters that must keep the value flitsim models.
        for (key, want) in
            [("wait_for_tail_credit", 0), ("input_speedup", 1), ("output_speedup", 1), ("injection_rate_uses_flits", 1), ("sim_count", 1)]
        {
            let v = self.int(key, if key == "injection_rate_uses_flits" { 0 } else { want })?;
            if v != want {
                return Err(unsupported(key, &v.to_string(), &format!("flitsim models only {key} = {want}")));
            }
        }
        if self.float("internal_speedup", 1.0)? != 1.0 {
            return Err(unsupported("internal_speedup", self.word("internal_speedup", ""), "flitsim's crossbar has no speed-up: use 1.0"));
        }
        for (key, want) in [("injection_process", "bernoulli"), ("sim_type", "latency")] {
            if self.word(key, want) != want {
                return Err(unsupported(key, self.word(key, ""), &format!("the cross-check maps only {key} = {want}")));
            }
        }
        let mut t = String::new();
        t += &format!("seed = {}\n", self.int("seed", 0)?.max(0));
        // Topology and routing.
        let (k, n) = (self.int("k", 8)?, self.int("n", 2)?);
        let topology = self.word("topology", "torus");
        if !(2..=64).contains(&k) || !(1..=6).contains(&n) {
            return Err(unsupported("k", &format!("k = {k}, n = {n}"), "the cross-check maps radices 2..=64 in 1 to 6 dimensions"));
        }
        let dims = vec![k.to_string(); n as usize].join(", ");
        let noc = self.int("use_noc_latency", 1)?;
        if !(0..=1).contains(&noc) {
            return Err(unsupported("use_noc_latency", &noc.to_string(), "BookSim2 reads 0 or 1"));
        }
        let latency = match (topology, noc) {
            // A torus is laid out folded: every channel spans two router pitches.
            ("torus", 1) => 2,
            ("flatfly", 1) => return Err(unsupported("use_noc_latency", "1", "BookSim2's on-chip flattened butterfly sets each channel's latency by its length on the chip; use use_noc_latency = 0 (every channel 1 cycle)")),
            _ => 1,
        };
        match (topology, self.word("routing_function", "dim_order")) {
            ("mesh", "dim_order") => t += &format!("[topology]\ntype = \"mesh\"\ndims = [{dims}]\n[routing]\ntype = \"dor\"\n"),
            ("torus", "dim_order") => {
                t += &format!("[topology]\ntype = \"torus\"\ndims = [{dims}]\n[routing]\ntype = \"dor\"\nties = \"random\"\ndateline_class = \"at_entry\"\n")
            }
            // Nearest common ancestor: a random up port at each switch on the way up is
            // a random shortest up*/down* route, drawn per packet.
            ("fattree", "nca") => t += &format!("[topology]\ntype = \"k_ary_n_tree\"\nk = {k}\nn = {n}\n[routing]\ntype = \"updown\"\nselection = \"random\"\n"),
            // BookSim2's ran_min on its flattened butterfly corrects the lowest differing
            // dimension first, over every VC: a HyperX's dimension-order route.
            ("flatfly", "ran_min") => {
                let c = self.int("c", 1)?;
                t += &format!("[topology]\ntype = \"hyperx\"\ndims = [{dims}]\nconcentration = {c}\n[routing]\ntype = \"hyperx\"\nmode = \"dor\"\n");
            }
            (topo, routing) => {
                return Err(unsupported(
                    "routing_function",
                    routing,
                    &format!("the cross-check maps dim_order on mesh and torus, nca on fattree and ran_min on flatfly, not {routing} on {topo}"),
                ))
            }
        }
        // Router.
        let alloc = |key: &str| -> Result<&str> {
            match self.word(key, "separable_input_first") {
                "islip" => Ok("islip"),
                "separable_input_first" => Ok("separable_input_first"),
                other => Err(unsupported(key, other, "flitsim's allocators are islip and separable_input_first")),
            }
        };
        let (va, sa) = (alloc("vc_allocator")?, alloc("sw_allocator")?);
        let delay = |key: &str, default: i64| -> Result<i64> {
            let v = self.int(key, default)?;
            if !(0..=16).contains(&v) {
                return Err(unsupported(key, &v.to_string(), "flitsim's pipeline delays are 0..=16 cycles"));
            }
            Ok(v)
        };
        t += "[router]\ntype = \"input_queued\"\n";
        t += &format!("vcs = {}\nbuffer_depth = {}\n", self.int("num_vcs", 16)?, self.int("vc_buf_size", 8)?);
        t += &format!("allocator = \"{sa}\"\nvc_allocator = \"{va}\"\n");
        if va == "separable_input_first" {
            t += "vc_alloc_pointer = \"per_router\"\n";
        }
        if va == "islip" || sa == "islip" {
            t += &format!("islip_iterations = {}\n", self.int("alloc_iters", 1)?);
        }
        t += &format!(
            "routing_delay = {}\nvc_alloc_delay = {}\nsw_alloc_delay = {}\nst_delay = {}\ncredit_delay = {}\n",
            delay("routing_delay", 1)?,
            delay("vc_alloc_delay", 1)?,
            delay("sw_alloc_delay", 1)?,
            delay("st_final_delay", 1)?,
            latency + self.int("credit_delay", 0)? + CREDIT_LOOP_EXTRA as i64
        );
        t += &format!("[channel]\nlatency = {latency}\nendpoint_latency = 1\ninjection_latency = 2\n");
        // Traffic.
        t += &format!("[traffic]\nload = {}\npacket_size = {}\n", self.float("injection_rate", 0.1)?, self.int("packet_size", 1)?);
        // BookSim2 writes a pattern's parameters in parentheses: `hotspot({0,63})`.
        let traffic = self.word("traffic", "uniform");
        let (name, args) = match traffic.split_once('(') {
            Some((name, rest)) => (name, rest.strip_suffix(')').unwrap_or(rest)),
            None => (traffic, ""),
        };
        let pattern = match name {
            "uniform" => "{ type = \"uniform\" }".to_string(),
            "transpose" => "{ type = \"transpose\" }".to_string(),
            "bitcomp" => "{ type = \"bit_complement\" }".to_string(),
            "bitrev" => "{ type = \"bit_reverse\" }".to_string(),
            "shuffle" => "{ type = \"shuffle\" }".to_string(),
            "tornado" => "{ type = \"tornado\" }".to_string(),
            "neighbor" => "{ type = \"neighbor\" }".to_string(),
            "hotspot" => {
                // BookSim2 reads the parameters as a list: `hotspot({{0,63}})` is the
                // nodes 0 and 63, `hotspot({{0,63},{1,1}})` with their rates, and
                // `hotspot({0,63})` the node 0 at rate 63.
                let params = booksim_list(args);
                let nodes = params.first().map(|p| booksim_list(p)).unwrap_or_default();
                if nodes.is_empty() || nodes.iter().any(|n| n.parse::<u32>().is_err()) {
                    return Err(unsupported("traffic", traffic, "hot-spot traffic needs its nodes by number, e.g. hotspot({{0,63}}) (BookSim2's random hot spots, -1, are not mapped)"));
                }
                if params.get(1).is_some_and(|r| booksim_list(r).windows(2).any(|w| w[0] != w[1])) {
                    return Err(unsupported(
                        "traffic",
                        traffic,
                        "flitsim's hot spots are equally likely: leave the rates out or make them equal",
                    ));
                }
                format!("{{ type = \"hotspot\", nodes = [{}], fraction = 1.0 }}", nodes.join(", "))
            }
            other => {
                return Err(unsupported(
                    "traffic",
                    other,
                    "the cross-check maps uniform, transpose, bitcomp, bitrev, shuffle, tornado, neighbor and hotspot",
                ))
            }
        };
        t += &format!("pattern = {pattern}\n");
        // Run length.
        let period = self.int("sample_period", 1000)?;
        let (warm, samples) = (self.int("warmup_periods", 3)?, self.int("max_samples", 10)?);
        if warm < 1 || samples <= warm || period < 1 {
            return Err(unsupported(
                "warmup_periods",
                &format!("{warm} of {samples} samples of {period} cycles"),
                "the cross-check needs a fixed warm-up: warmup_periods >= 1 and max_samples > warmup_periods",
            ));
        }
        t += &format!("[sim]\nwarmup = {}\nmeasure = {}\n", warm * period, (samples - warm) * period);
        Config::from_toml(&t, &[]).map_err(|e| Error::config("booksim", format!("the mapped flitsim config is refused: {e}")))
    }
}

/// A value as BookSim2's `tokenize_str` reads it: `{a,{b,c}}` is the list `a`, `{b,c}`
/// (commas inside inner braces kept); anything else is a list of itself.
fn booksim_list(data: &str) -> Vec<String> {
    let data = data.trim();
    let Some(inner) = data.strip_prefix('{').and_then(|d| d.strip_suffix('}')) else {
        return if data.is_empty() { Vec::new() } else { vec![data.to_string()] };
    };
    let (mut out, mut depth, mut cur) = (Vec::new(), 0, String::new());
    for ch in inner.chars() {
        match ch {
            ',' if depth == 0 => out.push(std::mem::take(&mut cur).trim().to_string()),
            '{' => {
                depth += 1;
                cur.push(ch)
            }
            '}' => {
                depth -= 1;
                cur.push(ch)
            }
            _ => cur.push(ch),
        }
    }
    out.push(cur.trim().to_string());
    out
}

/// The BookSim2 parameters the mapping reads.
const KNOWN: &[&str] = &[
    "topology",
    "k",
    "n",
    "routing_function",
    "num_vcs",
    "vc_buf_size",
    "wait_for_tail_credit",
    "vc_allocator",
    "sw_allocator",
    "alloc_iters",
    "credit_delay",
    "routing_delay",
    "vc_alloc_delay",
    "sw_alloc_delay",
    "st_final_delay",
    "input_speedup",
    "output_speedup",
    "internal_speedup",
    "traffic",
    "packet_size",
    "injection_rate",
    "injection_rate_uses_flits",
    "injection_process",
    "sim_type",
    "warmup_periods",
    "sample_period",
    "max_samples",
    "sim_count",
    "seed",
    "use_noc_latency",
    "c",
    "x",
    "y",
    "xr",
    "yr",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::{AllocatorKind, RouterConfig, VaPointer};
    use crate::routing::dor::{DatelineClass, TiePolicy};
    use crate::routing::RoutingConfig;

    const TORUS: &str = "topology = torus; k = 8; n = 2; // a comment\nrouting_function = dim_order;\nnum_vcs = 4; vc_buf_size = 8; vc_allocator = islip; sw_allocator = islip; alloc_iters = 2;\ncredit_delay = 1; packet_size = 16; injection_rate = 0.2; injection_rate_uses_flits = 1;\ntraffic = hotspot({{0,63}});\nwarmup_periods = 1; sample_period = 5000; max_samples = 3; seed = 7;";

    /// Each BookSim2 parameter lands in the flitsim field that models it.
    #[test]
    fn every_mapped_parameter_lands_in_its_field() {
        let c = BookSimParams::parse(TORUS).unwrap().to_config().unwrap();
        assert_eq!(c.seed, 7);
        assert_eq!(c.topology, crate::topology::TopologyConfig::Torus { dims: vec![8, 8], concentration: 1 });
        assert!(matches!(c.routing, RoutingConfig::Dor { ties: TiePolicy::Random, dateline_class: DatelineClass::AtEntry, .. }));
        let RouterConfig::InputQueued(r) = &c.router else { panic!("input-queued") };
        assert_eq!(
            (r.vcs, r.buffer_depth, r.allocator, r.vc_allocator, r.islip_iterations),
            (4, 8, AllocatorKind::Islip, AllocatorKind::Islip, 2)
        );
        // A torus's channels are 2 cycles long (BookSim2's folded layout), its credits too.
        assert_eq!(
            (r.routing_delay, r.vc_alloc_delay, r.sw_alloc_delay, r.st_delay, r.credit_delay),
            (1, 1, 1, 1, 2 + 1 + CREDIT_LOOP_EXTRA)
        );
        assert_eq!(r.vc_alloc_pointer, VaPointer::PerPort);
        assert_eq!((c.channel.latency, c.channel.injection_latency()), (2, 2));
        let flat = BookSimParams::parse(&format!("{TORUS} use_noc_latency = 0;")).unwrap().to_config().unwrap();
        assert_eq!(flat.channel.latency, 1);
        assert_eq!((c.traffic.load, &c.traffic.packet_size), (0.2, &crate::traffic::size::PacketSizeConfig::Fixed(16)));
        assert_eq!((c.sim.warmup, c.sim.measure), (5000, 10_000));
        assert_eq!(c.traffic.pattern, crate::traffic::PatternConfig::Hotspot { nodes: vec![0, 63], fraction: 1.0 });
        // The separable VC allocator keeps BookSim2's pointer; a mesh routes plain DOR.
        let mesh = BookSimParams::parse("topology = mesh; k = 4; n = 3; injection_rate_uses_flits = 1; vc_allocator = separable_input_first; sw_allocator = separable_input_first;").unwrap().to_config().unwrap();
        let RouterConfig::InputQueued(r) = &mesh.router else { panic!("input-queued") };
        assert_eq!((r.vc_allocator, r.vc_alloc_pointer, r.islip_iterations), (AllocatorKind::SeparableInputFirst, VaPointer::PerRouter, 1));
        assert_eq!((mesh.channel.latency, r.credit_delay), (1, 1 + CREDIT_LOOP_EXTRA));
        assert!(matches!(mesh.routing, RoutingConfig::Dor { ties: TiePolicy::Plus, dateline_class: DatelineClass::AtWrap, .. }));
    }

    /// What flitsim cannot express is refused with the parameter's name.
    #[test]
    fn parameters_without_a_counterpart_are_refused_by_name() {
        for (text, key) in [
            ("topology = torus; speculative = 1;", "booksim.speculative"),
            ("wait_for_tail_credit = 1;", "booksim.wait_for_tail_credit"),
            ("injection_rate_uses_flits = 0;", "booksim.injection_rate_uses_flits"),
            ("vc_allocator = wavefront;", "booksim.vc_allocator"),
            ("topology = fly; routing_function = dest_tag;", "booksim.routing_function"),
            ("traffic = hotspot({{1,2},{1,3}});", "booksim.traffic"),
            ("traffic = hotspot;", "booksim.traffic"),
            ("internal_speedup = 2.0;", "booksim.internal_speedup"),
            ("num_vcs = four;", "booksim.num_vcs"),
        ] {
            let text = format!("injection_rate_uses_flits = 1; {text}");
            let e = BookSimParams::parse(&text).unwrap().to_config().unwrap_err();
            assert!(e.to_string().contains(key), "{text}: {e}");
        }
    }

    /// A fat tree routed by nearest common ancestor is a k-ary n-tree with random
    /// up*/down* routes; an on-chip flattened butterfly with 1-cycle wires a HyperX.
    #[test]
    fn fat_trees_and_flattened_butterflies_map_to_their_families() {
        let c = BookSimParams::parse("injection_rate_uses_flits = 1; topology = fattree; k = 4; n = 3; routing_function = nca;")
            .unwrap()
            .to_config()
            .unwrap();
        assert_eq!(c.topology, crate::topology::TopologyConfig::KAryNTree { k: 4, n: 3 });
        assert!(matches!(c.routing, RoutingConfig::Updown { selection: crate::routing::updown_net::Selection::Random, .. }));
        let f = "injection_rate_uses_flits = 1; topology = flatfly; k = 4; n = 2; c = 4; x = 8; y = 8; xr = 2; yr = 2; routing_function = ran_min;";
        let c = BookSimParams::parse(&format!("{f} use_noc_latency = 0;")).unwrap().to_config().unwrap();
        assert!(matches!(&c.topology, crate::topology::TopologyConfig::Hyperx { dims, concentration: 4, .. } if dims == &vec![4, 4]));
        assert_eq!(c.channel.latency, 1);
        let e = BookSimParams::parse(f).unwrap().to_config().unwrap_err();
        assert!(e.to_string().contains("booksim.use_noc_latency"), "{e}");
    }

    /// BookSim2's list syntax: the first parameter is the node list.
    #[test]
    fn hot_spots_are_read_as_booksim_reads_them() {
        let pattern = |t: &str| {
            BookSimParams::parse(&format!("injection_rate_uses_flits = 1; traffic = {t};")).unwrap().to_config().unwrap().traffic.pattern
        };
        let hot = |nodes: Vec<u32>| crate::traffic::PatternConfig::Hotspot { nodes, fraction: 1.0 };
        assert_eq!(pattern("hotspot({{0,27,36,63}})"), hot(vec![0, 27, 36, 63]));
        assert_eq!(pattern("hotspot({{0,63},{2,2}})"), hot(vec![0, 63]));
        // `{0,63}` is two parameters: node 0, at rate 63.
        assert_eq!(pattern("hotspot({0,63})"), hot(vec![0]));
        assert_eq!(booksim_list("{a,{b,c}}"), vec!["a", "{b,c}"]);
    }

    #[test]
    fn params_round_trip_through_their_text_and_merge() {
        let p = BookSimParams::parse(TORUS).unwrap();
        assert_eq!(BookSimParams::parse(&p.text()).unwrap(), p);
        let q = p.with(&BookSimParams::parse("k = 4; traffic = uniform;").unwrap());
        assert_eq!((q.get("k"), q.get("traffic"), q.get("n")), (Some("4"), Some("uniform"), Some("2")));
    }
}
