//! Curves over time in a study's rows (`series` in `experiment.toml`): a series read from
//! a run's report, e.g. the self-tuned threshold per tuning period
//! (`congestion.trace.threshold`), and drawn as one line of text for `flitsim reproduce`
//! to print beside the paper's curve in words (figures that are curves, not numbers).

/// A series in a report: the values, and the `cycle` of each element when they carry
/// one (else empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub values: Vec<f64>,
    pub cycles: Vec<u64>,
}

/// Resolve `a.b.c` in a JSON value where `a.b` is an array: `c` of every element (or
/// the array itself when the path ends at it), leaving out elements whose `cycle` is at
/// most `after` (the warm-up, which the papers' curves leave out too). `None` if the
/// path does not lead to an array of numbers.
pub fn lookup_series(v: &serde_json::Value, path: &str, after: u64) -> Option<Series> {
    let mut cur = v;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        cur = cur.get(part)?;
        if let Some(items) = cur.as_array() {
            let field = parts.get(i + 1).copied();
            if i + 2 < parts.len() {
                return None; // one field of each element, no deeper
            }
            let cycle = |x: &serde_json::Value| x.get("cycle").and_then(|c| c.as_u64());
            let items: Vec<&serde_json::Value> = items.iter().filter(|x| cycle(x).is_none_or(|c| c > after)).collect();
            let values: Option<Vec<f64>> = items.iter().map(|x| field.map_or(Some(*x), |f| x.get(f)).and_then(|y| y.as_f64())).collect();
            let cycles: Vec<u64> = items.iter().map_while(|x| cycle(x)).collect();
            let cycles = if cycles.len() == items.len() { cycles } else { Vec::new() };
            return Some(Series { values: values?, cycles });
        }
    }
    None
}

/// `values` in `bins` consecutive groups of (nearly) equal size, each drawn by its mean
/// as one of eight bar heights from zero (or the least mean, if negative) to the
/// greatest mean, as a figure's axis would start at zero (an all-zero series draws the
/// lowest bar).
pub fn sparkline(values: &[f64], bins: usize) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let bins = bins.min(values.len()).max(1);
    if values.is_empty() {
        return String::new();
    }
    let means: Vec<f64> = (0..bins)
        .map(|b| {
            let (lo, hi) = (b * values.len() / bins, (b + 1) * values.len() / bins);
            values[lo..hi].iter().sum::<f64>() / (hi - lo) as f64
        })
        .collect();
    let (min, max) = means.iter().fold((0.0f64, f64::NEG_INFINITY), |(a, b), &m| (a.min(m), b.max(m)));
    means
        .iter()
        .map(|&m| {
            let level = if max > min { ((m - min) / (max - min) * 7.0).round() as usize } else { 0 };
            BARS[level.min(7)]
        })
        .collect()
}

/// Minimum, median and maximum of a non-empty series (callers draw nothing for an
/// empty one).
pub fn range(values: &[f64]) -> (f64, f64, f64) {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ramp_draws_every_bar_once_and_a_flat_line_the_lowest() {
        let ramp: Vec<f64> = (0..8).map(f64::from).collect();
        assert_eq!(sparkline(&ramp, 8), "▁▂▃▄▅▆▇█");
        // 16 values in 8 bins: pairs averaged, (0+1)/2 ... (14+15)/2, still a ramp.
        let ramp: Vec<f64> = (0..16).map(f64::from).collect();
        assert_eq!(sparkline(&ramp, 8), "▁▂▃▄▅▆▇█");
        // From zero: a flat series is at full height, a series of zeros at the lowest.
        assert_eq!(sparkline(&[5.0; 10], 4), "████");
        assert_eq!(sparkline(&[0.0; 3], 3), "▁▁▁");
        // Seven eighths of the way from 0 to 8 at 7, half way at 4.
        assert_eq!(sparkline(&[8.0, 4.0, 0.0], 3), "█▅▁");
        // Negative values: from the least.
        assert_eq!(sparkline(&[-7.0, 0.0], 2), "▁█");
        // A dip: 10 10 0 10 in 4 bins.
        assert_eq!(sparkline(&[10.0, 10.0, 0.0, 10.0], 4), "██▁█");
        // More bins than values: one per value.
        assert_eq!(sparkline(&[1.0, 2.0], 60).chars().count(), 2);
        assert_eq!(range(&[3.0, 1.0, 2.0, 9.0, 0.5]), (0.5, 2.0, 9.0));
    }

    #[test]
    fn series_are_read_from_arrays_of_numbers_or_of_records() {
        let v = serde_json::json!({
            "congestion": { "trace": [
                { "cycle": 96, "threshold": 10, "throughput": 0.5 },
                { "cycle": 192, "threshold": 12, "throughput": 0.25 },
            ]},
            "plain": [1, 2.5],
        });
        assert_eq!(lookup_series(&v, "congestion.trace.threshold", 0), Some(Series { values: vec![10.0, 12.0], cycles: vec![96, 192] }));
        // After a warm-up of 96 cycles: the second period only.
        assert_eq!(lookup_series(&v, "congestion.trace.throughput", 96), Some(Series { values: vec![0.25], cycles: vec![192] }));
        assert_eq!(lookup_series(&v, "plain", 1000), Some(Series { values: vec![1.0, 2.5], cycles: vec![] }));
        assert_eq!(lookup_series(&v, "congestion.trace.missing", 0), None);
        assert_eq!(lookup_series(&v, "congestion.trace", 0), None, "records are not numbers");
        assert_eq!(lookup_series(&v, "congestion.nothing", 0), None);
    }
}
