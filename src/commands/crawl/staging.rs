//! What the summary says about staging and protected sites: the host mappings, what was sent
//! to the site (by name, never a value), the proxy, TLS checks turned off, and why pages whose
//! canonical names another host are not listed.

use std::io::Write;

use sitemapper_crawl::{HostMap, shown_proxy};
use sitemapper_site::canonicals_elsewhere;
use sitemapper_store::{RunId, Store};
use url::Url;

use crate::settings::{CrawlSettings, environment_proxies};

/// How the crawl reached the site: mapped hosts, what it sent (names only), the proxy, and
/// TLS checks off.
pub(super) fn print_access(out: &mut impl Write, settings: &CrawlSettings) -> std::io::Result<()> {
    let crawl = &settings.site.crawl;
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
