//! Robots directives for a page: `<meta name="robots">`, `<meta name="TOKEN">` and every
//! `X-Robots-Tag` header (Google Search Central, "Robots meta tag, data-nosnippet, and
//! X-Robots-Tag specifications"). Only `noindex` and `nofollow` matter for a sitemap.

/// Directive names that take a value after a colon: a colon after one of these does not
/// introduce a user agent.
const DIRECTIVES_WITH_VALUES: &[&str] = &[
    "unavailable_after",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
];

/// What the page's robots directives, from every source, ask of a crawler.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RobotsDirectives {
    /// The page asks not to be indexed: it stays out of the sitemap.
    pub noindex: bool,
    /// The page asks that its links not be followed.
    pub nofollow: bool,
}

impl RobotsDirectives {
    /// Both sources count: the most restrictive wins.
    pub(crate) fn merge(&mut self, other: RobotsDirectives) {
        self.noindex |= other.noindex;
        self.nofollow |= other.nofollow;
    }
}

/// A comma-separated directive list, case-insensitive: `none` is `noindex, nofollow`.
pub(crate) fn parse_directives(list: &str) -> RobotsDirectives {
    let mut directives = RobotsDirectives::default();
    for directive in list.split(',') {
        match directive.trim().to_ascii_lowercase().as_str() {
            "noindex" => directives.noindex = true,
            "nofollow" => directives.nofollow = true,
            "none" => {
                directives.noindex = true;
                directives.nofollow = true;
            }
            _ => {}
        }
    }
    directives
}

/// One `X-Robots-Tag` value. A leading `agent:` addresses the directives to that crawler only:
/// ours (`robots_token`) applies, any other is ignored.
pub(crate) fn parse_x_robots_tag(value: &str, robots_token: &str) -> RobotsDirectives {
    if let Some((prefix, rest)) = value.split_once(':') {
        let agent = prefix.trim();
        let is_agent = !agent.is_empty()
            && !agent.contains([',', ' '])
            && !DIRECTIVES_WITH_VALUES
                .iter()
                .any(|name| agent.eq_ignore_ascii_case(name));
        if is_agent {
            return if agent.eq_ignore_ascii_case(robots_token) {
                parse_directives(rest)
            } else {
                RobotsDirectives::default()
            };
        }
    }
    parse_directives(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: RobotsDirectives = RobotsDirectives {
        noindex: false,
        nofollow: false,
    };
    const NOINDEX: RobotsDirectives = RobotsDirectives {
        noindex: true,
        nofollow: false,
    };
    const NOFOLLOW: RobotsDirectives = RobotsDirectives {
        noindex: false,
        nofollow: true,
    };
    const BOTH: RobotsDirectives = RobotsDirectives {
        noindex: true,
        nofollow: true,
    };

    #[test]
    fn directive_lists() {
        for (list, expected) in [
            ("noindex", NOINDEX),
            ("NoIndex, NoFollow", BOTH),
            (" none ", BOTH),
            ("nofollow", NOFOLLOW),
            ("index, follow", NONE),
            ("all", NONE),
            ("noarchive, nosnippet", NONE),
            ("", NONE),
        ] {
            assert_eq!(parse_directives(list), expected, "{list:?}");
        }
    }

    #[test]
    fn x_robots_tag_agents() {
        for (value, expected) in [
            ("noindex", NOINDEX),
            ("googlebot: noindex", NONE),
            ("otherbot: none", NONE),
            ("sitemapper: noindex", NOINDEX),
            ("SiteMapper: nofollow", NOFOLLOW),
            ("unavailable_after: 25 Jun 2010 15:00:00 PST", NONE),
            (
                "noindex, unavailable_after: 25 Jun 2010 15:00:00 PST",
                NOINDEX,
            ),
            ("max-snippet: 20, noindex", NOINDEX),
        ] {
            assert_eq!(
                parse_x_robots_tag(value, "sitemapper"),
                expected,
                "{value:?}"
            );
        }
    }
}
