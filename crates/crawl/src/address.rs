//! Which network addresses the crawler may connect to (docs/design.md, Safety).
//!
//! A public site must not be able to turn the crawler against the machine it runs on or its
//! network: a redirect, a link or a robots.txt `Sitemap:` line to `http://10.0.0.5/` or to a
//! name that resolves to `127.0.0.1` is refused unless the seed itself is on such a network or
//! the user allows it. The check is made on the resolved address, by the resolver the HTTP
//! client connects through, so a name that resolves differently later cannot slip past it;
//! URLs whose host is an address literal (which skip resolution) are checked before the
//! request.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Where connections may go.
#[derive(Debug, Clone, Default)]
pub struct AddressPolicy {
    /// Private, loopback and link-local addresses are allowed too.
    pub allow_private: bool,
    /// Addresses treated as public although they are not. Only tests set this, to play a
    /// public site on a loopback address.
    pub public_exceptions: Vec<IpAddr>,
}

/// A connection the policy refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{host} is on a private network ({address}); not connecting (--allow-private allows it)")]
pub struct PrivateAddress {
    /// The host as the URL names it.
    pub host: String,
    /// The private address it is, or resolved to.
    pub address: IpAddr,
}

impl AddressPolicy {
    /// Whether a connection to `address` is allowed.
    pub fn allows(&self, address: IpAddr) -> bool {
        self.allow_private
            || !is_private(address)
            || self.public_exceptions.contains(&canonical(address))
    }

    /// Checks a URL whose host is an address literal; names are checked when they resolve.
    pub fn check_url(&self, url: &Url) -> Result<(), PrivateAddress> {
        let address = match url.host() {
            Some(Host::Ipv4(address)) => IpAddr::V4(address),
            Some(Host::Ipv6(address)) => IpAddr::V6(address),
            Some(Host::Domain(_)) | None => return Ok(()),
        };
        if self.allows(address) {
            Ok(())
        } else {
            Err(PrivateAddress {
                host: url.host_str().unwrap_or_default().to_string(),
                address,
            })
        }
    }

    /// The policy for a crawl from `seed`: a seed on a private network (an intranet, a
    /// staging host on the LAN, a site served on this machine) allows private addresses for
    /// the whole crawl, since the user pointed there. The caller says so where it reports
    /// what the crawl covers.
    pub async fn for_seed(mut self, seed: &Url) -> AddressPolicy {
        if !self.allow_private && self.allows_private_for(seed).await {
            self.allow_private = true;
        }
        self
    }

    /// Whether a crawl from `seed` may connect to private addresses (see [`Self::for_seed`]).
    pub async fn allows_private_for(&self, seed: &Url) -> bool {
        self.allow_private || self.is_on_private_network(seed).await
    }

    /// Whether a connection to `url`'s host is allowed: an address literal is checked as it
    /// is, a name by what it resolves to now (every address must be allowed). For requests
    /// the crawler does not make itself (a browser's), which its resolver cannot guard.
    pub async fn allows_host(&self, url: &Url) -> bool {
        self.allow_private || !self.is_on_private_network(url).await
    }

    async fn is_on_private_network(&self, url: &Url) -> bool {
        if self.check_url(url).is_err() {
            return true;
        }
        let (Some(Host::Domain(host)), Some(port)) = (url.host(), url.port_or_known_default())
        else {
            return false;
        };
        match tokio::net::lookup_host((host, port)).await {
            Ok(addresses) => addresses
                .into_iter()
                .any(|address| !self.allows(address.ip())),
            Err(_) => false,
        }
    }

    /// The resolver that enforces this policy on every connection of an HTTP client.
    #[cfg(test)]
    pub(crate) fn resolver(&self) -> Arc<GuardedResolver> {
        self.resolver_trusting(&[])
    }

    /// The resolver that enforces this policy on every connection of an HTTP client, but
    /// for the `trusted` names: the proxies the user chose, which may well be on the local
    /// network (what goes through them is the proxy's to resolve).
    pub(crate) fn resolver_trusting(&self, trusted: &[String]) -> Arc<GuardedResolver> {
        Arc::new(GuardedResolver {
            policy: self.clone(),
            trusted: trusted
                .iter()
                .map(|name| name.to_ascii_lowercase())
                .collect(),
        })
    }
}

