//! Rank placement: which endpoint each rank of an application runs on (one rank per
//! endpoint).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::traffic::NodeSpace;

/// `traffic.trace.placement`: where the ranks run.
#[derive(Deserialize, Serialize, Clone, Debug, Default, PartialEq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Placement {
    /// Rank r on endpoint r.
    #[default]
    Linear,
    /// Ranks dealt over the routers in turn: rank r on router `r mod R`, its endpoint
    /// `r div R` (`R` routers), so consecutive ranks share no router.
    RoundRobin,
    /// Ranks spread evenly over the machine: rank r on endpoint `floor(r N / P)` (`N`
    /// endpoints, `P` ranks), as a job given every node-th node would be.
    Spread,
    /// A random choice of endpoints in random order, drawn from the run's `seed`.
    Random,
    /// From a file: one endpoint per line, rank 0 first (`#` comments). A relative path is
    /// read from the folder of the config file.
    File(String),
}

impl Placement {
    /// The name in reports.
    pub fn name(&self) -> String {
        match self {
            Placement::Linear => "linear".into(),
            Placement::RoundRobin => "round_robin".into(),
            Placement::Spread => "spread".into(),
            Placement::Random => "random".into(),
            Placement::File(f) => format!("file {f}"),
        }
    }

    /// The endpoint of each of `ranks` ranks on `space` (`key`: the config key).
    pub fn place(&self, ranks: u32, space: &NodeSpace, seed: u64, key: &str) -> Result<Vec<u32>> {
        let n = space.num_nodes;
        if ranks > n {
            return Err(Error::config(
                key,
                format!("the program has {ranks} ranks and the network {n} endpoints: one rank runs on each endpoint; choose a larger network or a trace with fewer ranks"),
            ));
        }
        let nodes: Vec<u32> = match self {
            Placement::Linear => (0..ranks).collect(),
            Placement::RoundRobin => {
                let c = space.concentration.max(1);
                let routers = n / c;
                (0..ranks).map(|r| (r % routers) * c + r / routers).collect()
            }
            Placement::Spread => (0..ranks).map(|r| (r as u64 * n as u64 / ranks as u64) as u32).collect(),
            Placement::Random => {
                let mut rng = crate::rng::stream(seed, crate::rng::domain::PLACEMENT, 0);
                let mut all: Vec<u32> = (0..n).collect();
                for i in 0..ranks as usize {
                    let j = i + crate::rng::below(&mut rng, n - i as u32) as usize;
                    all.swap(i, j);
                }
                all.truncate(ranks as usize);
                all
            }
            Placement::File(f) => {
                let key = format!("{key}.file");
                let text = std::fs::read_to_string(f).map_err(|e| Error::config(&key, crate::schema::cannot_read(f, &e)))?;
                let mut nodes = Vec::new();
                let mut seen = vec![false; n as usize];
                for (line, body) in crate::schema::data_lines(&text) {
                    let at = format!("{key} ({f} line {line})");
                    let e: u32 =
                        body.parse().map_err(|_| Error::config(&at, format!("`{body}` is not an endpoint (a whole number from 0)")))?;
                    if e >= n {
                        return Err(Error::config(&at, format!("endpoint {e} is outside the network: endpoints are 0..={}", n - 1)));
                    }
                    if std::mem::replace(&mut seen[e as usize], true) {
                        return Err(Error::config(&at, format!("endpoint {e} is given twice: one rank runs on each endpoint")));
                    }
                    nodes.push(e);
                }
                if nodes.len() != ranks as usize {
                    return Err(Error::config(
                        &key,
                        format!("{f} places {} ranks and the program has {ranks}: give one endpoint per rank", nodes.len()),
                    ));
                }
                nodes
            }
        };
        Ok(nodes)
    }
}
