//! Audit findings: what the crawl database says is wrong with a site, each with the URL
//! involved and, for links, every page of the run that links to it. Computed with SQL over
//! one run; the caller adds what needs more than the database (the site's own sitemaps,
//! hreflang code validity).

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Row, params};

use crate::runs::RunId;
use crate::{Store, StoreError};

/// How much a finding hurts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Search engines cannot index something they should, or are sent into a wall.
    Error,
    /// Likely to cost rankings or crawl budget.
    Warning,
    /// Worth a look.
    Notice,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "notice" => Some(Severity::Notice),
            _ => None,
        }
    }
}

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingKind {
    BrokenLink,
    RedirectLoop,
    RedirectChain,
    LinkToRedirect,
    CanonicalToBroken,
    CanonicalToRedirect,
    CanonicalToDisallowed,
    CanonicalToNoindex,
    CanonicalLoop,
    ConflictingCanonicals,
    InvalidCanonical,
    OffSiteCanonical,
    NoindexLinked,
    BlockedLinked,
    TooDeep,
    Slow,
    Large,
    MissingTitle,
    DuplicateTitle,
    MissingDescription,
    DuplicateDescription,
    DuplicateContent,
    MixedContent,
    TrapCut,
    HreflangNoReturn,
    HreflangInvalid,
    SitemapOrphan,
    SitemapNotIndexable,
    NotInSitemap,
    SitemapUnreadable,
}

impl FindingKind {
    pub const ALL: [FindingKind; 30] = [
        FindingKind::BrokenLink,
        FindingKind::RedirectLoop,
        FindingKind::RedirectChain,
        FindingKind::LinkToRedirect,
        FindingKind::CanonicalToBroken,
        FindingKind::CanonicalToRedirect,
        FindingKind::CanonicalToDisallowed,
        FindingKind::CanonicalToNoindex,
        FindingKind::CanonicalLoop,
        FindingKind::ConflictingCanonicals,
        FindingKind::InvalidCanonical,
        FindingKind::OffSiteCanonical,
        FindingKind::NoindexLinked,
        FindingKind::BlockedLinked,
        FindingKind::TooDeep,
        FindingKind::Slow,
        FindingKind::Large,
        FindingKind::MissingTitle,
        FindingKind::DuplicateTitle,
        FindingKind::MissingDescription,
        FindingKind::DuplicateDescription,
        FindingKind::DuplicateContent,
        FindingKind::MixedContent,
        FindingKind::TrapCut,
        FindingKind::HreflangNoReturn,
        FindingKind::HreflangInvalid,
        FindingKind::SitemapOrphan,
        FindingKind::SitemapNotIndexable,
        FindingKind::NotInSitemap,
        FindingKind::SitemapUnreadable,
    ];

