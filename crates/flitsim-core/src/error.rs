//! Typed errors for the whole engine. Library code returns these; it never exits.

/// Every way a flitsim call can fail.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    /// The config text is not valid TOML, or a value has the wrong type or an unknown key.
    #[error("config error at `{path}`: {message}")]
    Parse {
        /// Dotted key path of the offending field (`traffic.pattern.type`), or `<root>`.
        path: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The config parsed but a value is impossible (out of range, inconsistent with
    /// another field, or not supported by the chosen topology).
    #[error("invalid config at `{path}`: {message}")]
    Config {
        /// Dotted key path of the offending field.
        path: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The watchdog saw no flit move for too long while flits were buffered.
    #[error("deadlock detected at cycle {cycle}: no flit moved for {idle} cycles while {buffered} flits were buffered\n{blocked}")]
    Deadlock {
        /// Cycle at which the watchdog fired.
        cycle: u64,
        /// Cycles without progress.
        idle: u64,
        /// Flits buffered in the network when it fired.
        buffered: u64,
        /// Human-readable list of the blocked virtual channels and what each waits for.
        blocked: String,
    },
    /// A cycle of input VCs waiting for each other made no progress for a watchdog period
    /// while other flits still moved (so the network-wide watchdog would not fire).
    #[error("partial deadlock detected at cycle {cycle}: a cycle of waiting channels has not moved for {period} cycles ({buffered} flits buffered in the network)\n{blocked}")]
    PartialDeadlock {
        /// Cycle at which it was found.
        cycle: u64,
        /// The watchdog period over which the cycle did not move.
        period: u64,
        /// Flits buffered in the network.
        buffered: u64,
        /// The cycle of waiting input VCs.
        blocked: String,
    },
    /// Check mode found a conservation or bound violation (a simulator bug).
    #[error("invariant violated at cycle {cycle}: {message}")]
    Invariant {
        /// Cycle of the violation.
        cycle: u64,
        /// Which invariant, where.
        message: String,
    },
}

impl Error {
    /// Shorthand for a [`Error::Config`].
    pub fn config(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Config { path: path.into(), message: message.into() }
    }

    /// The key path this error names, if it is a config error.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::Parse { path, .. } | Error::Config { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
