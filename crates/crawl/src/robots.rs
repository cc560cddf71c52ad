//! robots.txt (RFC 9309): parsed once per origin into the rules for our product token.
//!
//! The `robotstxt` crate's parser reads the lines (it accepts the usual typos such as
//! `disalow`); its callbacks feed [`GroupCollector`], which keeps the groups, `Crawl-delay` and
//! `Sitemap:` lines. Matching is done here on the pre-parsed rules, so checking a URL never
//! re-parses the file, and because the crate's own `matches` loses candidate positions for some
//! wildcard patterns (`/*c$` does not match `/cxc`): see `wildcard_match`.

use std::time::Duration;

use robotstxt::RobotsParseHandler;
use url::Url;

use crate::fetch::FetchFailure;
use crate::normalize::{HEX_UPPER, normalize_percent_encoding};

/// At least 500 KiB must be parsed (RFC 9309 section 2.5); more is ignored.
pub(crate) const MAX_ROBOTS_BYTES: usize = 512 * 1024;

/// Lines longer than this are cut before parsing: the `robotstxt` parser slices such lines by
/// character count as if it were a byte count and can panic on multi-byte text. No useful path
/// pattern comes near it.
const MAX_LINE_BYTES: usize = 16 * 1024;

/// What an origin's `/robots.txt` answered (the policy says what the crawl makes of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsFile {
    /// It answered 2xx and was read.
    Found,
    /// It answered 404 or 410: the origin has none.
    Missing,
    /// It answered another client error (401, 403...): read as none (RFC 9309 section
    /// 2.3.1.3), though a file may be there.
    ClientError(u16),
    /// A server error, a network failure or too many redirects: it could not be read.
    Unreachable,
    /// Not requested: robots.txt is ignored by request.
    Ignored,
}

/// What robots.txt says for one origin.
#[derive(Debug, Clone)]
pub(crate) enum RobotsPolicy {
    /// No robots.txt (4xx, RFC 9309 section 2.3.1.3), or robots ignored by the user.
    AllowAll { reason: String },
    /// robots.txt unreachable (5xx, network errors: section 2.3.1.4).
    DisallowAll { reason: RobotsUnavailable },
    /// A parsed robots.txt.
    Rules(RobotsRules),
}

impl RobotsPolicy {
    pub(crate) fn is_allowed(&self, url: &Url) -> bool {
        match self {
            RobotsPolicy::AllowAll { .. } => true,
            RobotsPolicy::DisallowAll { .. } => url.path() == "/robots.txt",
            RobotsPolicy::Rules(rules) => rules.is_allowed(url),
        }
    }

    /// Why `url` is disallowed, in words that name the rule and where it stands
    /// (`line 4: Disallow: /private/, in the group for "*"`); `None` when it is allowed.
    pub(crate) fn why_disallowed(&self, url: &Url) -> Option<String> {
        match self {
            RobotsPolicy::AllowAll { .. } => None,
            RobotsPolicy::DisallowAll { .. } => (!self.is_allowed(url)).then(|| self.describe()),
            RobotsPolicy::Rules(rules) => {
                let rule = rules.disallowing_rule(url)?;
                Some(format!(
                    "line {}: Disallow: {}, in the group for \"{}\"",
                    rule.line, rule.written, rules.group
                ))
            }
        }
    }

    pub(crate) fn crawl_delay(&self) -> Option<Duration> {
        match self {
            RobotsPolicy::Rules(rules) => rules.crawl_delay(),
            _ => None,
        }
    }

    pub(crate) fn sitemaps(&self) -> &[String] {
        match self {
            RobotsPolicy::Rules(rules) => rules.sitemaps(),
            _ => &[],
        }
    }

    /// A short description for logs and summaries.
    pub(crate) fn describe(&self) -> String {
        match self {
            RobotsPolicy::AllowAll { reason } => format!("allow all ({reason})"),
            RobotsPolicy::DisallowAll { reason } => match reason {
                RobotsUnavailable::ServerError(status) => {
                    format!("disallow all (robots.txt answered {status})")
                }
                RobotsUnavailable::Unreachable(failure) => {
                    format!("disallow all (robots.txt unreachable: {failure})")
                }
            },
            RobotsPolicy::Rules(rules) => rules.describe(),
        }
    }
}