    /// A stable machine-readable code.
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => "broken-link",
            FindingKind::RedirectLoop => "redirect-loop",
            FindingKind::RedirectChain => "redirect-chain",
            FindingKind::LinkToRedirect => "link-to-redirect",
            FindingKind::CanonicalToBroken => "canonical-to-broken",
            FindingKind::CanonicalToRedirect => "canonical-to-redirect",
            FindingKind::CanonicalToDisallowed => "canonical-to-disallowed",
            FindingKind::CanonicalToNoindex => "canonical-to-noindex",
            FindingKind::CanonicalLoop => "canonical-loop",
            FindingKind::ConflictingCanonicals => "conflicting-canonicals",
            FindingKind::InvalidCanonical => "invalid-canonical",
            FindingKind::OffSiteCanonical => "off-site-canonical",
            FindingKind::NoindexLinked => "noindex-linked",
            FindingKind::BlockedLinked => "robots-blocked-linked",
            FindingKind::TooDeep => "too-deep",
            FindingKind::Slow => "slow",
            FindingKind::Large => "large",
            FindingKind::MissingTitle => "missing-title",
            FindingKind::DuplicateTitle => "duplicate-title",
            FindingKind::MissingDescription => "missing-description",
            FindingKind::DuplicateDescription => "duplicate-description",
            FindingKind::DuplicateContent => "duplicate-content",
            FindingKind::MixedContent => "mixed-content",
            FindingKind::TrapCut => "trap-cut-short",
            FindingKind::HreflangNoReturn => "hreflang-no-return",
            FindingKind::HreflangInvalid => "hreflang-invalid",
            FindingKind::SitemapOrphan => "sitemap-orphan",
            FindingKind::SitemapNotIndexable => "sitemap-not-indexable",
            FindingKind::NotInSitemap => "not-in-sitemap",
            FindingKind::SitemapUnreadable => "sitemap-unreadable",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            FindingKind::BrokenLink
            | FindingKind::RedirectLoop
            | FindingKind::CanonicalToBroken
            | FindingKind::CanonicalToDisallowed
            | FindingKind::CanonicalLoop
            | FindingKind::SitemapNotIndexable
            | FindingKind::SitemapUnreadable => Severity::Error,
            FindingKind::RedirectChain
            | FindingKind::CanonicalToRedirect
            | FindingKind::CanonicalToNoindex
            | FindingKind::ConflictingCanonicals
            | FindingKind::InvalidCanonical
            | FindingKind::OffSiteCanonical
            | FindingKind::Slow
            | FindingKind::MissingTitle
            | FindingKind::DuplicateContent
            | FindingKind::MixedContent
            | FindingKind::HreflangNoReturn
            | FindingKind::HreflangInvalid
            | FindingKind::SitemapOrphan => Severity::Warning,
            FindingKind::LinkToRedirect
            | FindingKind::NoindexLinked
            | FindingKind::BlockedLinked
            | FindingKind::TooDeep
            | FindingKind::Large
            | FindingKind::DuplicateTitle
            | FindingKind::MissingDescription
            | FindingKind::DuplicateDescription
            | FindingKind::TrapCut
            | FindingKind::NotInSitemap => Severity::Notice,
        }
    }

    /// A short human title, for reports.
    pub fn title(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => "Broken internal link target",
            FindingKind::RedirectLoop => "Redirect loop",
            FindingKind::RedirectChain => "Redirect chain (more than one hop)",
            FindingKind::LinkToRedirect => "Internal link to a redirect",
            FindingKind::CanonicalToBroken => "Canonical to a page that does not answer 200",
            FindingKind::CanonicalToRedirect => "Canonical to a redirect",
            FindingKind::CanonicalToDisallowed => "Canonical to a page blocked by robots.txt",
            FindingKind::CanonicalToNoindex => "Canonical to a noindex page",
            FindingKind::CanonicalLoop => "Canonicals that form a loop",
            FindingKind::ConflictingCanonicals => "Conflicting canonicals",
            FindingKind::InvalidCanonical => "Invalid canonical URL",
            FindingKind::OffSiteCanonical => "Canonical to another site",
            FindingKind::NoindexLinked => "noindex page linked internally",
            FindingKind::BlockedLinked => "robots.txt-blocked URL linked internally",
            FindingKind::TooDeep => "Page deep in the site",
            FindingKind::Slow => "Slow page",
            FindingKind::Large => "Large page",
            FindingKind::MissingTitle => "Missing <title>",
            FindingKind::DuplicateTitle => "Duplicate <title>",
            FindingKind::MissingDescription => "Missing meta description",
            FindingKind::DuplicateDescription => "Duplicate meta description",
            FindingKind::DuplicateContent => "Duplicate content without a canonical",
            FindingKind::MixedContent => "http link on an https page",
            FindingKind::TrapCut => "Crawler trap cut short",
            FindingKind::HreflangNoReturn => "hreflang alternate without a return link",
            FindingKind::HreflangInvalid => "Invalid hreflang code",
            FindingKind::SitemapOrphan => "In the sitemap, not reachable by links",
            FindingKind::SitemapNotIndexable => "In the sitemap, not indexable",
            FindingKind::NotInSitemap => "Indexable, not in the sitemap",
            FindingKind::SitemapUnreadable => "Sitemap that cannot be read",
        }
    }
}

