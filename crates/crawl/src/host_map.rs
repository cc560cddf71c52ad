//! `--map-host STAGING=PRODUCTION`: a staging copy crawled as the production site it copies.
//!
//! The crawl runs on the staging host, and every URL it finds that names the production host
//! (links, canonicals, hreflang alternates, redirects) is taken for the staging host's, so that
//! a copy whose canonicals say `https://www.example.com/...` is crawled whole. Inside the crawl
//! (scope, robots.txt, deduplication, the crawl database, the audit) every URL is the staging
//! one, the URL actually requested; the sitemaps, and what announces them, name the production
//! URLs ([`HostMap::to_published`]).
//!
//! Each side is a host (`staging.example.com`: any scheme, the default port), a host and port
//! (`localhost:8080`), or an origin (`http://localhost:8080`: that scheme only). A URL mapped
//! to a side without a scheme keeps its own.

use std::borrow::Cow;
use std::fmt;

use url::{Host, Url};

use crate::address::AddressPolicy;
use crate::error::InvalidSetting;

/// One side of a mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostSide {
    /// `None`: any scheme, kept when a URL is mapped here.
    scheme: Option<String>,
    host: String,
    /// `None`: the default port of the URL's scheme.
    port: Option<u16>,
}

impl HostSide {
    fn parse(text: &str) -> Result<HostSide, InvalidSetting> {
        let text = text.trim();
        let given_scheme = text.contains("://");
        let url = if given_scheme {
            Url::parse(text)
        } else {
            Url::parse(&format!("http://{text}"))
        }
        .map_err(|error| InvalidSetting::new(format!("{text:?} is not a host ({error})")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(InvalidSetting::new(format!(
                "{text:?}: only http and https sites are mapped"
            )));
        }
        let host = url.host_str().unwrap_or_default();
        if host.is_empty()
            || url.path() != "/"
            || url.query().is_some()
            || url.fragment().is_some()
            || !url.username().is_empty()
            || url.password().is_some()
            || (!given_scheme && text.ends_with('/'))
        {
            return Err(InvalidSetting::new(format!(
                "{text:?} is not a host, a host:port or an origin such as http://localhost:8080"
            )));
        }
        let scheme = given_scheme.then(|| url.scheme().to_string());
        // Without a scheme, a port equal to http's default was dropped by the parser: the
        // side names port 80 only if it said so.
        let port = url
            .port()
            .or_else(|| (!given_scheme && text.ends_with(":80")).then_some(80));
        Ok(HostSide {
            scheme,
            host: host.to_string(),
            port,
        })
    }

    fn matches(&self, url: &Url) -> bool {
        url.host_str() == Some(self.host.as_str())
            && self
                .scheme
                .as_deref()
                .is_none_or(|scheme| scheme == url.scheme())
            && url.port_or_known_default() == self.port.or_else(|| default_port(url.scheme()))
    }

    /// `url` moved onto this side: its host, and its scheme and port where this side names
    /// them.
    fn place(&self, url: &Url) -> Option<Url> {
        let mut placed = url.clone();
        if let Some(scheme) = &self.scheme {
            placed.set_scheme(scheme).ok()?;
        }
        placed.set_host(Some(&self.host)).ok()?;
        let port = self
            .port
            .filter(|port| Some(*port) != default_port(placed.scheme()));
        placed.set_port(port).ok()?;
        Some(placed)
    }
}

impl fmt::Display for HostSide {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(scheme) = &self.scheme {
            write!(formatter, "{scheme}://")?;
        }
        formatter.write_str(&self.host)?;
        if let Some(port) = self.port {
            write!(formatter, ":{port}")?;
        }
        Ok(())
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// One `--map-host STAGING=PRODUCTION`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPair {
    crawled: HostSide,
    published: HostSide,
}

/// The host mappings of a crawl; empty by default, when every URL is its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostMap {
    pairs: Vec<HostPair>,
}

impl HostMap {
    /// Parses `STAGING=PRODUCTION` and adds it. Two mappings of one host are refused.
    pub fn add(&mut self, text: &str) -> Result<(), InvalidSetting> {
        let Some((crawled, published)) = text.split_once('=') else {
            return Err(InvalidSetting::new(
                "expected STAGING=PRODUCTION, such as staging.example.com=www.example.com",
            ));
        };
        let pair = HostPair {
            crawled: HostSide::parse(crawled)?,
            published: HostSide::parse(published)?,
        };
        if pair.crawled.host == pair.published.host && pair.crawled.port == pair.published.port {
            return Err(InvalidSetting::new(format!(
                "{text:?} maps a host onto itself"
            )));
        }
        let taken = self.pairs.iter().any(|other| {
            other.crawled.host == pair.crawled.host || other.published.host == pair.published.host
        });
        if taken {
            return Err(InvalidSetting::new(format!(
                "{text:?}: a host is mapped twice"
            )));
        }
        self.pairs.push(pair);
        Ok(())
    }