/// Why robots.txt could not be read, which forbids the whole origin until it can (RFC 9309
/// section 2.3.1.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RobotsUnavailable {
    /// It answered this 5xx status.
    ServerError(u16),
    /// Its request got no response.
    Unreachable(FetchFailure),
}

/// The rules of the groups that apply to one product token, merged.
#[derive(Debug, Clone, Default)]
pub(crate) struct RobotsRules {
    /// The user agent whose groups apply: our token, `*`, or empty when no group does.
    group: String,
    rules: Vec<Rule>,
    crawl_delay: Option<Duration>,
    sitemaps: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    allow: bool,
    pattern: String,
    /// The line of robots.txt that gave it, counted from 1, and its value as written.
    line: u32,
    written: String,
}

impl RobotsRules {
    /// Parses a robots.txt body for `product_token` (case-insensitive).
    pub(crate) fn parse(body: &str, product_token: &str) -> RobotsRules {
        let body = prepare_body(body);
        let mut collector = GroupCollector::default();
        robotstxt::parse_robotstxt(&body, &mut collector);
        collector.into_rules(product_token)
    }

    /// Longest match wins; Allow wins a tie; no match allows (RFC 9309 section 2.2.2).
    pub(crate) fn is_allowed(&self, url: &Url) -> bool {
        self.disallowing_rule(url).is_none()
    }

    /// The rule that disallows `url`: the longest `Disallow` pattern that matches it, when no
    /// `Allow` pattern as long matches too.
    fn disallowing_rule(&self, url: &Url) -> Option<&Rule> {
        let mut target = normalize_percent_encoding(url.path()).into_owned();
        if let Some(query) = url.query() {
            target.push('?');
            target.push_str(&normalize_percent_encoding(query));
        }
        if target == "/robots.txt" {
            return None;
        }
        let mut best_allow = 0;
        let mut best_disallow: Option<&Rule> = None;
        for rule in &self.rules {
            // An empty pattern matches nothing (`Disallow:` allows all).
            if rule.pattern.is_empty() || !wildcard_match(&rule.pattern, &target) {
                continue;
            }
            let length = rule.pattern.len();
            if rule.allow {
                best_allow = best_allow.max(length);
            } else if best_disallow.is_none_or(|best| length > best.pattern.len()) {
                best_disallow = Some(rule);
            }
        }
        best_disallow.filter(|rule| rule.pattern.len() > best_allow)
    }

    pub(crate) fn crawl_delay(&self) -> Option<Duration> {
        self.crawl_delay
    }

    pub(crate) fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }

    /// `3 rules for "sitemapper", Crawl-delay 2s, 1 Sitemap line`.
    fn describe(&self) -> String {
        let mut text = if self.group.is_empty() {
            "no group applies: allow all".to_string()
        } else {
            let plural = if self.rules.len() == 1 { "" } else { "s" };
            format!("{} rule{plural} for \"{}\"", self.rules.len(), self.group)
        };
        if let Some(delay) = self.crawl_delay {
            text.push_str(&format!(", Crawl-delay {}s", delay.as_secs_f64()));
        }
        if !self.sitemaps.is_empty() {
            let plural = if self.sitemaps.len() == 1 { "" } else { "s" };
            text.push_str(&format!(", {} Sitemap line{plural}", self.sitemaps.len()));
        }
        text
    }
}

/// Removes a UTF-8 byte order mark (the crate compares characters with bytes and misses it)
/// and cuts over-long lines at a character boundary.
fn prepare_body(body: &str) -> String {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let mut prepared = String::with_capacity(body.len().min(MAX_ROBOTS_BYTES));
    for line in body.split_inclusive('\n') {
        if line.len() <= MAX_LINE_BYTES {
            prepared.push_str(line);
        } else {
            let mut cut = MAX_LINE_BYTES;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            prepared.push_str(&line[..cut]);
            prepared.push('\n');
        }
    }
    prepared
}

