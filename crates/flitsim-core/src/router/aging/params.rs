//! Derivation of the SeaStar aging parameters from the topology and the router buffers
//! (AbtsWeisser07, section 3; keys in `docs/papers.md`), using the average hop
//! counts and channel loads of section 2, Equations 4-9.
//!
//! Given the radix of each dimension (dimension-order routed, the first dimension routed
//! first), whether each dimension is a mesh or a torus, the packet and buffer sizes and the
//! channel and ejection bandwidths, [`derive()`] reproduces the paper's worked example step by
//! step and returns every intermediate number:
//!
//! 1. Average hops per dimension, `H_i = k_i/4` (torus, Eq 4-5) or `(k_i+1)/3` (mesh,
//!    Eq 6-7), and the channel load `gamma_i = k_i/8` (torus, Eq 8) or `k_i/4` (mesh, Eq 9).
//! 2. The probability that a packet leaves the network from dimension `i` (Eq 10-12) and
//!    from each of its two ports, `P_i+ = P_i- = P_i/2` (Eq 13). The paper writes these for
//!    three dimensions; for `n` dimensions this module uses the same argument (the packet is
//!    not at its ordinate in dimension `i` and is at its ordinate in every later dimension):
//!    `P_i = ((k_i-1)/k_i) * prod_{j>i} (1/k_j)` for `i < n-1`, and the last dimension takes
//!    the rest, `P_{n-1} = 1 - sum_{i<n-1} P_i`. For three dimensions this is exactly
//!    Eq 10-12; for one dimension `P_0 = 1`.
//! 3. The ejection-rate bound per dimension (Eq 14-16), from the last dimension backwards:
//!    `U_{n-1} = min(Bc*c/k_{n-1}, Ep)`, `U_i = min(Bc*c/k_i, U_{i+1})`, with `c = 8` for a
//!    torus dimension and `c = 4` for a mesh dimension (so `Bc*c/k = Bc/gamma`).
//! 4. Biases decreasing along the routing order: the `i`-th dimension (from 0) gets
//!    `n - i`, which is the paper's 3, 2, 1 for x, y, z.
//! 5. `T_bias = sum_i round(H_i) * bias_i`; the age clock must supply the rest of the centre
//!    of the age range, `128 - T_bias` ticks, over `H = sum_i round(H_i)` hops:
//!    `ticks_per_hop = round((128 - T_bias) / H)`.
//! 6. With the network fully utilised, each hop queues
//!    `floor(input_buffer/packet) + floor(staging_buffer/packet)` maximum-sized packets, and a
//!    queue moves one packet every `vcs_per_class * packet` cycles, so a hop costs
//!    `queueing_per_hop` cycles; `AGE_CLOCK_PERIOD = round(queueing_per_hop / ticks_per_hop)`.
//!
//! Rounding is half-up everywhere (`round(2.5) = 3`), done in integer arithmetic so that it
//! is exact. With the SeaStar inputs ([`AgingInputs::default`]: an 11x12x16 torus, 9-flit
//! packets, 96-flit input buffers, 16-flit staging buffers, 2 VCs per class) the result is
//! the paper's: biases 3, 2, 1, `T_bias = 19`, 11 ticks per hop, period 18.
//!
//! Clamping: if `(128 - T_bias) / H` rounds to 0 ticks per hop (many hops, so the biases
//! alone nearly fill the lower half of the age range), `ticks_per_hop` is clamped to 1,
//! which is the slowest clock that still ages queued packets; the mean age then lands at
//! `T_bias + H`, still below 256 because every bias is at least 1 and `T_bias < 128`.
//! Likewise a period that rounds to 0 (tiny buffers, many ticks per hop) is clamped to 1,
//! one age tick per cycle, the fastest the countdown timer can run. Both clamps are flagged
//! in [`AgingDerivation`] and explained in [`AgingDerivation::warnings`].

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Centre of the 8-bit age range 0..=255 around which the derivation places the mean age.
pub const AGE_RANGE_CENTRE: u32 = 128;

/// Largest number of dimensions accepted (the SeaStar has six network ports: three
/// dimensions; the derivation itself works up to six).
pub const MAX_DIMS: usize = 6;

/// The paper's biases for x, y, z (section 3.1).
pub const PAPER_BIASES: [u32; 3] = [3, 2, 1];

