//! What the summary says about staging and protected sites: the host mappings, what was sent
//! to the site (by name, never a value), the proxy, and TLS checks turned off. (Why pages
//! whose canonical names another host are not listed is the site crate's `CanonicalsElsewhere`.)

use std::io::Write;

use sitemapper_crawl::{environment_proxies, shown_proxy};

use crate::counted::count;
use crate::settings::SiteSettings;

/// How the crawl reached the site: mapped hosts, what it sent (names only), the proxy, and
/// TLS checks off.
pub(super) fn print_access(out: &mut impl Write, settings: &SiteSettings) -> std::io::Result<()> {
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
        if !access.cookies.is_empty() {
            sent.push(count(access.cookies.len(), "cookie"));
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
