//! What the summary says about staging and protected sites: the host mappings, what was sent
//! to the site (by name, never a value), the proxy, TLS checks turned off, and why pages whose
//! canonical names another host are not listed.

use std::collections::BTreeMap;
use std::io::Write;

use sitemapper_crawl::{HostMap, shown_proxy, suggested_mapping};
use sitemapper_store::{RunId, Store, StoreError};
use url::Url;

use crate::settings::{CrawlSettings, environment_proxies};

/// Pages whose canonical names one other host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CanonicalsElsewhere {
    /// How many pages.
    pub pages: u64,
    /// One of their canonicals (the first in URL order), for the other host's origin.
    pub example: Url,
    /// The crawl's scope, which the canonicals leave.
    pub scope_root: Url,
}

impl CanonicalsElsewhere {
    /// The explanation, and with no host mapped, the mapping that would list them.
    pub(crate) fn explain(&self, host_map: &HostMap) -> String {
        let host = self.example.host_str().unwrap_or_default();
        let pages = match self.pages {
            1 => "1 page declares".to_string(),
            many => format!("{many} pages declare"),
        };
        let mut text = format!("{pages} a canonical on {host}, another host: not listed");
        if host_map.is_empty() {
            text.push_str(&format!(
                "; if this is a copy of {host}, use --map-host {}",
                suggested_mapping(&self.scope_root, &self.example)
            ));
        }
        text
    }
}

/// The pages of `run` whose canonical names another host than the scope's, by host, most
/// pages first.
pub(crate) fn canonicals_elsewhere(
    store: &Store,
    run: RunId,
    scope_root: &Url,
) -> Result<Vec<CanonicalsElsewhere>, StoreError> {
    let mut by_origin: BTreeMap<String, CanonicalsElsewhere> = BTreeMap::new();
    store.for_each_out_of_scope_canonical(run, |target| -> Result<(), StoreError> {
        let Ok(target) = Url::parse(target) else {
            return Ok(());
        };
        if target.host_str() == scope_root.host_str() {
            // The same host, outside the seed's directory: not a copy of another site.
            return Ok(());
        }
        let found = by_origin
            .entry(target.origin().ascii_serialization())
            .or_insert_with(|| CanonicalsElsewhere {
                pages: 0,
                example: target.clone(),
                scope_root: scope_root.clone(),
            });
        found.pages += 1;
        if target < found.example {
            found.example = target;
        }
        Ok(())
    })?;
    let mut found: Vec<CanonicalsElsewhere> = by_origin.into_values().collect();
    found.sort_by(|a, b| {
        b.pages
            .cmp(&a.pages)
            .then_with(|| a.example.cmp(&b.example))
    });
    Ok(found)
}

/// How the crawl reached the site: mapped hosts, what it sent (names only), the proxy, and
/// TLS checks off.
pub(super) fn print_access(out: &mut impl Write, settings: &CrawlSettings) -> std::io::Result<()> {
    let crawl = &settings.crawl;
    for mapping in crawl.host_map.describe() {
        writeln!(
            out,
            "Host mapped (--map-host): {mapping}: crawled on the first, the sitemaps name the second."
        )?;
    }
    let access = &crawl.access;
    if !access.is_empty() {
        let mut sent = Vec::new();
        if access.basic_auth.is_some() {
            sent.push("basic authentication".to_string());
        }
        for header in &access.headers {
            sent.push(format!("the header {}", header.name()));
        }
        match access.cookies.len() {
            0 => {}
            1 => sent.push("1 cookie".to_string()),
            many => sent.push(format!("{many} cookies")),
        }
        writeln!(out, "Sent to the site's origins only: {}.", sent.join(", "))?;
    }
    if let Some(proxy) = &crawl.network.proxy {
        writeln!(out, "Through the proxy {} (--proxy).", shown_proxy(proxy))?;
    } else {
        let proxies: Vec<String> = environment_proxies()
            .iter()
            .map(|(name, url)| format!("{name}={}", shown_proxy(url)))
            .collect();
        if !proxies.is_empty() {
            writeln!(out, "Proxies from the environment: {}.", proxies.join(", "))?;
        }
    }
    if crawl.network.accept_invalid_certificates {
        writeln!(
            out,
            "TLS certificates were NOT verified (--insecure): what the site answered may not be what it served."
        )?;
    }
    Ok(())
}

/// Why pages whose canonical names another host are not listed.
pub(super) fn print_canonicals_elsewhere(
    out: &mut impl Write,
    store: &Store,
    run: RunId,
    scope_root: &Url,
    host_map: &HostMap,
) -> anyhow::Result<()> {
    for elsewhere in canonicals_elsewhere(store, run, scope_root)? {
        writeln!(out, "{}.", elsewhere.explain(host_map))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn the_explanation_suggests_a_mapping_only_when_none_is_given() {
        let elsewhere = CanonicalsElsewhere {
            pages: 37,
            example: url("https://www.example.com/a"),
            scope_root: url("https://staging.example.com/"),
        };
        assert_eq!(
            elsewhere.explain(&HostMap::default()),
            "37 pages declare a canonical on www.example.com, another host: not listed; if this is a copy of www.example.com, use --map-host staging.example.com=www.example.com"
        );
        let mut mapped = HostMap::default();
        mapped
            .add("staging.example.com=shop.example.com")
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            elsewhere.explain(&mapped),
            "37 pages declare a canonical on www.example.com, another host: not listed"
        );
    }
}
