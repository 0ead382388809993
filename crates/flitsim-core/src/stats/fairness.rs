//! Throughput distributions across nodes and Jain's fairness index.
//!
//! A [`ThroughputStats`] summarises one value per node (flits/node/cycle): the mean, the
//! extremes, Jain's index, and every node's value so tables and plots can be drawn.
//!
//! Jain's fairness index (R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure of Fairness
//! and Discrimination for Resource Allocation in Shared Computer Systems", DEC-TR-301,
//! 1984) is `J = (Σx)² / (n · Σx²)`. It is 1.0 when every node gets the same share and
//! `1/n` when one node gets everything. We define it as 1.0 for an empty or all-zero set
//! (nobody is treated worse than anybody else), so it is always finite.

/// Summary of one throughput value per node, in flits/node/cycle.
///
/// `mean`, `min`, `max` and `jain` are computed over a subset of the nodes chosen by
/// whoever builds the summary (see [`ThroughputStats::over`]); `nodes` says how many
/// were included. `values` always lists every node, indexed by node id.
#[derive(serde::Serialize, Clone, Debug)]
pub struct ThroughputStats {
    /// Mean over the included nodes (flits/node/cycle); 0.0 if no node is included.
    pub mean: f64,
    /// Smallest value among the included nodes (flits/node/cycle); 0.0 if none.
    pub min: f64,
    /// Largest value among the included nodes (flits/node/cycle); 0.0 if none.
    pub max: f64,
    /// Jain's fairness index over the included nodes, in (0, 1]; 1.0 if none or all zero.
    pub jain: f64,
    /// Number of nodes the mean, min, max and Jain's index are computed over.
    pub nodes: u32,
    /// Every node's value (flits/node/cycle), indexed by node id, included or not.
    pub values: Vec<f64>,
}

impl ThroughputStats {
    /// Summarise `values` over every node.
    pub fn all(values: Vec<f64>) -> Self {
        Self::over(values, |_| true)
    }

    /// Summarise `values` over the nodes `i` for which `include(i)` is true; `values`
    /// still lists every node.
    pub fn over(values: Vec<f64>, include: impl Fn(usize) -> bool) -> Self {
        let mut n = 0u32;
        let mut sum = 0.0;
        let mut sum_sq = 0.0;
        let mut min = f64::INFINITY;
        let mut max = f64::NEG_INFINITY;
        for (i, &x) in values.iter().enumerate() {
            if !include(i) {
                continue;
            }
            n += 1;
            sum += x;
            sum_sq += x * x;
            min = min.min(x);
            max = max.max(x);
        }
        if n == 0 {
            return ThroughputStats { mean: 0.0, min: 0.0, max: 0.0, jain: 1.0, nodes: 0, values };
        }
        ThroughputStats { mean: sum / f64::from(n), min, max, jain: jain_from_sums(n, sum, sum_sq), nodes: n, values }
    }
}

/// Jain's fairness index `(Σx)² / (n · Σx²)` of `values`; 1.0 when `values` is empty or
/// all zero.
pub fn jain(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let sum_sq: f64 = values.iter().map(|x| x * x).sum();
    jain_from_sums(values.len() as u32, sum, sum_sq)
}

fn jain_from_sums(n: u32, sum: f64, sum_sq: f64) -> f64 {
    if n == 0 || sum_sq <= 0.0 {
        return 1.0;
    }
    // Rounding can push the ratio a hair above 1 for equal values; clamp to the range.
    (sum * sum / (f64::from(n) * sum_sq)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn jain_equal_values_is_one() {
        assert!(close(jain(&[0.3, 0.3, 0.3, 0.3]), 1.0));
    }

    #[test]
    fn jain_one_of_n_nonzero_is_one_over_n() {
        assert!(close(jain(&[0.0, 0.0, 0.7, 0.0, 0.0]), 0.2));
    }

    #[test]
    fn jain_one_to_four() {
        // (1+2+3+4)^2 / (4 * (1+4+9+16)) = 100 / 120
        assert!(close(jain(&[1.0, 2.0, 3.0, 4.0]), 100.0 / 120.0));
    }

    #[test]
    fn jain_empty_or_zero_is_one() {
        assert_eq!(jain(&[]), 1.0);
        assert_eq!(jain(&[0.0, 0.0]), 1.0);
    }

    #[test]
    fn summary_over_subset_keeps_all_values() {
        let s = ThroughputStats::over(vec![1.0, 2.0, 0.0, 3.0, 4.0], |i| i != 2);
        assert_eq!(s.nodes, 4);
        assert!(close(s.mean, 2.5));
        assert_eq!((s.min, s.max), (1.0, 4.0));
        assert!(close(s.jain, 100.0 / 120.0));
        assert_eq!(s.values.len(), 5);
    }

    #[test]
    fn summary_of_nothing_is_finite() {
        let s = ThroughputStats::over(vec![0.0; 3], |_| false);
        assert_eq!((s.mean, s.min, s.max, s.jain, s.nodes), (0.0, 0.0, 0.0, 1.0, 0));
        let s = ThroughputStats::all(Vec::new());
        assert_eq!((s.mean, s.jain, s.nodes), (0.0, 1.0, 0));
    }
}