/// The paper's `T_bias` for the 11,12,16-ary 3-cube (section 3.2).
pub const PAPER_T_BIAS: u32 = 19;

/// The paper's `AGE_CLOCK_PERIOD` for the 11,12,16-ary 3-cube (section 3.2).
pub const PAPER_CLOCK_PERIOD: u32 = 18;

/// The name of dimension `i` in routing order: `x`, `y`, `z`, then `d3`, `d4`, `d5`.
pub fn dimension_name(i: usize) -> String {
    match i {
        0 => "x".to_string(),
        1 => "y".to_string(),
        2 => "z".to_string(),
        _ => format!("d{i}"),
    }
}

/// What the derivation needs: the topology, the packet and buffer sizes, the bandwidths.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AgingInputs {
    /// Radix `k_i` of each dimension, in routing order (the first is routed first).
    pub radix: Vec<u32>,
    /// Per dimension: `true` for a mesh, `false` for a torus. Empty means all torus;
    /// otherwise it must have one entry per dimension.
    pub mesh: Vec<bool>,
    /// Maximum packet size in flits (SeaStar: 9).
    pub packet_flits: u32,
    /// Input buffer depth per VC, in flits (SeaStar: 96).
    pub input_buffer: u32,
    /// Output staging buffer depth per VC, in flits (SeaStar: 16).
    pub staging_buffer: u32,
    /// Virtual channels per message class sharing a port (SeaStar: 2, VC0/VC1 for requests).
    pub vcs_per_class: u32,
    /// Channel bandwidth `Bc` per direction, GB/s (SeaStar: 4.8).
    pub channel_gbs: f64,
    /// Processor ejection bandwidth `Ep`, GB/s (SeaStar: about 2).
    pub ejection_gbs: f64,
}

impl Default for AgingInputs {
    /// The SeaStar values and the paper's 11,12,16-ary 3-D torus.
    fn default() -> Self {
        AgingInputs {
            radix: vec![11, 12, 16],
            mesh: vec![false, false, false],
            packet_flits: 9,
            input_buffer: 96,
            staging_buffer: 16,
            vcs_per_class: 2,
            channel_gbs: 4.8,
            ejection_gbs: 2.0,
        }
    }
}

impl AgingInputs {
    /// True when these are exactly the paper's inputs (the defaults), so that the paper's
    /// published values apply for comparison.
    pub fn is_paper_example(&self) -> bool {
        let d = AgingInputs::default();
        self.radix == d.radix
            && self.mesh.iter().all(|m| !m)
            && self.packet_flits == d.packet_flits
            && self.input_buffer == d.input_buffer
            && self.staging_buffer == d.staging_buffer
            && self.vcs_per_class == d.vcs_per_class
            && self.channel_gbs == d.channel_gbs
            && self.ejection_gbs == d.ejection_gbs
    }

    /// Whether dimension `i` is a mesh (an empty `mesh` list means all torus).
    fn is_mesh(&self, i: usize) -> bool {
        self.mesh.get(i).copied().unwrap_or(false)
    }
}

/// The per-dimension numbers of the derivation.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct DimensionRow {
    /// Position in routing order (0 is routed first).
    pub index: usize,
    /// `x`, `y`, `z`, `d3`, ... (see [`dimension_name`]).
    pub name: String,
    /// Radix `k_i`.
    pub radix: u32,
    /// True for a mesh dimension, false for a torus.
    pub mesh: bool,
    /// Average hops `H_i`: `k_i/4` for a torus (Eq 4-5), `(k_i+1)/3` for a mesh (Eq 6-7).
    pub avg_hops: f64,
    /// `H_i` rounded half-up to an integer (never below 1 for `k_i >= 2`).
    pub hops_rounded: u32,
    /// Channel load `gamma_i`: `k_i/8` for a torus (Eq 8), `k_i/4` for a mesh (Eq 9).
    pub channel_load: f64,
    /// Probability `P_i` that a packet leaves the network from this dimension (Eq 10-12,
    /// generalised to `n` dimensions, see the module docs).
    pub eject_prob: f64,
    /// Probability `P_i+ = P_i- = P_i/2` of leaving through each of its two ports (Eq 13).
    pub eject_prob_port: f64,
    /// The channel term of Eq 14-16: `Bc*8/k_i` (torus) or `Bc*4/k_i` (mesh), GB/s.
    pub channel_bound_gbs: f64,
    /// Ejection-rate bound `U_i` (Eq 14-16), GB/s.
    pub utilisation_gbs: f64,
    /// `U_i` as a fraction of the channel bandwidth `Bc`.
    pub utilisation_frac: f64,
    /// Age bias added per hop in this dimension: `n - index`.
    pub bias: u32,
}

