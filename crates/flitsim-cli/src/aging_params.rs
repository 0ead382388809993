//! `flitsim aging-params`: derive the SeaStar age-arbitration parameters (per-dimension
//! `REQ_AGE_BIAS` and `AGE_CLOCK_PERIOD`) from the topology and buffers, and print the
//! derivation step by step (section 3 of the SeaStar age-arbitration paper). The numbers
//! come from [`flitsim_core::router::aging::params::derive`]; this module only prints.

use std::fmt::Write as _;
use std::process::ExitCode;

use flitsim_core::router::aging::params::{
    derive, dimension_name, AgingDerivation, AgingInputs, DimensionRow, MAX_DIMS, PAPER_BIASES, PAPER_CLOCK_PERIOD, PAPER_T_BIAS,
};
use flitsim_core::Error;

use crate::common::CliResult;

/// Arguments of `flitsim aging-params`.
#[derive(clap::Args, Debug, Clone)]
pub struct AgingParamsArgs {
    /// Radix of each dimension in routing order (x first), e.g. 11,12,16.
    #[arg(long, value_delimiter = ',', required = true, value_name = "K,K,..")]
    pub radix: Vec<u32>,
    /// Dimensions that are meshes (the rest are tori), by name (x, y, z, d3, d4, d5) or
    /// 0-based index, e.g. --mesh z or --mesh x,y; `all` for every dimension.
    #[arg(long, value_delimiter = ',', value_name = "DIM,..")]
    pub mesh: Vec<String>,
    /// Maximum packet size in flits.
    #[arg(long, default_value_t = 9)]
    pub packet: u32,
    /// Input buffer depth per VC, in flits.
    #[arg(long, default_value_t = 96)]
    pub input_buffer: u32,
    /// Output staging buffer depth per VC, in flits.
    #[arg(long, default_value_t = 16)]
    pub staging: u32,
    /// Virtual channels per message class.
    #[arg(long, default_value_t = 2)]
    pub vcs_per_class: u32,
    /// Channel bandwidth Bc per direction, GB/s.
    #[arg(long, default_value_t = 4.8)]
    pub channel_gbs: f64,
    /// Processor ejection bandwidth Ep, GB/s.
    #[arg(long, default_value_t = 2.0)]
    pub ejection_gbs: f64,
    /// Print the derivation as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The command-line flag for a field path of [`AgingInputs`] (for error messages).
fn flag_for(path: &str) -> &'static str {
    match path.split('[').next().unwrap_or(path) {
        "radix" => "--radix",
        "mesh" => "--mesh",
        "packet_flits" => "--packet",
        "input_buffer" => "--input-buffer",
        "staging_buffer" => "--staging",
        "vcs_per_class" => "--vcs-per-class",
        "channel_gbs" => "--channel-gbs",
        "ejection_gbs" => "--ejection-gbs",
        _ => "",
    }
}

/// Turn the `--mesh` list into one flag per dimension.
fn mesh_flags(names: &[String], dims: usize) -> CliResult<Vec<bool>> {
    let mut mesh = vec![false; dims];
    for raw in names {
        let name = raw.trim().to_ascii_lowercase();
        if name.is_empty() {
            continue;
        }
        if name == "all" {
            mesh.iter_mut().for_each(|m| *m = true);
            continue;
        }
        let index =
            name.parse::<usize>().ok().or_else(|| (0..dims.max(MAX_DIMS)).find(|&i| dimension_name(i) == name)).filter(|&i| i < dims);
        match index {
            Some(i) => mesh[i] = true,
            None => {
                let valid: Vec<String> = (0..dims).map(dimension_name).collect();
                return Err(format!(
                    "invalid --mesh (mesh): unknown dimension `{raw}` for {dims} dimension(s); use {} (or a 0-based \
                     index below {dims}, or `all`)",
                    valid.join(", ")
                ));
            }
        }
    }
    Ok(mesh)
}