    /// Whether no host is mapped.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// `url` as the crawl knows it: on the staging host when it names the production host.
    pub fn to_crawled(&self, url: &Url) -> Option<Url> {
        self.pairs
            .iter()
            .find(|pair| pair.published.matches(url))
            .and_then(|pair| pair.crawled.place(url))
    }

    /// `url` as the sitemaps publish it: on the production host when the crawl found it on
    /// the staging host; any other URL as it is.
    pub fn to_published(&self, url: &Url) -> Url {
        self.pairs
            .iter()
            .find(|pair| pair.crawled.matches(url))
            .and_then(|pair| pair.published.place(url))
            .unwrap_or_else(|| url.clone())
    }

    /// [`Self::to_published`] of a URL given as text; text that is not a URL stays as it is.
    pub fn publish_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.is_empty() {
            return Cow::Borrowed(text);
        }
        match Url::parse(text) {
            Ok(url) => Cow::Owned(self.to_published(&url).into()),
            Err(_) => Cow::Borrowed(text),
        }
    }

    /// `root` as the sitemaps publish it, when search engines could not reach it there: on
    /// `localhost` or another name of this machine or its network (a name without a dot;
    /// `.localhost`, RFC 6761; `.local`, RFC 6762; `.home.arpa`, RFC 8375; `.internal`), or on
    /// an address `addresses` takes for private without `--allow-private`. A root published
    /// as crawled is also private when the crawl found its name resolving to a private
    /// address (`resolves_private`); a mapped one is judged by its name alone.
    pub fn private_published_root(
        &self,
        root: &Url,
        addresses: &AddressPolicy,
        resolves_private: bool,
    ) -> Option<Url> {
        let published = self.to_published(root);
        let unmapped = published == *root;
        let strict = AddressPolicy {
            allow_private: false,
            public_exceptions: addresses.public_exceptions.clone(),
        };
        let private = is_local_name(&published)
            || strict.check_url(&published).is_err()
            || (unmapped && resolves_private);
        private.then_some(published)
    }

    /// The mappings in words, one per item: `staging.example.com -> www.example.com`.
    pub fn describe(&self) -> Vec<String> {
        self.pairs
            .iter()
            .map(|pair| format!("{} -> {}", pair.crawled, pair.published))
            .collect()
    }
}