/// Every step of the derivation, and the recommended `REQ_AGE_BIAS` per dimension and
/// `AGE_CLOCK_PERIOD`.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct AgingDerivation {
    /// The inputs, as given (an empty `mesh` list is expanded to all torus).
    pub inputs: AgingInputs,
    /// One row per dimension, in routing order.
    pub dims: Vec<DimensionRow>,
    /// Recommended per-hop age bias per dimension (the `bias` column of `dims`).
    pub biases: Vec<u32>,
    /// Sum of the exact average hops `H_i`.
    pub avg_hops_exact: f64,
    /// `H = sum_i round(H_i)`, the hops the derivation spreads the age ticks over.
    pub hops_total: u32,
    /// `T_bias = sum_i round(H_i) * bias_i`, the mean age contributed by the biases.
    pub t_bias: u32,
    /// The centre of the age range, [`AGE_RANGE_CENTRE`].
    pub age_centre: u32,
    /// Age ticks the clock must add on average: `128 - T_bias`.
    pub target_ticks: u32,
    /// `target_ticks / hops_total` before rounding.
    pub ticks_per_hop_exact: f64,
    /// Age ticks per hop: `round(target_ticks / hops_total)`, clamped to at least 1.
    pub ticks_per_hop: u32,
    /// True when `ticks_per_hop` rounded to 0 and was clamped to 1.
    pub ticks_per_hop_clamped: bool,
    /// Maximum-sized packets in one input buffer: `floor(input_buffer / packet_flits)`.
    pub input_packets: u32,
    /// Maximum-sized packets in one staging buffer: `floor(staging_buffer / packet_flits)`.
    pub staging_packets: u32,
    /// Packets queued per hop when the network is fully utilised:
    /// `input_packets + staging_packets`.
    pub packets_queued: u32,
    /// Cycles until a queue moves its next packet: `vcs_per_class * packet_flits`.
    pub cycles_per_packet: u32,
    /// Queueing delay per hop in cycles: `packets_queued * cycles_per_packet`.
    pub queueing_per_hop: u32,
    /// `queueing_per_hop / ticks_per_hop` before rounding.
    pub clock_period_exact: f64,
    /// Recommended `AGE_CLOCK_PERIOD`: `round(queueing_per_hop / ticks_per_hop)`, clamped
    /// to at least 1.
    pub clock_period: u32,
    /// True when the period rounded to 0 and was clamped to 1.
    pub clock_period_clamped: bool,
    /// Mean age a packet reaches with these settings:
    /// `T_bias + hops_total * queueing_per_hop / clock_period` (close to 128 unless clamped).
    pub expected_mean_age: f64,
    /// Human-readable notes on clamping (empty when nothing was clamped).
    pub warnings: Vec<String>,
}

/// `round(num / den)` with halves rounded up, exact in integers (`den > 0`).
fn div_round(num: u64, den: u64) -> u64 {
    (2 * num + den) / (2 * den)
}

