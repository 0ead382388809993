//! Tests of the injection processes: rates, on/off statistics, periodic timing, errors.
use super::*;
use crate::rng::{domain, stream};

fn on_off(burst_length: f64, peak: f64) -> InjectionConfig {
    InjectionConfig::OnOff { burst_length, peak }
}

fn assert_err(r: Result<InjectionProcess>, path: &str, phrase: &str) {
    let e = r.unwrap_err();
    assert_eq!(e.path(), Some(path), "{e}");
    assert!(e.to_string().contains(phrase), "`{e}` lacks `{phrase}`");
}

#[test]
fn bernoulli_rate() {
    // load 0.4 flits/cycle with 4-flit packets: p = 0.1 packets/cycle.
    let p = InjectionProcess::build(&InjectionConfig::Bernoulli, 0.4, 4.0, "traffic.injection").unwrap();
    let mut rng = stream(1, domain::ENDPOINT, 0);
    let mut st = p.initial_state(&mut rng);
    let cycles = 200_000u32;
    let hits = (0..cycles).filter(|_| p.fires(&mut st, &mut rng)).count() as f64;
    // Binomial: mean 20000, sd sqrt(200000 * 0.1 * 0.9) ~ 134.
    let sd = (cycles as f64 * 0.1 * 0.9).sqrt();
    assert!((hits - 20_000.0).abs() < 5.0 * sd, "{hits}");
}

#[test]
fn zero_load_never_fires() {
    for cfg in [InjectionConfig::Bernoulli, InjectionConfig::Periodic, on_off(8.0, 1.0)] {
        let p = InjectionProcess::build(&cfg, 0.0, 1.0, "traffic.injection").unwrap();
        let mut rng = stream(2, domain::ENDPOINT, 0);
        let mut st = p.initial_state(&mut rng);
        assert!(!st.is_on());
        assert!((0..10_000).all(|_| !p.fires(&mut st, &mut rng)));
    }
}

#[test]
fn full_load_bernoulli_fires_every_cycle() {
    let p = InjectionProcess::build(&InjectionConfig::Bernoulli, 1.0, 1.0, "traffic.injection").unwrap();
    let mut rng = stream(2, domain::ENDPOINT, 0);
    let mut st = SourceState::default();
    assert!((0..1000).all(|_| p.fires(&mut st, &mut rng)));
}

/// One packet per cycle (load = mean size): both fire every cycle.
#[test]
fn one_packet_per_cycle_fires_every_cycle() {
    for cfg in [InjectionConfig::Bernoulli, InjectionConfig::Periodic] {
        let p = InjectionProcess::build(&cfg, 16.0, 16.0, "traffic.injection").unwrap();
        let mut rng = stream(2, domain::ENDPOINT, 0);
        let mut st = p.initial_state(&mut rng);
        assert!((0..1000).all(|_| p.fires(&mut st, &mut rng)), "{cfg:?}");
    }
}

fn periodic(load: f64, mean_size: f64) -> InjectionProcess {
    InjectionProcess::build(&InjectionConfig::Periodic, load, mean_size, "traffic.injection").unwrap()
}

fn interval_of(p: &InjectionProcess) -> u64 {
    match p.kind {
        Kind::Periodic { interval } => interval,
        ref k => panic!("not periodic: {k:?}"),
    }
}

/// Cycles in `0..cycles` in which a fresh source on stream `id` creates a packet.
fn creation_cycles(p: &InjectionProcess, id: u64, cycles: u64) -> Vec<u64> {
    let mut rng = stream(9, domain::ENDPOINT, id);
    let mut st = p.initial_state(&mut rng);
    (0..cycles).filter(|_| p.fires(&mut st, &mut rng)).collect()
}

/// The paper's high-load phase: 16-flit packets at 16/15 flits/node/cycle, one every
/// 15 cycles. Creations are at offset + 15k with offset in [0, 15) cycles, so a
/// window of 15,000 = 1000 * 15 cycles holds exactly 1000 of them, whatever the
/// offset, and every gap is exactly 15 cycles.
#[test]
fn periodic_paper_high_load_creates_one_packet_every_15_cycles() {
    let p = periodic(16.0 / 15.0, 16.0);
    assert_eq!(interval_of(&p), 15 * FIXED_ONE);
    // As written in a config file.
    assert_eq!(interval_of(&periodic(1.0666666666666667, 16.0)), 15 * FIXED_ONE);
    assert_eq!(interval_of(&periodic(16.0 / 1500.0, 16.0)), 1500 * FIXED_ONE);
    for id in 0..256 {
        let at = creation_cycles(&p, id, 15_000);
        assert_eq!(at.len(), 1000, "source {id}");
        assert!(at[0] < 15, "source {id} starts at {}", at[0]);
        assert!(at.windows(2).all(|w| w[1] - w[0] == 15), "source {id}");
    }
}