/// Matches a robots.txt path pattern against a path: `*` matches any run of characters, a
/// final `$` anchors the end, everything else is literal, anchored at the start.
/// Linear in pattern and path length (greedy with backtracking to the last `*`).
fn wildcard_match(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(stripped) => (stripped, true),
        None => (pattern, false),
    };
    let pattern = pattern.as_bytes();
    let path = path.as_bytes();
    let (mut pattern_index, mut path_index) = (0, 0);
    let mut last_star: Option<(usize, usize)> = None;
    loop {
        if pattern_index == pattern.len() {
            if !anchored || path_index == path.len() {
                return true;
            }
        } else if pattern[pattern_index] == b'*' {
            last_star = Some((pattern_index, path_index));
            pattern_index += 1;
            continue;
        } else if path_index < path.len() && pattern[pattern_index] == path[path_index] {
            pattern_index += 1;
            path_index += 1;
            continue;
        }
        // Mismatch (or an anchored pattern ending early): let the last `*` eat one more byte.
        match last_star {
            Some((star_pattern, star_path)) if star_path < path.len() => {
                last_star = Some((star_pattern, star_path + 1));
                pattern_index = star_pattern + 1;
                path_index = star_path + 1;
            }
            _ => return false,
        }
    }
}

/// RFC 9309 section 2.2.2: octets outside ASCII (and controls and spaces, which a URL path
/// cannot hold raw) are percent-encoded before comparison, so `Disallow: /café` and
/// `Disallow: /caf%c3%a9` both match the path `/caf%C3%A9`.
fn encode_pattern(value: &str) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.trim().bytes() {
        if byte >= 0x80 || byte <= 0x20 || byte == 0x7f {
            encoded.push('%');
            encoded.push(char::from(HEX_UPPER[usize::from(byte >> 4)]));
            encoded.push(char::from(HEX_UPPER[usize::from(byte & 0x0f)]));
        } else {
            encoded.push(char::from(byte));
        }
    }
    normalize_percent_encoding(&encoded).into_owned()
}

/// Collects groups from the parser's callbacks (RFC 9309 section 2.1: a group is one or more
/// `user-agent` lines followed by rules).
#[derive(Default)]
struct GroupCollector {
    groups: Vec<Group>,
    /// True while the current group is still reading its `user-agent` lines.
    reading_agents: bool,
    sitemaps: Vec<String>,
}

#[derive(Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<Rule>,
    crawl_delay: Option<Duration>,
}

impl GroupCollector {
    fn current_group(&mut self) -> Option<&mut Group> {
        self.groups.last_mut()
    }

    fn add_rule(&mut self, allow: bool, line: u32, value: &str) {
        self.reading_agents = false;
        if let Some(group) = self.current_group() {
            group.rules.push(Rule {
                allow,
                pattern: encode_pattern(value),
                line,
                written: value.trim().to_string(),
            });
        }
    }

    /// Groups naming our token are merged; without one, the `*` groups are merged
    /// (RFC 9309 section 2.2.1).
    fn into_rules(self, product_token: &str) -> RobotsRules {
        let token = product_token.to_ascii_lowercase();
        let names_us = |group: &Group| group.agents.contains(&token);
        let is_global = |group: &Group| group.agents.iter().any(|agent| agent == "*");
        let (group, chosen): (String, Vec<&Group>) = if self.groups.iter().any(names_us) {
            (
                token.clone(),
                self.groups.iter().filter(|group| names_us(group)).collect(),
            )
        } else if self.groups.iter().any(is_global) {
            (
                "*".to_string(),
                self.groups
                    .iter()
                    .filter(|group| is_global(group))
                    .collect(),
            )
        } else {
            (String::new(), Vec::new())
        };
        RobotsRules {
            group,
            rules: chosen
                .iter()
                .flat_map(|group| group.rules.iter().cloned())
                .collect(),
            crawl_delay: chosen.iter().filter_map(|group| group.crawl_delay).max(),
            sitemaps: self.sitemaps,
        }
    }
}

/// The product token of a `User-agent:` value: `Googlebot/2.1` names `googlebot`.
fn agent_token(value: &str) -> String {
    let value = value.trim();
    if value.starts_with('*') {
        return "*".to_string();
    }
    value
        .chars()
        .take_while(|character| character.is_ascii_alphanumeric() || matches!(character, '-' | '_'))
        .collect::<String>()
        .to_ascii_lowercase()
}

impl RobotsParseHandler for GroupCollector {
    fn handle_robots_start(&mut self) {}

    fn handle_robots_end(&mut self) {}

    fn handle_user_agent(&mut self, _line_number: u32, user_agent: &str) {
        if !self.reading_agents {
            self.groups.push(Group::default());
            self.reading_agents = true;
        }
        let token = agent_token(user_agent);
        if let Some(group) = self.current_group()
            && !token.is_empty()
        {
            group.agents.push(token);
        }
    }