/// Check the inputs; every error names the field and says how to fix it.
fn validate(inputs: &AgingInputs) -> Result<()> {
    let n = inputs.radix.len();
    if n == 0 {
        return Err(Error::config("radix", "no dimensions given; list one radix per dimension, e.g. 11,12,16"));
    }
    if n > MAX_DIMS {
        return Err(Error::config("radix", format!("{n} dimensions given; at most {MAX_DIMS} are supported, use fewer dimensions")));
    }
    if let Some((i, k)) = inputs.radix.iter().enumerate().find(|(_, &k)| k < 2) {
        return Err(Error::config(
            format!("radix[{i}]"),
            format!("radix {k} of dimension {} is too small; every radix must be at least 2", dimension_name(i)),
        ));
    }
    if !inputs.mesh.is_empty() && inputs.mesh.len() != n {
        return Err(Error::config(
            "mesh",
            format!("{} mesh/torus flags for {n} dimensions; give one flag per dimension (or none for all torus)", inputs.mesh.len()),
        ));
    }
    if inputs.packet_flits == 0 {
        return Err(Error::config("packet_flits", "the packet size must be at least 1 flit"));
    }
    if inputs.packet_flits > inputs.staging_buffer {
        return Err(Error::config(
            "staging_buffer",
            format!(
                "packets of {} flits do not fit the {}-flit staging buffer; virtual cut-through into the \
                 staging buffer needs staging_buffer >= packet_flits (raise staging_buffer or lower packet_flits)",
                inputs.packet_flits, inputs.staging_buffer
            ),
        ));
    }
    if inputs.packet_flits > inputs.input_buffer {
        return Err(Error::config(
            "input_buffer",
            format!(
                "the {}-flit input buffer cannot hold a {}-flit packet; virtual cut-through across the link \
                 needs input_buffer >= packet_flits",
                inputs.input_buffer, inputs.packet_flits
            ),
        ));
    }
    if inputs.vcs_per_class == 0 {
        return Err(Error::config("vcs_per_class", "at least 1 virtual channel per class is needed"));
    }
    if !(inputs.channel_gbs.is_finite() && inputs.channel_gbs > 0.0) {
        return Err(Error::config(
            "channel_gbs",
            format!("channel bandwidth {} GB/s must be a positive number (SeaStar: 4.8)", inputs.channel_gbs),
        ));
    }
    if !(inputs.ejection_gbs.is_finite() && inputs.ejection_gbs > 0.0) {
        return Err(Error::config(
            "ejection_gbs",
            format!("ejection bandwidth {} GB/s must be a positive number (SeaStar: 2)", inputs.ejection_gbs),
        ));
    }
    Ok(())
}