/// A fractional interval (load 0.3, 1-flit packets: 10/3 cycles): gaps are 3 or 4
/// cycles, and every window of W cycles holds floor or ceil of W / interval
/// packets, where interval is the fixed-point one, so there is no drift.
#[test]
fn periodic_fractional_interval_never_drifts() {
    let p = periodic(0.3, 1.0);
    let interval = interval_of(&p);
    // 10/3 rounded to 2^-32 cycles.
    assert_eq!(interval, (10u64 << 32) / 3);
    let cycles = 1_000_000u64;
    for id in 0..4 {
        let at = creation_cycles(&p, id, cycles);
        assert!(at.windows(2).all(|w| matches!(w[1] - w[0], 3 | 4)), "source {id}");
        // Windows [a, a + w) for many a and w, in fixed point.
        let bounds = |w: u64| {
            let q = ((w as u128) << 32) / interval as u128;
            let exact = ((w as u128) << 32).is_multiple_of(interval as u128);
            (q as usize, q as usize + !exact as usize)
        };
        for a in (0..cycles - 10_000).step_by(99_991) {
            for w in (1..40).chain([1000, 9999, 10_000]) {
                let n = at.partition_point(|&c| c < a + w) - at.partition_point(|&c| c < a);
                let (lo, hi) = bounds(w);
                assert!(n == lo || n == hi, "window [{a}, {a}+{w}): {n} not in {lo}..={hi}");
            }
        }
        let (lo, hi) = bounds(cycles);
        assert!(at.len() == lo || at.len() == hi, "{} vs {lo}..={hi}", at.len());
        // floor(10^6 * 2^32 / interval) = 300000: the rounding (< 2^-32 cycles per
        // interval) does not show over a million cycles.
        assert_eq!(lo, 300_000);
    }
}

/// Each source draws its own offset within its first interval: with a fixed seed,
/// 256 sources at one packet every 15 cycles start in every one of the 15 cycles,
/// and at one every 1,500 cycles they are spread over the whole interval.
#[test]
fn periodic_sources_start_at_different_offsets() {
    let first = |p: &InjectionProcess, interval: u64| -> Vec<u64> { (0..256).map(|id| creation_cycles(p, id, interval)[0]).collect() };
    let mut fast = first(&periodic(16.0 / 15.0, 16.0), 15);
    fast.sort_unstable();
    fast.dedup();
    assert_eq!(fast, (0..15).collect::<Vec<u64>>());
    let mut slow = first(&periodic(16.0 / 1500.0, 16.0), 1500);
    assert!(slow.iter().all(|&c| c < 1500));
    slow.sort_unstable();
    slow.dedup();
    // 256 uniform draws over 1500 cycles: ~236 distinct on average.
    assert!(slow.len() > 200, "{} distinct offsets", slow.len());
    assert!(slow[0] < 50 && slow[slow.len() - 1] > 1450, "{slow:?}");
    // The offset is one draw from the source's stream: the same stream, the same
    // offset.
    let p = periodic(0.3, 1.0);
    assert_eq!(creation_cycles(&p, 7, 100), creation_cycles(&p, 7, 100));
}

/// A phase change scales the time to the next packet by new / old interval: from
/// one packet per 1,500 cycles to one per 15 the source creates within 15 cycles,
/// and back again it keeps its fraction of the interval (no synchronised restart).
#[test]
fn periodic_phase_change_keeps_the_fraction_of_the_interval() {
    let (slow, fast) = (periodic(16.0 / 1500.0, 16.0), periodic(16.0 / 15.0, 16.0));
    let mut rng = stream(3, domain::ENDPOINT, 0);
    let mut st = slow.initial_state(&mut rng);
    let offset = st.clock.next;
    assert!(offset < 1500 * FIXED_ONE);
    // Whole intervals later the clock is back where it started.
    let made = (0..3000).filter(|_| slow.fires(&mut st, &mut rng)).count();
    assert_eq!((made, st.clock.next), (2, offset));
    let made: Vec<u64> = (0..1500).filter(|_| fast.fires(&mut st, &mut rng)).collect();
    assert_eq!(made.len(), 100);
    assert_eq!(made[0], (offset / 100) >> 32, "first fast packet at the scaled offset");
    assert_eq!(st.clock.next, offset / 100);
    let made: Vec<u64> = (0..3000).filter(|_| slow.fires(&mut st, &mut rng)).collect();
    assert_eq!(made.len(), 2);
    // Scaled back up, losing at most 100 units of 2^-32 cycles to rounding.
    assert!(offset - st.clock.next < 100, "{} vs {offset}", st.clock.next);
    // A source whose first phase was silent draws its offset when it first runs.
    let silent = InjectionProcess::build(&InjectionConfig::Periodic, 0.0, 16.0, "t").unwrap();
    let mut st = silent.initial_state(&mut rng);
    assert_eq!(st, SourceState::default());
    assert!(!silent.fires(&mut st, &mut rng));
    let made: Vec<u64> = (0..30).filter(|_| fast.fires(&mut st, &mut rng)).collect();
    assert_eq!(made.len(), 2);
    assert!(made[0] < 15 && made[1] == made[0] + 15, "{made:?}");
}