    fn handle_allow(&mut self, line_number: u32, value: &str) {
        self.add_rule(true, line_number, value);
    }

    fn handle_disallow(&mut self, line_number: u32, value: &str) {
        self.add_rule(false, line_number, value);
    }

    fn handle_sitemap(&mut self, _line_number: u32, value: &str) {
        let value = value.trim();
        if !value.is_empty() {
            self.sitemaps.push(value.to_string());
        }
    }

    fn handle_unknown_action(&mut self, _line_number: u32, action: &str, value: &str) {
        if !action.eq_ignore_ascii_case("crawl-delay") {
            return;
        }
        self.reading_agents = false;
        let seconds = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|seconds| seconds.is_finite() && *seconds >= 0.0);
        if let (Some(seconds), Some(group)) = (seconds, self.current_group()) {
            group.crawl_delay = Some(Duration::from_secs_f64(seconds.min(86_400.0)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(body: &str, token: &str, target: &str) -> bool {
        let url = Url::parse(&format!("http://example.com{target}"))
            .unwrap_or_else(|error| panic!("{target}: {error}"));
        RobotsRules::parse(body, token).is_allowed(&url)
    }

    #[test]
    fn wildcards_and_anchors() {
        let cases = [
            ("/", "/", true),
            ("/", "/abc", true),
            ("/abc", "/", false),
            (
                "/*/*/tree/master",
                "/google/robotstxt/tree/master/index.html",
                true,
            ),
            ("/*/*/tree/master$", "/google/robotstxt/tree/master", true),
            (
                "/*/*/tree/master$",
                "/google/robotstxt/tree/master/abc",
                false,
            ),
            ("/*c$", "/cxc", true),
            ("/*.php$", "/a.php", true),
            ("/*.php$", "/a.php?x", false),
            ("/*.php", "/a.php?x", true),
            ("/fish*", "/fish.html", true),
            ("/fish*", "/Fish.html", false),
            ("*", "/anything", true),
            ("/a$b", "/a$b", true),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(
                wildcard_match(pattern, path),
                expected,
                "{pattern} ~ {path}"
            );
        }
    }

    #[test]
    fn the_rule_that_disallows_a_url_is_named_with_its_line_and_group() {
        let body = "User-agent: *\nDisallow: /private/\n\nUser-agent: sitemapper\n\
                    Disallow: /drafts\nDisallow: /drafts/old\nAllow: /drafts/open\n";
        let policy = RobotsPolicy::Rules(RobotsRules::parse(body, "sitemapper"));
        let why = |path: &str| {
            let url = Url::parse(&format!("http://example.com{path}"))
                .unwrap_or_else(|error| panic!("{path}: {error}"));
            policy.why_disallowed(&url)
        };
        assert_eq!(
            why("/drafts/old/1").as_deref(),
            Some("line 6: Disallow: /drafts/old, in the group for \"sitemapper\"")
        );
        assert_eq!(
            why("/drafts/x").as_deref(),
            Some("line 5: Disallow: /drafts, in the group for \"sitemapper\"")
        );
        assert_eq!(why("/drafts/open"), None, "a longer Allow wins");
        assert_eq!(why("/private/x"), None, "the group for * is not ours");
    }

    #[test]
    fn longest_match_wins_and_allow_wins_ties() {
        let body = "User-agent: *\nDisallow: /private\nAllow: /private/public\nDisallow: /tie\nAllow: /tie\n";
        assert!(!allowed(body, "sitemapper", "/private/x"));
        assert!(allowed(body, "sitemapper", "/private/public/x"));
        assert!(allowed(body, "sitemapper", "/tie"));
        assert!(allowed(body, "sitemapper", "/other"));
    }

    #[test]
    fn our_group_is_chosen_case_insensitively_and_merged() {
        let body = "User-agent: *\nDisallow: /\n\nUser-agent: SiteMapper/1.0\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nuser-agent: sitemapper\nDisallow: /c\n";
        assert!(allowed(body, "sitemapper", "/b"));
        assert!(!allowed(body, "sitemapper", "/a"));
        assert!(!allowed(body, "sitemapper", "/c"));
        assert!(!allowed(body, "otherbot", "/b"), "falls back to *");
    }

    #[test]
    fn consecutive_agent_lines_share_one_group() {
        let body =
            "User-agent: a\nUser-agent: sitemapper\nDisallow: /x\nUser-agent: b\nDisallow: /y\n";
        assert!(!allowed(body, "sitemapper", "/x"));
        assert!(allowed(body, "sitemapper", "/y"));
    }

    #[test]
    fn query_and_percent_encoding_take_part_in_the_match() {
        let body =
            "User-agent: *\nDisallow: /search?q=\nDisallow: /%7Euser\nDisallow: /caf%c3%a9\n";
        assert!(!allowed(body, "sitemapper", "/search?q=shoes"));
        assert!(allowed(body, "sitemapper", "/search"));
        assert!(!allowed(body, "sitemapper", "/~user/page"));
        assert!(!allowed(body, "sitemapper", "/caf%C3%A9"));
        let raw = "User-agent: *\nDisallow: /naïve\nDisallow: /a b\n";
        assert!(!allowed(raw, "sitemapper", "/na%C3%AFve/x"));
        assert!(!allowed(raw, "sitemapper", "/a%20b"));
        assert!(allowed(raw, "sitemapper", "/naive"));
    }

    #[test]
    fn the_description_names_the_group_delay_and_sitemaps() {
        let body = "User-agent: *\nDisallow: /x\nCrawl-delay: 2\nSitemap: https://e.com/s.xml\n";
        let policy = RobotsPolicy::Rules(RobotsRules::parse(body, "sitemapper"));
        assert_eq!(
            policy.describe(),
            "1 rule for \"*\", Crawl-delay 2s, 1 Sitemap line"
        );
        let other = RobotsPolicy::Rules(RobotsRules::parse(
            "User-agent: other\nDisallow: /\n",
            "sitemapper",
        ));
        assert_eq!(other.describe(), "no group applies: allow all");
    }

    #[test]
    fn empty_disallow_allows_everything() {
        assert!(allowed("User-agent: *\nDisallow:\n", "sitemapper", "/x"));
    }

    #[test]
    fn byte_order_mark_and_long_lines_are_harmless() {
        let body = "\u{feff}User-agent: *\nDisallow: /x\n";
        assert!(!allowed(body, "sitemapper", "/x"));
        let long = format!(
            "User-agent: *\nDisallow: /{}\nDisallow: /y\n",
            "é".repeat(40_000)
        );
        assert!(!allowed(&long, "sitemapper", "/y"));
    }

    #[test]
    fn crawl_delay_and_sitemaps_are_read() {
        let body = "Sitemap: https://example.com/sitemap.xml\nUser-agent: *\nCrawl-delay: 2.5\nDisallow: /x\n";
        let rules = RobotsRules::parse(body, "sitemapper");
        assert_eq!(rules.crawl_delay(), Some(Duration::from_millis(2500)));
        assert_eq!(
            rules.sitemaps(),
            ["https://example.com/sitemap.xml".to_string()]
        );
    }

    #[test]
    fn robots_txt_itself_is_always_allowed() {
        let url =
            Url::parse("http://example.com/robots.txt").unwrap_or_else(|error| panic!("{error}"));
        let policy = RobotsPolicy::DisallowAll {
            reason: RobotsUnavailable::ServerError(503),
        };
        assert!(policy.is_allowed(&url));
        assert!(!policy.is_allowed(
            &Url::parse("http://example.com/").unwrap_or_else(|error| panic!("{error}"))
        ));
    }

    proptest::proptest! {
        #[test]
        fn any_robots_txt_parses_and_answers_without_panicking(
            body in "(\\PC|\n|\r|\u{feff}){0,400}",
            token in "[a-zA-Z*/ ]{0,12}",
            path in "/[ -~é]{0,40}",
        ) {
            let rules = RobotsRules::parse(&body, &token);
            if let Ok(url) = Url::parse(&format!("http://example.com{path}")) {
                let _ = rules.is_allowed(&url);
            }
        }

        #[test]
        fn rule_like_lines_never_panic(
            lines in proptest::collection::vec(
                "(User-agent|Allow|Disallow|Crawl-delay|Sitemap|disalow): ?[*$/a-zé%0-9?=.]{0,12}",
                0..30,
            ),
            path in "/[*$/a-zé%0-9?=.]{0,20}",
        ) {
            let rules = RobotsRules::parse(&lines.join("\n"), "sitemapper");
            if let Ok(url) = Url::parse(&format!("http://example.com{path}")) {
                let _ = rules.is_allowed(&url);
            }
        }
    }
}