/// One problem, where it is, and who links there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    pub url: String,
    pub detail: String,
    /// Pages of the run that link to `url`, sorted.
    pub referrers: Vec<String>,
}

/// The limits beyond which a page is flagged.
#[derive(Debug, Clone, Copy)]
pub struct AuditThresholds {
    /// Clicks from the seed.
    pub max_depth: u32,
    pub slow_ms: u64,
    pub large_bytes: u64,
}

impl Default for AuditThresholds {
    fn default() -> Self {
        AuditThresholds {
            max_depth: 4,
            slow_ms: 1_500,
            large_bytes: 1024 * 1024,
        }
    }
}

/// `(page, hreflang, href)` as the page declares it.
pub type DeclaredAlternate = (String, String, String);

impl Store {
    /// Every finding the database supports for `run`, sorted by severity, kind and URL.
    pub fn findings(
        &self,
        run: RunId,
        thresholds: &AuditThresholds,
    ) -> Result<Vec<Finding>, StoreError> {
        let mut findings = Vec::new();
        self.status_findings(run, &mut findings)?;
        self.redirect_findings(run, &mut findings)?;
        self.canonical_findings(run, &mut findings)?;
        self.page_findings(run, thresholds, &mut findings)?;
        self.duplicate_findings(run, &mut findings)?;
        self.mixed_content_findings(run, &mut findings)?;
        self.hreflang_return_findings(run, &mut findings)?;
        for finding in &mut findings {
            if finding.referrers.is_empty() && links_matter(finding.kind) {
                finding.referrers = self.referrers(run, &finding.url)?;
            }
        }
        findings.sort_by(|first, second| {
            (first.kind.severity(), first.kind, &first.url).cmp(&(
                second.kind.severity(),
                second.kind,
                &second.url,
            ))
        });
        Ok(findings)
    }

    /// The pages of `run` that link to `url`.
    pub fn referrers(&self, run: RunId, url: &str) -> Result<Vec<String>, StoreError> {
        self.strings(
            "SELECT links.source FROM links JOIN pages ON pages.url = links.source
             WHERE links.target = ?1 AND pages.last_seen_run = ?2 ORDER BY links.source",
            params![url, run.0],
        )
    }

    /// Every hreflang alternate declared by a page of `run`.
    pub fn declared_alternates(&self, run: RunId) -> Result<Vec<DeclaredAlternate>, StoreError> {
        self.rows(
            "SELECT alternates.page, alternates.hreflang, alternates.href FROM alternates
                JOIN pages ON pages.url = alternates.page AND pages.last_seen_run = ?1
             ORDER BY 1, 2, 3",
            run,
        )
    }