/// Resolves names with the system resolver and keeps only the addresses the policy allows.
#[derive(Debug)]
pub(crate) struct GuardedResolver {
    policy: AddressPolicy,
    /// Names resolved without the policy (lower case).
    trusted: Vec<String>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_string();
        let trusted = self.trusted.contains(&host.to_ascii_lowercase());
        Box::pin(async move {
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if trusted {
                let addresses: Addrs = Box::new(resolved.into_iter());
                return Ok(addresses);
            }
            let refused = resolved
                .iter()
                .find(|address| !policy.allows(address.ip()))
                .copied();
            if let Some(refused) = refused {
                // One private address among public ones is refused too: the client could
                // pick it, and a name pointing there is a rebinding attempt.
                return Err(Box::new(PrivateAddress {
                    host,
                    address: refused.ip(),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            let addresses: Addrs = Box::new(resolved.into_iter());
            Ok(addresses)
        })
    }
}

/// An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is its IPv4 address.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        IpAddr::V4(_) => address,
    }
}

/// Private (RFC 1918, RFC 4193), loopback, link-local, shared (RFC 6598), unspecified,
/// broadcast and multicast addresses: none is a public web server.
pub(crate) fn is_private(address: IpAddr) -> bool {
    match canonical(address) {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => is_private_v6(v6),
    }
}

fn is_private_v4(address: Ipv4Addr) -> bool {
    let [first, second, ..] = address.octets();
    address.is_private()
        || address.is_loopback()
        || address.is_link_local()
        || address.is_unspecified()
        || address.is_broadcast()
        || address.is_multicast()
        // 0.0.0.0/8 "this network", 100.64.0.0/10 carrier-grade NAT.
        || first == 0
        || (first == 100 && (64..128).contains(&second))
}

fn is_private_v6(address: Ipv6Addr) -> bool {
    let first = address.segments()[0];
    address.is_loopback()
        || address.is_unspecified()
        || address.is_multicast()
        // fc00::/7 unique local, fe80::/10 link-local.
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        // ::/96 IPv4-compatible (deprecated), carrying an IPv4 address in its low bits.
        || address.to_ipv4().is_some_and(|v4| address.segments()[..6] == [0; 6] && is_private_v4(v4))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(text: &str) -> IpAddr {
        text.parse()
            .unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn private_loopback_and_link_local_ranges_are_private() {
        for text in [
            "10.0.0.1",
            "10.255.255.255",
            "172.16.0.1",
            "172.31.255.254",
            "192.168.1.1",
            "127.0.0.1",
            "127.1.2.3",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::127.0.0.1",
        ] {
            assert!(is_private(address(text)), "{text} should be private");
        }
    }

    #[test]
    fn public_addresses_are_not_private() {
        for text in [
            "93.184.216.34",
            "8.8.8.8",
            "172.15.255.255",
            "172.32.0.1",
            "192.167.1.1",
            "100.128.0.1",
            "2606:2800:220:1:248:1893:25c8:1946",
            "::ffff:93.184.216.34",
        ] {
            assert!(!is_private(address(text)), "{text} should be public");
        }
    }

    #[test]
    fn address_literals_in_urls_are_checked_in_every_spelling() {
        let policy = AddressPolicy::default();
        for text in [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://[::1]:8080/",
            "http://[::ffff:192.168.0.1]/",
            "http://10.1.1.1/",
        ] {
            let url = Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"));
            assert!(policy.check_url(&url).is_err(), "{text} should be refused");
        }
        let public = Url::parse("http://93.184.216.34/").unwrap_or_else(|error| panic!("{error}"));
        assert!(policy.check_url(&public).is_ok());
        let name = Url::parse("http://localhost/").unwrap_or_else(|error| panic!("{error}"));
        assert!(
            policy.check_url(&name).is_ok(),
            "names are checked when resolved"
        );
    }

    #[test]
    fn allow_private_and_exceptions_open_the_door() {
        let loopback = address("127.0.0.2");
        let allowed = AddressPolicy {
            allow_private: true,
            public_exceptions: Vec::new(),
        };
        assert!(allowed.allows(loopback));
        let excepted = AddressPolicy {
            allow_private: false,
            public_exceptions: vec![loopback],
        };
        assert!(excepted.allows(loopback));
        assert!(!excepted.allows(address("127.0.0.1")));
    }

    #[tokio::test]
    async fn names_that_resolve_to_private_addresses_are_refused_at_resolution() {
        let resolver = AddressPolicy::default().resolver();
        let name: Name = "localhost"
            .parse()
            .unwrap_or_else(|_| panic!("a valid name"));
        let refused = match resolver.resolve(name).await {
            Ok(_) => panic!("localhost resolved although it is loopback"),
            Err(error) => error.to_string(),
        };
        assert!(refused.contains("private network"), "{refused}");
    }

    #[tokio::test]
    async fn a_proxy_the_user_chose_resolves_wherever_it_is() {
        let resolver = AddressPolicy::default().resolver_trusting(&["LocalHost".to_string()]);
        let name: Name = "localhost"
            .parse()
            .unwrap_or_else(|_| panic!("a valid name"));
        assert!(resolver.resolve(name).await.is_ok());
    }

    #[tokio::test]
    async fn a_seed_on_a_private_network_allows_private_addresses() {
        let seed = Url::parse("http://localhost:8080/").unwrap_or_else(|error| panic!("{error}"));
        assert!(AddressPolicy::default().for_seed(&seed).await.allow_private);
        let excepted = AddressPolicy {
            allow_private: false,
            public_exceptions: vec![address("127.0.0.2")],
        };
        let seed = Url::parse("http://127.0.0.2:8080/").unwrap_or_else(|error| panic!("{error}"));
        assert!(!excepted.for_seed(&seed).await.allow_private);
    }
}
