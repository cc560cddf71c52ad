//! When the next request to a server may start: one slot a server, shared by every crawl that
//! holds the same board, so that the sites of a fleet on one server share its pace (`--delay`,
//! or robots.txt `Crawl-delay`). A server is the address its host resolves to: hundreds of
//! sites of a hosting company on one address are one server, whatever their names and ports.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;
use tokio::sync::Mutex;
use tokio::time::Instant;
use url::{Host, Url};

/// How long a host's address is kept before it is resolved again: a fleet's worker runs for
/// weeks, and a site may move.
const ADDRESS_TTL: Duration = Duration::from_secs(10 * 60);

/// The longest a host's name may take to resolve before its host name stands for its server.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// The next free slot of each server. A crawl has a board of its own unless it is given one
/// ([`crate::Crawler::with_pace_board`]).
#[derive(Debug, Default)]
pub struct PaceBoard {
    slots: DashMap<ServerKey, Arc<Mutex<Option<Instant>>>>,
    /// Each host's server, and when it was found.
    servers: DashMap<String, (Instant, ServerKey)>,
    by: ServersBy,
}

/// What makes two hosts one server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ServersBy {
    /// The address their names resolve to: the sites of a shared host are one server.
    #[default]
    Address,
    /// Their names: for sites behind a CDN, whose addresses unrelated sites share.
    Host,
}

impl PaceBoard {
    /// A board whose servers are told apart `by` their address or their host name.
    pub fn new(by: ServersBy) -> PaceBoard {
        PaceBoard {
            by,
            ..PaceBoard::default()
        }
    }

    /// The slot of `url`'s server.
    pub(crate) async fn slot(&self, url: &Url) -> Arc<Mutex<Option<Instant>>> {
        let key = self.server_of(url).await;
        if let Some(slot) = self.slots.get(&key) {
            return Arc::clone(&slot);
        }
        Arc::clone(&self.slots.entry(key).or_default())
    }

    /// The server of a site whose seed is `seed`, as text that tells servers apart: the
    /// seed itself when it is no URL.
    pub async fn server_of_seed(&self, seed: &str) -> String {
        match Url::parse(seed) {
            Ok(url) => self.server_of(&url).await.to_string(),
            Err(_) => seed.to_string(),
        }
    }

    /// The server of `url`'s host: its name, or (by address) the address it resolves to,
    /// resolved once every ten minutes.
    pub async fn server_of(&self, url: &Url) -> ServerKey {
        let host = url.host_str().unwrap_or_default();
        if self.by == ServersBy::Host {
            return ServerKey::Host(host.to_ascii_lowercase());
        }
        if let Some(known) = self.servers.get(host)
            && known.0.elapsed() < ADDRESS_TTL
        {
            return known.1.clone();
        }
        let key = ServerKey::resolve(url).await;
        self.servers
            .insert(host.to_string(), (Instant::now(), key.clone()));
        key
    }
}

/// What one server's politeness is kept by: the address its host resolves to (the lowest,
/// when it has several, so that every process names it alike), or, when the name does not
/// resolve, the host name itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServerKey {
    /// The server's address.
    Address(IpAddr),
    /// A host whose name did not resolve.
    Host(String),
}

impl ServerKey {
    /// The server of `url`'s host: its address literal, or the lowest address its name
    /// resolves to (in five seconds at most).
    pub async fn resolve(url: &Url) -> ServerKey {
        let name = match url.host() {
            Some(Host::Ipv4(address)) => return ServerKey::Address(IpAddr::V4(address)),
            Some(Host::Ipv6(address)) => return ServerKey::Address(IpAddr::V6(address)),
            Some(Host::Domain(name)) => name.to_ascii_lowercase(),
            None => return ServerKey::Host(String::new()),
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let lookup = tokio::net::lookup_host((name.as_str(), port));
        let lowest = match tokio::time::timeout(RESOLVE_TIMEOUT, lookup).await {
            Ok(Ok(addresses)) => addresses.map(|address| address.ip()).min(),
            _ => None,
        };
        lowest.map_or(ServerKey::Host(name), ServerKey::Address)
    }
}

/// A URL's host and port (`example.com:443`): how the links to other sites are grouped to be
/// checked one host at a time.
pub fn host_key(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or_default()
    )
}

impl std::fmt::Display for ServerKey {
    /// `192.0.2.7`, `2001:db8::7`, or `host:example.com`: what a fleet's queue records.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerKey::Address(address) => write!(formatter, "{address}"),
            ServerKey::Host(name) => write!(formatter, "host:{name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[tokio::test]
    async fn sites_on_one_address_share_a_slot_whatever_their_names_and_ports() {
        let board = PaceBoard::default();
        let first = board.slot(&url("http://127.0.0.1:8001/")).await;
        let second = board.slot(&url("http://127.0.0.1:8002/blog/")).await;
        let named = board.slot(&url("http://localhost:8003/")).await;
        let other = board.slot(&url("http://127.0.0.2:8001/")).await;
        assert!(Arc::ptr_eq(&first, &second));
        assert!(!Arc::ptr_eq(&first, &other));
        // `localhost` resolves to ::1 or 127.0.0.1: the lowest, ::1 sorts after IPv4.
        let expected = board.server_of(&url("http://localhost/")).await;
        assert!(matches!(expected, ServerKey::Address(_)), "{expected}");
        if expected == ServerKey::Address(IpAddr::from([127, 0, 0, 1])) {
            assert!(Arc::ptr_eq(&first, &named));
        }
    }

    #[tokio::test]
    async fn by_host_two_names_of_one_address_are_two_servers() {
        let board = PaceBoard::new(ServersBy::Host);
        let first = board.slot(&url("http://127.0.0.1:8001/")).await;
        let second = board.slot(&url("http://127.0.0.1:8002/")).await;
        let named = board.slot(&url("http://localhost:8001/")).await;
        assert!(Arc::ptr_eq(&first, &second));
        assert!(!Arc::ptr_eq(&first, &named));
        let key = board.server_of(&url("http://Shop.Example/")).await;
        assert_eq!(key.to_string(), "host:shop.example");
    }

    #[tokio::test]
    async fn a_name_that_does_not_resolve_is_its_own_server() {
        let key = ServerKey::resolve(&url("http://no-such-host.invalid/")).await;
        assert_eq!(key, ServerKey::Host("no-such-host.invalid".to_string()));
        assert_eq!(key.to_string(), "host:no-such-host.invalid");
        let address = ServerKey::resolve(&url("http://[::1]:8080/")).await;
        assert_eq!(address.to_string(), "::1");
    }
}