    /// `url -> (verdict, reason)` of every URL `run` recorded.
    pub fn verdicts(
        &self,
        run: RunId,
    ) -> Result<HashMap<String, (String, Option<String>)>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT url, verdict, reason FROM pages WHERE last_seen_run = ?1")
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| {
                Ok((row.get(0)?, (row.get(1)?, row.get(2)?)))
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    fn status_findings(&self, run: RunId, findings: &mut Vec<Finding>) -> Result<(), StoreError> {
        let rows = self.rows::<(String, String, String)>(
            "SELECT url, coalesce(reason, ''), coalesce(detail, '') FROM pages
             WHERE last_seen_run = ?1
               AND (status >= 400 OR reason IN ('fetch-error', 'noindex', 'robots-disallowed')
                    OR reason LIKE 'trap-%')
             ORDER BY url",
            run,
        )?;
        for (url, reason, detail) in rows {
            let referrers = self.referrers(run, &url)?;
            let kind = match reason.as_str() {
                "noindex" => FindingKind::NoindexLinked,
                "robots-disallowed" => FindingKind::BlockedLinked,
                trap if trap.starts_with("trap-") => FindingKind::TrapCut,
                _ => FindingKind::BrokenLink,
            };
            // A noindex or blocked URL is only a finding when the site links to it.
            if matches!(
                kind,
                FindingKind::NoindexLinked | FindingKind::BlockedLinked
            ) && referrers.is_empty()
            {
                continue;
            }
            let detail = match (kind, detail.is_empty()) {
                (FindingKind::BrokenLink, false) => format!("{reason}: {detail}"),
                _ => reason,
            };
            findings.push(Finding {
                kind,
                url,
                detail,
                referrers,
            });
        }
        Ok(())
    }

    fn redirect_findings(&self, run: RunId, findings: &mut Vec<Finding>) -> Result<(), StoreError> {
        let targets: BTreeMap<String, String> = self
            .rows::<(String, String)>(
                "SELECT url, target FROM pages WHERE last_seen_run = ?1 AND verdict = 'redirect' AND target IS NOT NULL",
                run,
            )?
            .into_iter()
            .collect();
        for start in targets.keys() {
            let mut chain = vec![start.as_str()];
            let mut looped = false;
            while let Some(next) = targets.get(*chain.last().unwrap_or(&"")) {
                if chain.contains(&next.as_str()) {
                    looped = true;
                    chain.push(next);
                    break;
                }
                chain.push(next);
            }
            let referrers = self.referrers(run, start)?;
            let hops = chain.len() - 1;
            if looped {
                findings.push(Finding {
                    kind: FindingKind::RedirectLoop,
                    url: start.clone(),
                    detail: chain.join(" -> "),
                    referrers: referrers.clone(),
                });
            } else if hops > 1 {
                findings.push(Finding {
                    kind: FindingKind::RedirectChain,
                    url: start.clone(),
                    detail: format!("{hops} hops: {}", chain.join(" -> ")),
                    referrers: referrers.clone(),
                });
            }
            if !referrers.is_empty() {
                findings.push(Finding {
                    kind: FindingKind::LinkToRedirect,
                    url: start.clone(),
                    detail: format!("redirects to {}", chain.get(1).unwrap_or(&"")),
                    referrers,
                });
            }
        }
        Ok(())
    }

    fn canonical_findings(
        &self,
        run: RunId,
        findings: &mut Vec<Finding>,
    ) -> Result<(), StoreError> {
        // Hints whose target did not work out, classified by what the target turned out to be.
        let rows = self.rows::<(String, String, String, String)>(
            "SELECT page.url, coalesce(page.reason, ''), coalesce(page.target, ''),
                    coalesce(target.verdict || ':' || coalesce(target.reason, '') || ':' || coalesce(target.status, ''), 'unseen')
             FROM pages AS page LEFT JOIN pages AS target ON target.url = page.target
             WHERE page.last_seen_run = ?1
               AND (page.reason IN ('broken-canonical', 'canonical-loop', 'canonical-out-of-scope')
                    OR page.verdict = 'canonicalised')
             ORDER BY page.url",
            run,
        )?;
        for (url, reason, target, target_state) in rows {
            let mut parts = target_state.splitn(3, ':');
            let (verdict, target_reason, status) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            let (kind, detail) = match reason.as_str() {
                "canonical-loop" => (
                    FindingKind::CanonicalLoop,
                    format!("canonical {target} leads back"),
                ),
                "canonical-out-of-scope" => {
                    (FindingKind::OffSiteCanonical, format!("canonical {target}"))
                }
                "broken-canonical" if verdict == "redirect" => (
                    FindingKind::CanonicalToRedirect,
                    format!("canonical {target} redirects"),
                ),
                "broken-canonical" if target_reason == "robots-disallowed" => (
                    FindingKind::CanonicalToDisallowed,
                    format!("canonical {target} is blocked by robots.txt"),
                ),
                "broken-canonical" => {
                    let answer = if status.is_empty() {
                        format!(
                            "was not fetched ({})",
                            if target_reason.is_empty() {
                                verdict
                            } else {
                                target_reason
                            }
                        )
                    } else {
                        format!("answered {status}")
                    };
                    (
                        FindingKind::CanonicalToBroken,
                        format!("canonical {target} {answer}"),
                    )
                }
                _ if target_reason == "noindex" => (
                    FindingKind::CanonicalToNoindex,
                    format!("canonical {target} is noindex"),
                ),
                _ => continue,
            };
            findings.push(Finding {
                kind,
                url,
                detail,
                referrers: Vec::new(),
            });
        }
        for (url, detail) in self.rows::<(String, String)>(
            "SELECT url, detail FROM pages WHERE last_seen_run = ?1 AND detail IS NOT NULL
               AND (detail LIKE '%conflicting canonicals:%' OR detail LIKE '%invalid canonical:%')",
            run,
        )? {
            for hint in detail.split("; ") {
                let kind = if hint.starts_with("conflicting canonicals:") {
                    FindingKind::ConflictingCanonicals
                } else if hint.starts_with("invalid canonical:") {
                    FindingKind::InvalidCanonical
                } else {
                    continue;
                };
                findings.push(Finding {
                    kind,
                    url: url.clone(),
                    detail: hint.to_string(),
                    referrers: Vec::new(),
                });
            }
        }
        Ok(())
    }

    fn page_findings(
        &self,
        run: RunId,
        thresholds: &AuditThresholds,
        findings: &mut Vec<Finding>,
    ) -> Result<(), StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT url, depth, coalesce(elapsed_ms, 0), coalesce(body_bytes, 0), truncated,
                        coalesce(trim(title), ''), coalesce(trim(description), ''), verdict
                 FROM pages WHERE last_seen_run = ?1 AND html_ok = 1 ORDER BY url",
            )
            .map_err(|source| self.sql_error(source))?;
        let rows = statement
            .query_map(params![run.0], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, u32>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, bool>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, String>(6)?,
                    row.get::<_, String>(7)?,
                ))
            })
            .map_err(|source| self.sql_error(source))?;
        let mut push = |kind, url: &str, detail: String| {
            findings.push(Finding {
                kind,
                url: url.to_string(),
                detail,
                referrers: Vec::new(),
            });
        };
        for row in rows {
            let (url, depth, elapsed_ms, body_bytes, truncated, title, description, verdict) =
                row.map_err(|source| self.sql_error(source))?;
            if elapsed_ms > i64::try_from(thresholds.slow_ms).unwrap_or(i64::MAX) {
                push(
                    FindingKind::Slow,
                    &url,
                    format!("answered in {elapsed_ms} ms"),
                );
            }
            if truncated || body_bytes > i64::try_from(thresholds.large_bytes).unwrap_or(i64::MAX) {
                let cut = if truncated {
                    ", cut at the body cap"
                } else {
                    ""
                };
                push(FindingKind::Large, &url, format!("{body_bytes} bytes{cut}"));
            }
            if verdict != "indexable" {
                continue;
            }
            if depth > thresholds.max_depth {
                push(
                    FindingKind::TooDeep,
                    &url,
                    format!("{depth} clicks from the start page"),
                );
            }
            if title.is_empty() {
                push(FindingKind::MissingTitle, &url, String::new());
            }
            if description.is_empty() {
                push(FindingKind::MissingDescription, &url, String::new());
            }
        }
        Ok(())
    }

    fn duplicate_findings(
        &self,
        run: RunId,
        findings: &mut Vec<Finding>,
    ) -> Result<(), StoreError> {
        for (column, kind, what) in [
            ("trim(title)", FindingKind::DuplicateTitle, "title"),
            (
                "trim(description)",
                FindingKind::DuplicateDescription,
                "description",
            ),
            ("fingerprint", FindingKind::DuplicateContent, "content"),
        ] {
            let sql = format!(
                "SELECT url, {column}, count(*) OVER (PARTITION BY {column}) FROM pages
                 WHERE last_seen_run = ?1 AND verdict = 'indexable' AND coalesce({column}, '') != ''
                 ORDER BY {column}, url"
            );
            let mut statement = self
                .connection
                .prepare(&sql)
                .map_err(|source| self.sql_error(source))?;
            let rows: Vec<(String, String, i64)> = statement
                .query_map(params![run.0], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                })
                .and_then(Iterator::collect)
                .map_err(|source| self.sql_error(source))?;
            let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for (url, value, count) in &rows {
                if *count > 1 {
                    groups.entry(value).or_default().push(url);
                }
            }
            for (value, urls) in groups {
                for url in &urls {
                    let others: Vec<&str> =
                        urls.iter().filter(|other| *other != url).copied().collect();
                    let detail = match kind {
                        FindingKind::DuplicateContent => {
                            format!("same {what} as {}", others.join(" "))
                        }
                        _ => format!("{what} {value:?} also on {}", others.join(" ")),
                    };
                    findings.push(Finding {
                        kind,
                        url: url.to_string(),
                        detail,
                        referrers: Vec::new(),
                    });
                }
            }
        }
        Ok(())
    }

    fn mixed_content_findings(
        &self,
        run: RunId,
        findings: &mut Vec<Finding>,
    ) -> Result<(), StoreError> {
        let rows = self.rows::<(String, String)>(
            "SELECT links.source, links.target FROM links JOIN pages ON pages.url = links.source
             WHERE pages.last_seen_run = ?1 AND links.source LIKE 'https://%' AND links.target LIKE 'http://%'
             ORDER BY 1, 2",
            run,
        )?;
        let mut by_source: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (source, target) in rows {
            by_source.entry(source).or_default().push(target);
        }
        for (source, targets) in by_source {
            findings.push(Finding {
                kind: FindingKind::MixedContent,
                url: source,
                detail: format!("links to {}", targets.join(" ")),
                referrers: Vec::new(),
            });
        }
        Ok(())
    }

    fn hreflang_return_findings(
        &self,
        run: RunId,
        findings: &mut Vec<Finding>,
    ) -> Result<(), StoreError> {
        let rows = self.rows::<(String, String, String)>(
            "SELECT declared.page, declared.hreflang, declared.href FROM alternates AS declared
                JOIN pages ON pages.url = declared.page AND pages.last_seen_run = ?1
             WHERE declared.href != declared.page
               AND NOT EXISTS (SELECT 1 FROM alternates AS back
                               WHERE back.page = declared.href AND back.href = declared.page)
             ORDER BY 1, 2, 3",
            run,
        )?;
        for (page, hreflang, href) in rows {
            findings.push(Finding {
                kind: FindingKind::HreflangNoReturn,
                url: page,
                detail: format!("hreflang {hreflang} points to {href}, which does not link back"),
                referrers: Vec::new(),
            });
        }
        Ok(())
    }

    fn strings(
        &self,
        sql: &str,
        parameters: impl rusqlite::Params,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(parameters, |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The rows of a query over one run, as tuples.
    fn rows<T>(&self, sql: &str, run: RunId) -> Result<Vec<T>, StoreError>
    where
        T: for<'row> TryFrom<&'row Row<'row>, Error = rusqlite::Error>,
    {
        let mut statement = self
            .connection
            .prepare(sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| T::try_from(row))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }
}

/// Findings about a URL other pages link to: the report names the linking pages.
fn links_matter(kind: FindingKind) -> bool {
    matches!(
        kind,
        FindingKind::BrokenLink
            | FindingKind::RedirectChain
            | FindingKind::RedirectLoop
            | FindingKind::LinkToRedirect
            | FindingKind::NoindexLinked
            | FindingKind::BlockedLinked
            | FindingKind::TooDeep
    )
}