/// Whether `url`'s host is a name only this machine or its network resolves (see
/// [`HostMap::private_published_root`]).
fn is_local_name(url: &Url) -> bool {
    let Some(Host::Domain(name)) = url.host() else {
        return false;
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    !name.contains('.')
        || [".localhost", ".local", ".home.arpa", ".internal"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// The `--map-host` value that maps the origin of `crawled` onto the origin of `published`:
/// bare hosts when the two share a scheme on default ports, origins otherwise.
pub fn suggested_mapping(crawled: &Url, published: &Url) -> String {
    let side = |url: &Url, with_scheme: bool| {
        let mut text = String::new();
        if with_scheme {
            text.push_str(url.scheme());
            text.push_str("://");
        }
        text.push_str(url.host_str().unwrap_or_default());
        if let Some(port) = url.port() {
            text.push_str(&format!(":{port}"));
        }
        text
    };
    let plain = crawled.scheme() == published.scheme()
        && crawled.port().is_none()
        && published.port().is_none();
    format!("{}={}", side(crawled, !plain), side(published, !plain))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn map(texts: &[&str]) -> HostMap {
        let mut map = HostMap::default();
        for text in texts {
            map.add(text)
                .unwrap_or_else(|error| panic!("{text}: {error}"));
        }
        map
    }

    #[test]
    fn bare_hosts_keep_the_scheme_and_use_default_ports() {
        let map = map(&["staging.example.com=www.example.com"]);
        for (published, crawled) in [
            (
                "https://www.example.com/a?b=c",
                "https://staging.example.com/a?b=c",
            ),
            ("http://www.example.com/", "http://staging.example.com/"),
        ] {
            assert_eq!(map.to_crawled(&url(published)), Some(url(crawled)));
            assert_eq!(map.to_published(&url(crawled)), url(published));
        }
        assert_eq!(map.to_crawled(&url("https://www.example.com:8443/")), None);
        assert_eq!(map.to_crawled(&url("https://example.com/")), None);
        let other = url("https://cdn.example/x.js");
        assert_eq!(map.to_published(&other), other);
    }

    #[test]
    fn origins_and_ports_map_exactly() {
        let map = map(&["http://127.0.0.1:8080=https://www.example.com"]);
        assert_eq!(
            map.to_crawled(&url("https://www.example.com/about")),
            Some(url("http://127.0.0.1:8080/about"))
        );
        assert_eq!(map.to_crawled(&url("http://www.example.com/about")), None);
        assert_eq!(
            map.to_published(&url("http://127.0.0.1:8080/about")),
            url("https://www.example.com/about")
        );
        let ports = self::map(&["localhost:8080=www.example.com"]);
        assert_eq!(
            ports.to_crawled(&url("https://www.example.com/x")),
            Some(url("https://localhost:8080/x"))
        );
        assert_eq!(
            ports.to_published(&url("http://localhost:8080/x")),
            url("http://www.example.com/x")
        );
    }

    #[test]
    fn bad_mappings_are_refused() {
        for text in [
            "staging.example.com",
            "=www.example.com",
            "staging.example.com=",
            "ftp://a=b.example",
            "a.example/path=b.example",
            "a.example=b.example/",
            "user@a.example=b.example",
            "a.example=a.example",
        ] {
            assert!(HostMap::default().add(text).is_err(), "{text} was accepted");
        }
        let mut twice = map(&["a.example=b.example"]);
        assert!(twice.add("a.example=c.example").is_err());
    }

    #[test]
    fn a_root_on_this_machine_or_a_private_network_is_private_unless_mapped_to_a_public_host() {
        let public = AddressPolicy::default();
        let cases = [
            ("http://localhost:8000/", false, true),
            ("http://LocalHost./", false, true),
            ("http://app.localhost:5173/docs/", false, true),
            ("http://intranet/", false, true),
            ("http://printer.local/", false, true),
            ("http://nas.home.arpa/", false, true),
            ("http://wiki.corp.internal/", false, true),
            ("http://127.0.0.1:8000/", false, true),
            ("http://127.8.9.10/", false, true),
            ("http://[::1]:8080/", false, true),
            ("http://10.1.2.3/", false, true),
            ("http://172.16.0.1/", false, true),
            ("http://172.31.255.255/", false, true),
            ("http://192.168.1.20/", false, true),
            ("http://169.254.1.1/", false, true),
            ("http://[fe80::1]/", false, true),
            ("http://[fd00::1]/", false, true),
            // A public name that the crawl found resolving to a private address.
            ("https://staging.example.com/", true, true),
            ("https://www.example.com/", false, false),
            ("https://172.32.0.1/", false, false),
            ("https://93.184.215.14/", false, false),
            ("https://localhost.example.com/", false, false),
        ];
        for (root, resolves_private, private) in cases {
            assert_eq!(
                HostMap::default()
                    .private_published_root(&url(root), &public, resolves_private)
                    .is_some(),
                private,
                "{root}"
            );
        }
        let mapped = map(&["http://localhost:8000=https://www.example.com"]);
        assert_eq!(
            mapped.private_published_root(&url("http://localhost:8000/"), &public, true),
            None
        );
        let still_local = map(&["localhost:8000=127.0.0.1:9000"]);
        assert_eq!(
            still_local.private_published_root(&url("http://localhost:8000/"), &public, true),
            Some(url("http://127.0.0.1:9000/"))
        );
        // The addresses the tests play public sites on.
        let playing = AddressPolicy {
            allow_private: false,
            public_exceptions: vec![
                "127.0.0.1"
                    .parse()
                    .unwrap_or_else(|error| panic!("{error}")),
            ],
        };
        assert_eq!(
            HostMap::default().private_published_root(
                &url("http://127.0.0.1:8000/"),
                &playing,
                false
            ),
            None
        );
    }

    #[test]
    fn suggestions_name_origins_only_when_they_must() {
        assert_eq!(
            suggested_mapping(
                &url("https://staging.example.com/"),
                &url("https://www.example.com/x")
            ),
            "staging.example.com=www.example.com"
        );
        assert_eq!(
            suggested_mapping(
                &url("http://127.0.0.1:8080/"),
                &url("https://www.example.com/x")
            ),
            "http://127.0.0.1:8080=https://www.example.com"
        );
        let suggested = suggested_mapping(
            &url("http://127.0.0.1:8080/"),
            &url("https://www.example.com/x"),
        );
        assert!(
            map(&[suggested.as_str()])
                .to_crawled(&url("https://www.example.com/y"))
                .is_some()
        );
    }
}