/// Derive the aging parameters (section 3 of the paper) for `inputs`.
///
/// Errors ([`Error::Config`], naming the field): no dimensions or more than [`MAX_DIMS`],
/// a radix below 2, a `mesh` list of the wrong length, a zero packet size or one larger
/// than the staging or input buffer, zero VCs per class, a bandwidth that is not a positive
/// number, `T_bias >= 128` (the biases alone would reach the centre of the age range), and
/// a queueing delay per hop that overflows 32 bits.
pub fn derive(inputs: &AgingInputs) -> Result<AgingDerivation> {
    validate(inputs)?;
    let n = inputs.radix.len();
    let bc = inputs.channel_gbs;
    let ep = inputs.ejection_gbs;

    let mut dims: Vec<DimensionRow> = Vec::with_capacity(n);
    for (i, &k) in inputs.radix.iter().enumerate() {
        let mesh = inputs.is_mesh(i);
        let kf = f64::from(k);
        let k64 = u64::from(k);
        // Eq 4-7: torus k/4, mesh (k+1)/3, rounded half-up.
        let (avg_hops, hops_rounded, channel_load, c) =
            if mesh { ((kf + 1.0) / 3.0, div_round(k64 + 1, 3), kf / 4.0, 4.0) } else { (kf / 4.0, div_round(k64, 4), kf / 8.0, 8.0) };
        // Eq 10-11 generalised: not at the ordinate in i, at the ordinate in every later one.
        let later: f64 = inputs.radix[i + 1..].iter().map(|&kj| 1.0 / f64::from(kj)).product();
        let eject_prob = (kf - 1.0) / kf * later;
        dims.push(DimensionRow {
            index: i,
            name: dimension_name(i),
            radix: k,
            mesh,
            avg_hops,
            hops_rounded: u32::try_from(hops_rounded).unwrap_or(u32::MAX),
            channel_load,
            eject_prob,
            eject_prob_port: eject_prob / 2.0,
            channel_bound_gbs: bc * c / kf,
            utilisation_gbs: 0.0,
            utilisation_frac: 0.0,
            bias: (n - i) as u32,
        });
    }
    // Eq 12: the last dimension takes the rest.
    let others: f64 = dims[..n - 1].iter().map(|d| d.eject_prob).sum();
    let last = &mut dims[n - 1];
    last.eject_prob = 1.0 - others;
    last.eject_prob_port = last.eject_prob / 2.0;
    // Eq 14-16, backwards from the last dimension.
    let mut downstream = ep;
    for d in dims.iter_mut().rev() {
        d.utilisation_gbs = d.channel_bound_gbs.min(downstream);
        d.utilisation_frac = d.utilisation_gbs / bc;
        downstream = d.utilisation_gbs;
    }

    let hops_total: u64 = dims.iter().map(|d| u64::from(d.hops_rounded)).sum();
    let t_bias: u64 = dims.iter().map(|d| u64::from(d.hops_rounded) * u64::from(d.bias)).sum();
    let centre = u64::from(AGE_RANGE_CENTRE);
    if t_bias >= centre {
        let terms: Vec<String> = dims.iter().map(|d| format!("{}x{}", d.hops_rounded, d.bias)).collect();
        return Err(Error::config(
            "radix",
            format!(
                "T_bias = {} = {t_bias} reaches the centre of the age range ({centre}): the biases alone would \
                 age packets past it and leave no room for the age clock; lower the biases or the dimension \
                 count (or use smaller radices)",
                terms.join(" + ")
            ),
        ));
    }
    // hops_total >= 1 (every rounded H_i is >= 1) and t_bias >= hops_total, so both fit u32.
    let target_ticks = centre - t_bias;
    let ticks_rounded = div_round(target_ticks, hops_total);
    let ticks_per_hop_clamped = ticks_rounded == 0;
    let ticks_per_hop = ticks_rounded.max(1);

    let p = u64::from(inputs.packet_flits);
    let input_packets = u64::from(inputs.input_buffer) / p;
    let staging_packets = u64::from(inputs.staging_buffer) / p;
    let packets_queued = input_packets + staging_packets;
    let cycles_per_packet = u64::from(inputs.vcs_per_class) * p;
    let queueing_per_hop = u128::from(packets_queued) * u128::from(cycles_per_packet);
    let (Ok(packets_queued32), Ok(cycles_per_packet32), Ok(queueing_per_hop32)) =
        (u32::try_from(packets_queued), u32::try_from(cycles_per_packet), u32::try_from(queueing_per_hop))
    else {
        return Err(Error::config(
            "input_buffer",
            format!(
                "the queueing delay per hop ({packets_queued} packets x {cycles_per_packet} cycles) does not fit \
                 the 32-bit AGE_CLOCK_PERIOD arithmetic; use realistic buffer sizes and VC counts"
            ),
        ));
    };
    let q = u64::from(queueing_per_hop32);
    let period_rounded = div_round(q, ticks_per_hop);
    let clock_period_clamped = period_rounded == 0;
    let clock_period = period_rounded.max(1);

    let mut warnings = Vec::new();
    if ticks_per_hop_clamped {
        warnings.push(format!(
            "ticks per hop round((128 - {t_bias}) / {hops_total}) = 0; clamped to 1 (the slowest clock that still \
             ages queued packets): the mean age will be about {} instead of 128",
            t_bias + hops_total
        ));
    }
    if clock_period_clamped {
        warnings.push(format!(
            "period round({q} / {ticks_per_hop}) = 0; clamped to 1 (one age tick per cycle, the fastest \
             setting): packets will age more slowly than the target {ticks_per_hop} ticks per hop"
        ));
    }

    let biases = dims.iter().map(|d| d.bias).collect();
    let avg_hops_exact = dims.iter().map(|d| d.avg_hops).sum();
    let expected_mean_age = t_bias as f64 + hops_total as f64 * q as f64 / clock_period as f64;
    let mut inputs = inputs.clone();
    inputs.mesh = dims.iter().map(|d| d.mesh).collect();
    Ok(AgingDerivation {
        inputs,
        dims,
        biases,
        avg_hops_exact,
        hops_total: hops_total as u32,
        t_bias: t_bias as u32,
        age_centre: AGE_RANGE_CENTRE,
        target_ticks: target_ticks as u32,
        ticks_per_hop_exact: target_ticks as f64 / hops_total as f64,
        ticks_per_hop: ticks_per_hop as u32,
        ticks_per_hop_clamped,
        input_packets: input_packets as u32,
        staging_packets: staging_packets as u32,
        packets_queued: packets_queued32,
        cycles_per_packet: cycles_per_packet32,
        queueing_per_hop: queueing_per_hop32,
        clock_period_exact: q as f64 / ticks_per_hop as f64,
        clock_period: clock_period as u32,
        clock_period_clamped,
        expected_mean_age,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn with_radix(radix: &[u32], mesh: &[bool]) -> AgingInputs {
        AgingInputs { radix: radix.to_vec(), mesh: mesh.to_vec(), ..AgingInputs::default() }
    }

    fn err_path(inputs: &AgingInputs) -> (String, String) {
        match derive(inputs) {
            Err(Error::Config { path, message }) => (path, message),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn paper_example_11_12_16_torus() {
        let inputs = AgingInputs::default();
        assert!(inputs.is_paper_example());
        let d = derive(&inputs).unwrap();
        // Eq 4-5: k/4.
        let h: Vec<f64> = d.dims.iter().map(|r| r.avg_hops).collect();
        assert_eq!(h, vec![2.75, 3.0, 4.0]);
        assert_eq!(d.dims.iter().map(|r| r.hops_rounded).collect::<Vec<_>>(), vec![3, 3, 4]);
        assert_eq!(d.hops_total, 10);
        assert!(close(d.avg_hops_exact, 9.75));
        // Eq 8: k/8.
        assert!(close(d.dims[0].channel_load, 11.0 / 8.0));
        assert!(close(d.dims[2].channel_load, 2.0));
        // Eq 10-12 by hand.
        let (kx, ky, kz) = (11.0_f64, 12.0_f64, 16.0_f64);
        let px = ((kx - 1.0) / kx) * (1.0 / ky) * (1.0 / kz);
        let py = ((ky - 1.0) / ky) * (1.0 / kz);
        let pz = 1.0 - (kx - 1.0) / (kx * ky * kz) - (ky - 1.0) / (ky * kz);
        assert!(close(d.dims[0].eject_prob, px));
        assert!(close(d.dims[1].eject_prob, py));
        assert!(close(d.dims[2].eject_prob, pz));
        assert!(close(d.dims.iter().map(|r| r.eject_prob).sum::<f64>(), 1.0));
        // Eq 13.
        for r in &d.dims {
            assert!(close(r.eject_prob_port, r.eject_prob / 2.0));
        }
        // Eq 14-16 with Bc = 4.8, Ep = 2.
        assert!(close(d.dims[2].channel_bound_gbs, 2.4));
        assert!(close(d.dims[1].channel_bound_gbs, 3.2));
        assert!(close(d.dims[0].channel_bound_gbs, 4.8 * 8.0 / 11.0));
        for r in &d.dims {
            assert!(close(r.utilisation_gbs, 2.0), "{r:?}");
            assert!(close(r.utilisation_frac, 2.0 / 4.8));
        }
        // Section 3.1 and 3.2.
        assert_eq!(d.biases, PAPER_BIASES.to_vec());
        assert_eq!(d.t_bias, PAPER_T_BIAS);
        assert_eq!(d.target_ticks, 109);
        assert_eq!(d.ticks_per_hop, 11);
        assert_eq!((d.input_packets, d.staging_packets, d.packets_queued), (10, 1, 11));
        assert_eq!(d.cycles_per_packet, 18);
        assert_eq!(d.queueing_per_hop, 198);
        assert_eq!(d.clock_period, PAPER_CLOCK_PERIOD);
        assert!(!d.ticks_per_hop_clamped && !d.clock_period_clamped && d.warnings.is_empty());
        // 19 + 10 * 198 / 18 = 129.
        assert!(close(d.expected_mean_age, 129.0));
    }

    #[test]
    fn empty_mesh_list_means_all_torus() {
        let a = derive(&with_radix(&[11, 12, 16], &[])).unwrap();
        let b = derive(&AgingInputs::default()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn mesh_8x8_worked_by_hand() {
        let d = derive(&with_radix(&[8, 8], &[true, true])).unwrap();
        // Eq 6-7: (8+1)/3 = 3 exactly; Eq 9: 8/4 = 2.
        for r in &d.dims {
            assert!(close(r.avg_hops, 3.0));
            assert_eq!(r.hops_rounded, 3);
            assert!(close(r.channel_load, 2.0));
            // Bc*4/k = 4.8*4/8 = 2.4.
            assert!(close(r.channel_bound_gbs, 2.4));
            assert!(close(r.utilisation_gbs, 2.0));
        }
        // P_x = (7/8)(1/8) = 7/64, P_y = 57/64.
        assert!(close(d.dims[0].eject_prob, 7.0 / 64.0));
        assert!(close(d.dims[1].eject_prob, 57.0 / 64.0));
        assert_eq!(d.hops_total, 6);
        assert_eq!(d.biases, vec![2, 1]);
        // T_bias = 3x2 + 3x1 = 9.
        assert_eq!(d.t_bias, 9);
        assert_eq!(d.target_ticks, 119);
        // round(119/6) = round(19.83) = 20.
        assert_eq!(d.ticks_per_hop, 20);
        assert_eq!(d.queueing_per_hop, 198);
        // round(198/20) = round(9.9) = 10.
        assert_eq!(d.clock_period, 10);
    }

    #[test]
    fn mixed_mesh_and_torus_utilisation_uses_4_over_k_for_mesh() {
        // x torus k=4 (bound 4.8*8/4 = 9.6), y mesh k=4 (bound 4.8*4/4 = 4.8), Ep = 6.
        let mut inputs = with_radix(&[4, 4], &[false, true]);
        inputs.ejection_gbs = 6.0;
        let d = derive(&inputs).unwrap();
        assert!(close(d.dims[1].utilisation_gbs, 4.8));
        assert!(close(d.dims[0].utilisation_gbs, 4.8));
        assert!(close(d.dims[1].utilisation_frac, 1.0));
        // H: torus 4/4 = 1, mesh 5/3 = 1.67 -> 2.
        assert_eq!(d.dims.iter().map(|r| r.hops_rounded).collect::<Vec<_>>(), vec![1, 2]);
        // T_bias = 1x2 + 2x1 = 4.
        assert_eq!(d.t_bias, 4);
        // round(124/3) = round(41.33) = 41; round(198/41) = round(4.83) = 5.
        assert_eq!((d.ticks_per_hop, d.clock_period), (41, 5));
    }

    #[test]
    fn one_dimension() {
        // 16-ary ring: H = 4, bias 1, T_bias 4, round(124/4) = 31, round(198/31) = round(6.39) = 6.
        let d = derive(&with_radix(&[16], &[false])).unwrap();
        assert_eq!(d.biases, vec![1]);
        assert!(close(d.dims[0].eject_prob, 1.0));
        assert!(close(d.dims[0].utilisation_gbs, 2.0));
        assert_eq!((d.hops_total, d.t_bias, d.target_ticks), (4, 4, 124));
        assert_eq!((d.ticks_per_hop, d.clock_period), (31, 6));
    }

    #[test]
    fn half_rounds_up() {
        // Torus k = 10: H = 2.5 -> 3 (half-up). Ring: T_bias 3, round(125/3) = 42, round(198/42) = 5.
        let d = derive(&with_radix(&[10], &[])).unwrap();
        assert_eq!(d.dims[0].hops_rounded, 3);
        assert_eq!((d.ticks_per_hop, d.clock_period), (42, 5));
        // Torus k = 2: H = 0.5 -> 1.
        assert_eq!(derive(&with_radix(&[2], &[])).unwrap().dims[0].hops_rounded, 1);
    }

    #[test]
    fn six_dimensions_generalise_eq_10_to_12() {
        let radix = [3, 4, 5, 6, 7, 8];
        let d = derive(&with_radix(&radix, &[])).unwrap();
        assert_eq!(d.biases, vec![6, 5, 4, 3, 2, 1]);
        let sum: f64 = d.dims.iter().map(|r| r.eject_prob).sum();
        assert!(close(sum, 1.0));
        // P_d3 = (5/6)(1/7)(1/8).
        assert!(close(d.dims[3].eject_prob, 5.0 / 6.0 / 7.0 / 8.0));
        assert_eq!(d.dims[3].name, "d3");
        // H = 1,1,1,2,2,2 (k/4 half-up); T_bias = 6+5+4+6+4+2 = 27.
        assert_eq!(d.hops_total, 9);
        assert_eq!(d.t_bias, 27);
        // round(101/9) = round(11.2) = 11; round(198/11) = 18.
        assert_eq!((d.ticks_per_hop, d.clock_period), (11, 18));
    }

    #[test]
    fn ticks_per_hop_rounding_to_zero_is_clamped_to_one() {
        // Ring k = 400: H = 100, T_bias = 100, round(28/100) = 0 -> 1; period = 198.
        let d = derive(&with_radix(&[400], &[])).unwrap();
        assert_eq!(d.target_ticks, 28);
        assert!(d.ticks_per_hop_clamped);
        assert_eq!(d.ticks_per_hop, 1);
        assert_eq!(d.clock_period, 198);
        assert_eq!(d.warnings.len(), 1);
        assert!(d.warnings[0].contains("clamped to 1"), "{:?}", d.warnings);
        assert!(close(d.expected_mean_age, 200.0));
    }

    #[test]
    fn clock_period_rounding_to_zero_is_clamped_to_one() {
        // 1-flit packets, 1-flit buffers, 1 VC: 2 packets x 1 cycle = 2 cycles per hop;
        // 11 ticks per hop: round(2/11) = 0 -> 1.
        let inputs = AgingInputs { packet_flits: 1, input_buffer: 1, staging_buffer: 1, vcs_per_class: 1, ..AgingInputs::default() };
        let d = derive(&inputs).unwrap();
        assert_eq!(d.queueing_per_hop, 2);
        assert!(d.clock_period_clamped);
        assert_eq!(d.clock_period, 1);
        assert!(!d.warnings.is_empty());
    }

    #[test]
    fn errors_name_the_field() {
        let (p, m) = err_path(&with_radix(&[], &[]));
        assert_eq!(p, "radix");
        assert!(m.contains("no dimensions"), "{m}");

        let (p, m) = err_path(&with_radix(&[11, 1, 16], &[]));
        assert_eq!(p, "radix[1]");
        assert!(m.contains("at least 2"), "{m}");

        let (p, m) = err_path(&with_radix(&[2; 7], &[]));
        assert_eq!(p, "radix");
        assert!(m.contains("at most 6"), "{m}");

        let (p, m) = err_path(&with_radix(&[11, 12, 16], &[true, false]));
        assert_eq!(p, "mesh");
        assert!(m.contains("one flag per dimension"), "{m}");

        let (p, _) = err_path(&AgingInputs { packet_flits: 0, ..AgingInputs::default() });
        assert_eq!(p, "packet_flits");

        let (p, m) = err_path(&AgingInputs { packet_flits: 17, ..AgingInputs::default() });
        assert_eq!(p, "staging_buffer");
        assert!(m.contains("staging_buffer >= packet_flits"), "{m}");

        let (p, m) = err_path(&AgingInputs { input_buffer: 8, ..AgingInputs::default() });
        assert_eq!(p, "input_buffer");
        assert!(m.contains("input_buffer >= packet_flits"), "{m}");

        let (p, _) = err_path(&AgingInputs { vcs_per_class: 0, ..AgingInputs::default() });
        assert_eq!(p, "vcs_per_class");

        for bad in [0.0, -4.8, f64::NAN, f64::INFINITY] {
            let (p, _) = err_path(&AgingInputs { channel_gbs: bad, ..AgingInputs::default() });
            assert_eq!(p, "channel_gbs");
            let (p, _) = err_path(&AgingInputs { ejection_gbs: bad, ..AgingInputs::default() });
            assert_eq!(p, "ejection_gbs");
        }
    }

    #[test]
    fn t_bias_at_or_above_the_centre_is_an_error() {
        // Six 32-ary torus dimensions: H = 8 each, T_bias = 8 * (6+5+4+3+2+1) = 168.
        let (p, m) = err_path(&with_radix(&[32; 6], &[]));
        assert_eq!(p, "radix");
        assert!(m.contains("= 168"), "{m}");
        assert!(m.contains("lower the biases or the dimension count"), "{m}");
        // Ring k = 512: H = 128 = T_bias, exactly the centre.
        let (p, _) = err_path(&with_radix(&[512], &[]));
        assert_eq!(p, "radix");
        // Ring k = 508: H = 127, T_bias 127 < 128 is still accepted (ticks clamp to 1).
        let d = derive(&with_radix(&[508], &[])).unwrap();
        assert_eq!((d.t_bias, d.target_ticks, d.ticks_per_hop), (127, 1, 1));
    }

    #[test]
    fn huge_radix_does_not_overflow() {
        let (p, _) = err_path(&with_radix(&[u32::MAX, u32::MAX], &[]));
        assert_eq!(p, "radix");
    }

    #[test]
    fn huge_buffers_overflow_is_an_error() {
        let inputs = AgingInputs {
            packet_flits: 1,
            input_buffer: u32::MAX,
            staging_buffer: u32::MAX,
            vcs_per_class: u32::MAX,
            ..AgingInputs::default()
        };
        let (p, _) = err_path(&inputs);
        assert_eq!(p, "input_buffer");
    }
}