/// Asymptotic variance per cycle of the packet count of an on/off source: the
/// creation indicator X_t = on_t * B_t has var pi*q*(1 - pi*q), and lag-k covariance
/// q^2 * pi*(1-pi) * lambda^k with lambda = 1 - alpha - beta.
fn on_off_variance_per_cycle(load: f64, peak: f64, burst: f64, mean_size: f64) -> f64 {
    let q = peak / mean_size;
    let pi = load / peak;
    let beta = 1.0 / burst;
    let alpha = beta * load / (peak - load);
    let lambda = 1.0 - alpha - beta;
    pi * q * (1.0 - pi * q) + 2.0 * q * q * pi * (1.0 - pi) * lambda / (1.0 - lambda)
}

#[test]
fn on_off_long_run_rate_and_burst_length() {
    let (load, peak, burst, size) = (0.2, 0.8, 10.0, 2.0);
    let p = InjectionProcess::build(&on_off(burst, peak), load, size, "traffic.injection").unwrap();
    let mut rng = stream(3, domain::ENDPOINT, 0);
    let mut st = p.initial_state(&mut rng);
    let cycles = 400_000u32;
    let (mut packets, mut on_cycles, mut runs, mut run) = (0u32, 0u32, 0u32, 0u32);
    for _ in 0..cycles {
        packets += p.fires(&mut st, &mut rng) as u32;
        if st.is_on() {
            on_cycles += 1;
            run += 1;
        } else if run > 0 {
            runs += 1;
            run = 0;
        }
    }
    // Packets per cycle averages load / size = 0.1.
    let mean = cycles as f64 * load / size;
    let sd = (cycles as f64 * on_off_variance_per_cycle(load, peak, burst, size)).sqrt();
    assert!((packets as f64 - mean).abs() < 5.0 * sd, "{packets} vs {mean} +- {sd}");
    // ON runs are geometric with mean 10 and variance (1 - 0.1) / 0.1^2 = 90;
    // about 400000 * 0.25 / 10 = 10000 runs, so the mean's sd ~ 0.095.
    let mean_run = on_cycles as f64 / runs as f64;
    let run_sd = (90.0 / runs as f64).sqrt();
    assert!((mean_run - burst).abs() < 5.0 * run_sd, "mean ON run {mean_run} over {runs} runs");
}

#[test]
fn on_off_is_burstier_than_bernoulli() {
    // Same load: per-window packet counts vary much more for on/off.
    let window_variance = |cfg: InjectionConfig| {
        let p = InjectionProcess::build(&cfg, 0.3, 1.0, "traffic.injection").unwrap();
        let mut rng = stream(4, domain::ENDPOINT, 0);
        let mut st = p.initial_state(&mut rng);
        let counts: Vec<f64> = (0..2_000).map(|_| (0..100).filter(|_| p.fires(&mut st, &mut rng)).count() as f64).collect();
        let m = counts.iter().sum::<f64>() / counts.len() as f64;
        counts.iter().map(|c| (c - m).powi(2)).sum::<f64>() / (counts.len() - 1) as f64
    };
    let bernoulli = window_variance(InjectionConfig::Bernoulli);
    let bursty = window_variance(on_off(20.0, 1.0));
    // Bernoulli: 100 * 0.3 * 0.7 = 21. On/off (pi = 0.3, lambda = 1 - alpha - beta ~ 0.929):
    // 0.21 * (100 + 2 * sum_k (100 - k) lambda^k) ~ 490, over 20x.
    assert!((bernoulli - 21.0).abs() < 5.0, "{bernoulli}");
    assert!(bursty > 5.0 * bernoulli, "{bursty} vs {bernoulli}");
}

