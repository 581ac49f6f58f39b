//! Connections per client address: one client (one IP address) holds at
//! most `BGREF_MAX_CONNECTIONS_PER_PEER` of the server's connections, so it
//! cannot take every slot of `BGREF_MAX_CONNECTIONS` from the others.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// How often a refusal is logged at `warn` (the others at `debug`): a
/// client retrying as fast as it can does not flood the log.
const WARN_EVERY: Duration = Duration::from_secs(10);

/// The open connections of each client address, up to `cap` each.
#[derive(Debug, Clone)]
pub struct PeerSlots {
    inner: Arc<Mutex<Counts>>,
    cap: usize,
}

#[derive(Debug, Default)]
struct Counts {
    open: HashMap<IpAddr, usize>,
    last_warned: Option<Instant>,
    refused_since_warned: u64,
}

impl PeerSlots {
    /// At most `cap` connections per address.
    pub fn new(cap: usize) -> PeerSlots {
        PeerSlots {
            inner: Arc::new(Mutex::new(Counts::default())),
            cap,
        }
    }

    /// A slot for a connection from `ip`, held until the guard drops;
    /// `None` when `ip` already holds `cap` connections (the refusal is
    /// logged).
    pub fn take(&self, ip: IpAddr) -> Option<PeerSlot> {
        // An IPv4 client on a dual-stack socket is one client either way.
        let ip = ip.to_canonical();
        let mut counts = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let open = counts.open.entry(ip).or_insert(0);
        if *open >= self.cap {
            counts.refused(ip, self.cap);
            return None;
        }
        *open += 1;
        Some(PeerSlot {
            slots: self.inner.clone(),
            ip,
        })
    }

    /// Connections open from `ip` now.
    #[cfg(test)]
    fn open(&self, ip: IpAddr) -> usize {
        let counts = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        counts.open.get(&ip).copied().unwrap_or(0)
    }
}

impl Counts {
    fn refused(&mut self, ip: IpAddr, cap: usize) {
        let now = Instant::now();
        self.refused_since_warned += 1;
        if self.last_warned.is_none_or(|at| now >= at + WARN_EVERY) {
            tracing::warn!(
                peer = %ip,
                cap,
                refused = self.refused_since_warned,
                "connection refused: its client address holds BGREF_MAX_CONNECTIONS_PER_PEER \
                 connections (refusals counted since the last such line)"
            );
            self.last_warned = Some(now);
            self.refused_since_warned = 0;
        } else {
            tracing::debug!(peer = %ip, cap, "connection refused: per-peer cap");
        }
    }
}

/// One connection's slot: released when dropped (the connection closed).
#[derive(Debug)]
pub struct PeerSlot {
    slots: Arc<Mutex<Counts>>,
    ip: IpAddr,
}

impl Drop for PeerSlot {
    fn drop(&mut self) {
        let mut counts = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = counts.open.get_mut(&self.ip) {
            *open -= 1;
            if *open == 0 {
                counts.open.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    use super::PeerSlots;

    #[test]
    fn each_address_has_its_own_cap_and_closing_frees_a_slot() {
        let slots = PeerSlots::new(2);
        let one = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
        let two = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
        let a = slots.take(one).unwrap();
        let _b = slots.take(one).unwrap();
        assert!(
            slots.take(one).is_none(),
            "a third connection from one address"
        );
        // The same address as an IPv4-mapped IPv6 one is the same client.
        assert!(
            slots
                .take(IpAddr::V6(Ipv4Addr::new(127, 0, 0, 1).to_ipv6_mapped()))
                .is_none()
        );
        let _c = slots.take(two).expect("another address is not held up");
        drop(a);
        assert_eq!(slots.open(one), 1);
        let _d = slots.take(one).expect("a closed connection frees its slot");
        let v6 = IpAddr::V6(Ipv6Addr::LOCALHOST);
        drop(slots.take(v6));
        assert_eq!(
            slots.open(v6),
            0,
            "an address with no connection is forgotten"
        );
    }
}
