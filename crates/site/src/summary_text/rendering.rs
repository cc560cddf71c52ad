//! What the summary says of rendering in the browser: why pages were rendered, what that
//! found, what failed, and what the browser was refused.

use std::collections::BTreeSet;
use std::io::Write;

use sitemapper_crawl::{Refusal, RenderMode, RenderReport, SiteDecision};
use url::Url;

use crate::counted::count;
use crate::settings::SiteSettings;

/// What rendering in the browser did, and what it could not do.
pub fn write_rendering(
    out: &mut impl Write,
    render: &RenderReport,
    settings: &SiteSettings,
) -> std::io::Result<()> {
    let tried = render.rendered + render.timed_out + render.failed;
    if tried > 0 {
        writeln!(
            out,
            "Rendered {tried} of {}: {}.",
            count(render.html_pages, "HTML page"),
            why_rendered(render)
        )?;
        writeln!(
            out,
            "  Rendering found {} that the HTML did not link to.",
            count(render.found_urls, "URL")
        )?;
    }
    if render.timed_out > 0 {
        writeln!(
            out,
            "  {} did not settle within --render-timeout {}s: read as served (render-timeout).",
            count(render.timed_out, "page"),
            settings.render.timeout.as_secs_f64()
        )?;
    }
    if render.failed > 0 {
        writeln!(
            out,
            "  {} failed to render: read as served.",
            count(render.failed, "page")
        )?;
    }
    if let Some(browser) = &render.browser
        && browser.restarts > 0
    {
        writeln!(
            out,
            "  The browser crashed and was started again {}.",
            count(browser.restarts, "time")
        )?;
    }
    print_not_rendered(out, render)?;
    print_refused(out, render)?;
    print_hash_routes(out, &render.hash_routes)
}

/// Why the pages rendered were.
fn why_rendered(render: &RenderReport) -> String {
    let probed = render.templates_probed;
    let mut why = Vec::new();
    match (render.mode, render.decision) {
        (RenderMode::Always, _) => why.push("--render always".to_string()),
        (_, SiteDecision::Renders) => {
            let builds = if render.templates_rendered == 1 {
                "builds"
            } else {
                "build"
            };
            why.push(format!(
                "{} of {} of page (pages that load the same scripts) {builds} links in JavaScript",
                render.templates_rendered,
                count(probed, "kind")
            ));
            if render.templates_learned > 0 {
                why.push(format!(
                    "{} drew the same links on every page, learned after a few renders, and the other pages of that kind were read as served",
                    match render.templates_learned {
                        1 => "that kind".to_string(),
                        learned => format!("{learned} of those kinds"),
                    }
                ));
            }
        }
        (_, SiteDecision::ReadAsServed) if probed == 1 && render.templates_confirmed == 1 => why.push(
            "one page stood for the others that load the same scripts and a second told the links its scripts draw on every page from its own; neither linked to anything the HTML does not reach, so the others were read as served".to_string(),
        ),
        (_, SiteDecision::ReadAsServed) if probed == 1 => why.push(
            "one page stood for the others that load the same scripts, and linked to nothing the HTML does not reach, so the others were read as served".to_string(),
        ),
        (_, SiteDecision::ReadAsServed) => {
            why.push(format!(
                "one page of each of {} of page (pages that load the same scripts) linked to nothing the HTML does not reach, so the others were read as served",
                count(probed, "kind")
            ));
            if render.templates_confirmed > 0 {
                why.push(format!(
                    "a second page of {} told the links its scripts draw on every page from the first's own",
                    match render.templates_confirmed {
                        1 => "one kind".to_string(),
                        confirmed => format!("{confirmed} kinds"),
                    }
                ));
            }
        }
        (_, SiteDecision::Undecided) if render.unfinished_rendered == 0 => {
            why.push("these pages looked built by JavaScript".to_string());
        }
        (_, SiteDecision::Undecided) => {}
    }
    if render.unfinished_rendered > 0 && render.mode != RenderMode::Always {
        let (it, was, itself) = match render.unfinished_rendered {
            1 => ("it", "was", "itself"),
            _ => ("they", "were", "themselves"),
        };
        why.push(format!(
            "{} showed {it} {was} unfinished (a loading text, a busy element or an empty list) and {was} rendered for {itself}",
            count(render.unfinished_rendered, "page"),
        ));
    }
    why.join("; ")
}

/// The pages that needed the browser and did not get it.
fn print_not_rendered(out: &mut impl Write, render: &RenderReport) -> std::io::Result<()> {
    if render.not_rendered == 0 {
        return Ok(());
    }
    let why = match &render.unavailable {
        Some(reason) => format!("the browser could not render ({reason})"),
        None => "no browser was found (install chromium, or pass --chrome PATH)".to_string(),
    };
    let example = render
        .first_shell
        .as_ref()
        .map(|(url, reason)| format!(", such as {url} ({reason})"))
        .unwrap_or_default();
    writeln!(
        out,
        "Not rendered: {} that needed it{example}, because {why}: the sitemap may be incomplete.",
        count(render.not_rendered, "page")
    )
}

/// What the browser was refused, and what it fetched from other hosts.
fn print_refused(out: &mut impl Write, render: &RenderReport) -> std::io::Result<()> {
    let requests = &render.requests;
    for (refusal, refused) in &requests.refused {
        writeln!(
            out,
            "  The browser was refused {}.",
            refused_requests(*refusal, *refused, requests.disallowed.first())
        )?;
    }
    if let Some(browser) = &render.browser
        && browser.not_from_a_page > 0
    {
        writeln!(
            out,
            "  The browser was refused {} no rendered page made (its own, or a page's after it was read).",
            count(browser.not_from_a_page, "request")
        )?;
    }
    if !requests.other_hosts.is_empty() {
        let total: u64 = requests.other_hosts.values().sum();
        writeln!(
            out,
            "  The browser made {} for scripts, styles and data to {} (-v lists them).",
            count(total, "request"),
            count(requests.other_hosts.len(), "other host")
        )?;
    }
    Ok(())
}

/// The routes after `#` that rendered pages link to: never a sitemap's.
fn print_hash_routes(out: &mut impl Write, routes: &BTreeSet<String>) -> std::io::Result<()> {
    if routes.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = routes.iter().take(3).map(String::as_str).collect();
    let more = if routes.len() > shown.len() {
        ", ..."
    } else {
        ""
    };
    writeln!(
        out,
        "Hash routes not listed: {} ({}{more}). What follows # never reaches the server, so a sitemap cannot name them; routes served as paths (the History API) are listed.",
        routes.len(),
        shown.join(", "),
    )
}

/// What the browser was refused `refused` times, for `refusal`, in words.
fn refused_requests(refusal: Refusal, refused: u64, disallowed: Option<&Url>) -> String {
    let requests = count(refused, "request");
    match refusal {
        Refusal::RobotsDisallowed => {
            let example = disallowed
                .map(|url| format!(", such as {url}"))
                .unwrap_or_default();
            format!("{requests} robots.txt disallows (never sent){example}")
        }
        Refusal::PrivateAddress => format!("{requests} to private networks (never sent)"),
        Refusal::NotHttp => format!("{requests} whose URL is not http(s)"),
        Refusal::RequestBudget => format!("{requests} to the site past --max-requests"),
        Refusal::OtherHostBudget => {
            format!("{requests} to other hosts past --render-other-host-requests (per page)")
        }
        Refusal::Method => {
            format!("{requests} whose method may change the server (PUT, DELETE, ...)")
        }
        Refusal::WebSocket => count(refused, "WebSocket"),
    }
}