/// Format a number without trailing zeros (`4.8`, `2`, `3.491`).
fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// "torus" or "mesh".
fn kind(r: &DimensionRow) -> &'static str {
    if r.mesh {
        "mesh"
    } else {
        "torus"
    }
}

/// The readable walk-through of a derivation.
pub fn derivation_text(d: &AgingDerivation) -> String {
    let inp = &d.inputs;
    let mut o = String::new();
    let shape: Vec<String> = d.dims.iter().map(|r| r.radix.to_string()).collect();
    let kinds: Vec<&str> = d.dims.iter().map(kind).collect();
    let all_same = kinds.iter().all(|k| *k == kinds[0]);
    let topo = if all_same { kinds[0].to_string() } else { format!("mixed ({})", kinds.join(", ")) };
    let _ = writeln!(
        o,
        "Aging parameters for a {} {topo}, {} dimension(s), dimension-order routed {} first",
        shape.join("x"),
        d.dims.len(),
        d.dims[0].name
    );
    let _ = writeln!(
        o,
        "inputs: packet {} flits, input buffer {} flits, staging buffer {} flits, {} VCs per class, Bc {} GB/s, Ep {} GB/s",
        inp.packet_flits,
        inp.input_buffer,
        inp.staging_buffer,
        inp.vcs_per_class,
        num(inp.channel_gbs),
        num(inp.ejection_gbs)
    );
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{:<4} {:>5} {:<6} {:>7} {:>5} {:>8} {:>9} {:>9} {:>8} {:>8} {:>7} {:>5}",
        "dim", "radix", "type", "H_i", "H~", "load", "P_i", "P_i+/-", "Bc*c/k", "U_i", "U_i/Bc", "bias"
    );
    for r in &d.dims {
        let _ = writeln!(
            o,
            "{:<4} {:>5} {:<6} {:>7.3} {:>5} {:>8.3} {:>9.6} {:>9.6} {:>8.3} {:>8.3} {:>7.3} {:>5}",
            r.name,
            r.radix,
            kind(r),
            r.avg_hops,
            r.hops_rounded,
            r.channel_load,
            r.eject_prob,
            r.eject_prob_port,
            r.channel_bound_gbs,
            r.utilisation_gbs,
            r.utilisation_frac,
            r.bias
        );
    }
    let _ = writeln!(o, "  H_i: k/4 torus (Eq 4-5), (k+1)/3 mesh (Eq 6-7); H~ rounded; load k/8 torus, k/4 mesh (Eq 8-9);");
    let _ = writeln!(
        o,
        "  P_i: Eq 10-12 (last dimension takes the rest), P_i+ = P_i- = P_i/2 (Eq 13); U_i: Eq 14-16 (GB/s), c = 8 torus, 4 mesh"
    );
    let _ = writeln!(o);

    let n = d.dims.len();
    let _ = writeln!(o, "Ejection-rate bounds (Eq 14-16, from the last dimension back):");
    for (i, r) in d.dims.iter().enumerate().rev() {
        let c = if r.mesh { 4 } else { 8 };
        let down = if i + 1 == n {
            format!("Ep = {}", num(inp.ejection_gbs))
        } else {
            format!("U_{} = {}", d.dims[i + 1].name, num(d.dims[i + 1].utilisation_gbs))
        };
        let _ = writeln!(
            o,
            "  U_{} = min({} x {c}/{}, {down}) = min({}, {}) = {} GB/s ({:.1}% of Bc)",
            r.name,
            num(inp.channel_gbs),
            r.radix,
            num(r.channel_bound_gbs),
            num(if i + 1 == n { inp.ejection_gbs } else { d.dims[i + 1].utilisation_gbs }),
            num(r.utilisation_gbs),
            100.0 * r.utilisation_frac
        );
    }
    let _ = writeln!(o);

    let hops: Vec<String> = d.dims.iter().map(|r| r.hops_rounded.to_string()).collect();
    let _ = writeln!(o, "average hops H = {} = {} (unrounded {})", hops.join(" + "), d.hops_total, num(d.avg_hops_exact));
    let biases: Vec<String> = d.dims.iter().map(|r| format!("bias_{} = {}", r.name, r.bias)).collect();
    let _ = writeln!(o, "biases, decreasing along the routing order: {}", biases.join(", "));
    let terms: Vec<String> = d.dims.iter().map(|r| format!("{}x{}", r.hops_rounded, r.bias)).collect();
    let _ = writeln!(o, "T_bias = {} = {}", terms.join(" + "), d.t_bias);
    let _ = writeln!(o, "target queueing ticks = {} - {} = {}", d.age_centre, d.t_bias, d.target_ticks);
    let _ = writeln!(
        o,
        "ticks per hop = round(({} - {}) / {}) = round({}) = {}{}",
        d.age_centre,
        d.t_bias,
        d.hops_total,
        num(d.ticks_per_hop_exact),
        d.ticks_per_hop,
        if d.ticks_per_hop_clamped { " (clamped from 0)" } else { "" }
    );
    let _ = writeln!(
        o,
        "queued packets per hop = floor({}/{}) + floor({}/{}) = {} + {} = {}",
        inp.input_buffer, inp.packet_flits, inp.staging_buffer, inp.packet_flits, d.input_packets, d.staging_packets, d.packets_queued
    );
    let _ = writeln!(o, "cycles per packet per queue = {} x {} = {}", inp.vcs_per_class, inp.packet_flits, d.cycles_per_packet);
    let _ = writeln!(o, "queueing per hop = {} x {} = {} cycles", d.packets_queued, d.cycles_per_packet, d.queueing_per_hop);
    let _ = writeln!(
        o,
        "period = round({} x {} / {}) = round({}) = {}{}",
        d.packets_queued,
        d.cycles_per_packet,
        d.ticks_per_hop,
        num(d.clock_period_exact),
        d.clock_period,
        if d.clock_period_clamped { " (clamped from 0)" } else { "" }
    );
    let _ = writeln!(
        o,
        "expected mean age = {} + {} x {} / {} = {}",
        d.t_bias,
        d.hops_total,
        d.queueing_per_hop,
        d.clock_period,
        num(d.expected_mean_age)
    );
    for w in &d.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    let _ = writeln!(o);
    let rec: Vec<String> = d.dims.iter().map(|r| format!("{}={}", r.name, r.bias)).collect();
    let _ = writeln!(o, "recommendation: REQ_AGE_BIAS {}, AGE_CLOCK_PERIOD = {}", rec.join(" "), d.clock_period);
    if inp.is_paper_example() {
        let matches = d.biases == PAPER_BIASES && d.t_bias == PAPER_T_BIAS && d.clock_period == PAPER_CLOCK_PERIOD;
        let pb: Vec<String> = PAPER_BIASES.iter().map(u32::to_string).collect();
        let _ = writeln!(
            o,
            "paper: biases {}, T_bias {}, period {} ({})",
            pb.join(","),
            PAPER_T_BIAS,
            PAPER_CLOCK_PERIOD,
            if matches { "matches" } else { "DIFFERS" }
        );
    }
    o
}

/// `flitsim aging-params`.
pub fn cmd_aging_params(args: &AgingParamsArgs) -> CliResult<ExitCode> {
    let inputs = AgingInputs {
        radix: args.radix.clone(),
        mesh: mesh_flags(&args.mesh, args.radix.len())?,
        packet_flits: args.packet,
        input_buffer: args.input_buffer,
        staging_buffer: args.staging,
        vcs_per_class: args.vcs_per_class,
        channel_gbs: args.channel_gbs,
        ejection_gbs: args.ejection_gbs,
    };
    let d = derive(&inputs).map_err(|e| match &e {
        Error::Config { path, message } => format!("invalid {} ({path}): {message}", flag_for(path)),
        other => other.to_string(),
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&d).map_err(|e| e.to_string())?);
    } else {
        print!("{}", derivation_text(&d));
    }
    Ok(ExitCode::SUCCESS)
}
