//! Ejection pacing: a processor (ejection) port that delivers fewer flits per cycle than
//! a link carries, as a NIC slower than its link does (`router.eject_rate`). Each flit
//! it sends holds the port for `1 / eject_rate` cycles; a busy port delivers exactly
//! `eject_rate` flits per cycle on average, and an idle port saves up less than one
//! cycle. Time is kept in 1/65,536 of a cycle, so the pacing is exact integer arithmetic
//! (the same on every machine). The SeaStar's NIC takes about 2 of a 4.8 GB/s link
//! (AbtsWeisser07, Eq. 14: 0.42); a Myrinet pair reaches 1,090 of its link's 1,192 MiB/s
//! (GeoffrayHoefler08, section 5.3: 0.914).

use crate::error::{Error, Result};

/// `router.eject_rate`'s default: the link rate (no pacing).
pub(crate) fn link_rate() -> f64 {
    1.0
}

/// Is `r` the link rate (left out of written configs)?
pub(crate) fn is_link_rate(r: &f64) -> bool {
    *r == 1.0
}

/// Range check of `router.eject_rate` (`path` is "router").
pub(crate) fn validate(path: &str, rate: f64) -> Result<()> {
    if !(0.01..=1.0).contains(&rate) {
        return Err(Error::config(
            format!("{path}.eject_rate"),
            format!("{rate} is out of range: the flits per cycle a processor port delivers must be 0.01..=1 (1 = the link rate)"),
        ));
    }
    Ok(())
}

/// The cycles each ejected flit holds its port, in 1/65,536 cycle (0: the link rate).
pub(crate) fn interval(rate: f64) -> u64 {
    if rate >= 1.0 {
        0
    } else {
        (65536.0 / rate).round() as u64
    }
}

/// The pacing state of every processor port of a network's routers.
#[derive(Clone, Debug, Default)]
pub(crate) struct EjectPacing {
    /// Cycles each flit holds its port, in 1/65,536 cycle (0: not paced).
    interval: u64,
    /// Per `(router, port)` when paced (else empty): the time, in 1/65,536 cycle, from
    /// which the port may send its next flit.
    ready: Vec<u64>,
}

impl EjectPacing {
    /// Pacing at `rate` flits per cycle for `ports` (router, port) entries.
    pub(crate) fn new(rate: f64, ports: usize) -> Self {
        let interval = interval(rate);
        EjectPacing { interval, ready: if interval == 0 { Vec::new() } else { vec![0; ports] } }
    }

    /// Are processor ports paced at all?
    #[inline(always)]
    pub(crate) fn on(&self) -> bool {
        self.interval != 0
    }

    /// May processor port `i` (`router * ports + port`) send a flit in cycle `now`?
    /// (Only when [`EjectPacing::on`].)
    #[inline(always)]
    pub(crate) fn may_send(&self, i: usize, now: u64) -> bool {
        self.ready[i] <= now << 16
    }

    /// Processor port `i` sent a flit in cycle `now`: it is held for the interval. The
    /// fraction of a cycle carries over to the next flit, but an idle port saves up less
    /// than one cycle. (Only when [`EjectPacing::on`].)
    #[inline(always)]
    pub(crate) fn sent(&mut self, i: usize, now: u64) {
        let ready = &mut self.ready[i];
        *ready = (*ready).max((now << 16).saturating_sub(0xffff)) + self.interval;
    }

    /// Copy routers `[lo, hi)`'s ports (`ports` per router) from `other` (another
    /// partition's routers, for deadlock reports).
    pub(crate) fn copy_span_from(&mut self, other: &EjectPacing, (lo, hi): (usize, usize), ports: usize) {
        if self.on() {
            self.ready[lo * ports..hi * ports].copy_from_slice(&other.ready[lo * ports..hi * ports]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A busy port paced at 3/4 sends 3 flits in every 4 cycles, and at 1/3 one in 3.
    #[test]
    fn busy_port_delivers_the_rate() {
        for (rate, cycles, flits) in [(0.75, 400, 300), (1.0 / 3.0, 300, 100), (0.5, 100, 50)] {
            let mut p = EjectPacing::new(rate, 1);
            assert!(p.on());
            let mut sent = 0;
            for now in 0..cycles {
                if p.may_send(0, now) {
                    p.sent(0, now);
                    sent += 1;
                }
            }
            assert!((sent as i64 - flits as i64).abs() <= 1, "rate {rate}: {sent} flits in {cycles} cycles, expected {flits}");
        }
    }

    /// An idle port saves up less than one cycle: after a long pause, two flits at rate
    /// 1/2 still go two cycles apart.
    #[test]
    fn idle_port_saves_less_than_a_cycle() {
        let mut p = EjectPacing::new(0.5, 1);
        p.sent(0, 0);
        assert!(!p.may_send(0, 1) && p.may_send(0, 2));
        p.sent(0, 1000);
        assert!(!p.may_send(0, 1001), "a pause must not let two flits go back to back");
        assert!(p.may_send(0, 1002));
    }

    #[test]
    fn link_rate_is_not_paced() {
        assert!(!EjectPacing::new(1.0, 4).on());
        assert_eq!(interval(0.5), 131_072);
        assert!(validate("router", 0.0).is_err() && validate("router", 1.5).is_err() && validate("router", 0.914).is_ok());
    }
}