#[test]
fn on_off_starts_stationary() {
    let p = InjectionProcess::build(&on_off(5.0, 1.0), 0.25, 1.0, "traffic.injection").unwrap();
    let mut rng = stream(5, domain::ENDPOINT, 0);
    let n = 100_000u32;
    let on = (0..n).filter(|_| p.initial_state(&mut rng).is_on()).count() as f64;
    let sd = (n as f64 * 0.25 * 0.75).sqrt();
    assert!((on - 25_000.0).abs() < 5.0 * sd, "{on}");
}

#[test]
fn validation_errors() {
    let path = "traffic.injection";
    let build = |cfg: InjectionConfig, load: f64| InjectionProcess::build(&cfg, load, 1.0, path);
    assert_err(build(on_off(0.5, 1.0), 0.1), "traffic.injection.burst_length", ">= 1");
    assert_err(build(on_off(f64::NAN, 1.0), 0.1), "traffic.injection.burst_length", ">= 1");
    assert_err(build(on_off(f64::INFINITY, 1.0), 0.1), "traffic.injection.burst_length", "finite");
    for peak in [0.0, 1.2, f64::NAN] {
        assert_err(build(on_off(4.0, peak), 0.1), "traffic.injection.peak", "must be in (0, 1]");
    }
    assert_err(build(on_off(4.0, 0.5), 0.5), "traffic.load", "larger peak");
    assert_err(build(on_off(4.0, 0.5), 0.7), "traffic.load", "bernoulli");
    // burst 1, peak 1: at most 1 * 1 / 2 = 0.5.
    assert_err(build(on_off(1.0, 1.0), 0.6), "traffic.load", "at most peak * burst_length / (burst_length + 1) = 0.5");
    assert!(build(on_off(1.0, 1.0), 0.5).is_ok());
    // At most one packet per cycle: 1.5 flits/node/cycle needs packets of at least
    // 1.5 flits on average.
    for cfg in [InjectionConfig::Bernoulli, InjectionConfig::Periodic] {
        assert_err(build(cfg.clone(), 1.5), "traffic.load", "[0, 1]");
        assert_err(build(cfg.clone(), 1.5), "traffic.load", "raise `traffic.packet_size`");
        assert!(InjectionProcess::build(&cfg, 1.5, 16.0, path).is_ok());
        assert!(InjectionProcess::build(&cfg, 16.0 / 15.0, 16.0, path).is_ok());
        assert_err(
            InjectionProcess::build(&cfg, 17.0, 16.0, path),
            "traffic.load",
            "load 17 must be in [0, 16] flits/node/cycle: a source creates at most one packet per cycle",
        );
        assert_err(build(cfg, -0.1), "traffic.load", "load -0.1 must be in [0, 1]");
    }
    // On/off stays within one flit per cycle, whatever the packet size.
    assert_err(
        InjectionProcess::build(&on_off(4.0, 1.0), 1.5, 16.0, path),
        "traffic.load",
        "load 1.5 must be in [0, 1] flits/node/cycle: an on/off source offers at most its peak",
    );
    // A periodic interval must fit its fixed-point clock (2^32 cycles).
    assert_err(build(InjectionConfig::Periodic, 1e-10), "traffic.load", "too low for periodic injection");
    assert!(build(InjectionConfig::Periodic, 1e-9).is_ok());
    let e = InjectionProcess::build_at(&on_off(4.0, 0.5), 0.6, 1.0, path, Some("traffic.phases[1].load"));
    assert_err(e, "traffic.phases[1].load", "not below the on/off peak 0.5");
}

#[test]
fn config_parses_from_toml() {
    #[derive(Deserialize)]
    struct T {
        injection: InjectionConfig,
    }
    let parse = |s: &str| toml::from_str::<T>(s).map(|t| t.injection);
    assert_eq!(parse("injection = { type = \"bernoulli\" }").unwrap(), InjectionConfig::Bernoulli);
    assert_eq!(parse("injection = { type = \"on_off\", burst_length = 8 }").unwrap(), on_off(8.0, 1.0));
    assert_eq!(parse("injection = { type = \"periodic\" }").unwrap(), InjectionConfig::Periodic);
    assert!(parse("injection = { type = \"periodic\", interval = 15 }").unwrap_err().to_string().contains("unknown field `interval`"));
    assert!(parse("injection = { type = \"on_off\" }").is_err());
    assert!(parse("injection = { type = \"bernoulli\", rate = 1 }").unwrap_err().to_string().contains("unknown field `rate`"));
    assert!(parse("injection = { type = \"on_off\", burst_length = 4, rate = 1 }").is_err());
}
