//! What a protected site needs on every request (docs/design.md, Safety): the headers, the basic
//! authentication and the cookies the user gives, and the cookies the site sets during the
//! crawl. They are secrets: sent to the site's own origins only ([`SiteSession::is_site`]),
//! never across a redirect to another host, and never shown (their `Debug` is redacted, and
//! the errors about them never repeat a value).

use std::collections::HashSet;
use std::fmt;

use base64::Engine;
use reqwest::cookie::{CookieStore, Jar};
use reqwest::header::{self, HeaderName, HeaderValue};
use url::{Host, Url};

use crate::error::InvalidSetting;

/// Headers the crawl sets itself, or that frame the request: a `--header` cannot replace them.
const RESERVED_HEADERS: &[(&str, &str)] = &[
    ("host", "the URL names the host"),
    ("content-length", "it frames the request"),
    ("transfer-encoding", "it frames the request"),
    ("connection", "it is the connection's, not the request's"),
    ("upgrade", "it is the connection's, not the request's"),
    ("te", "it is the connection's, not the request's"),
    (
        "user-agent",
        "use --user-agent, whose product token robots.txt reads",
    ),
    (
        "cookie",
        "use --cookie, so that the site's own cookies are kept too",
    ),
];

/// A header sent with every request to the site (`--header 'Name: value'`).
#[derive(Clone)]
pub struct SiteHeader {
    name: HeaderName,
    value: HeaderValue,
}

impl SiteHeader {
    /// Parses `Name: value`. The value is marked sensitive: HTTP/2 never indexes it, and
    /// `Debug` never shows it.
    pub fn parse(text: &str) -> Result<SiteHeader, InvalidSetting> {
        let Some((name, value)) = text.split_once(':') else {
            return Err(InvalidSetting::new(
                "expected `Name: value`, with a colon after the name",
            ));
        };
        let name = name.trim();
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            InvalidSetting::new(format!(
                "{:?} is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)",
                shown_name(name)
            ))
        })?;
        if let Some((_, why)) = RESERVED_HEADERS
            .iter()
            .find(|(reserved, _)| *reserved == name.as_str())
        {
            return Err(InvalidSetting::new(format!(
                "{name} cannot be set with a header: {why}"
            )));
        }
        let mut value = HeaderValue::from_str(value.trim()).map_err(|_| {
            InvalidSetting::new(format!(
                "the value of {name} holds a line break or another control character"
            ))
        })?;
        value.set_sensitive(true);
        Ok(SiteHeader { name, value })
    }

    /// The header's name (never a secret).
    pub fn name(&self) -> &HeaderName {
        &self.name
    }
}

impl fmt::Debug for SiteHeader {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}: <redacted>", self.name)
    }
}

/// A header name as the user wrote it, cut short: the error line stays one readable line.
fn shown_name(name: &str) -> String {
    name.chars().take(40).collect()
}

/// Basic authentication (RFC 7617) for the site.
#[derive(Clone, PartialEq, Eq)]
pub struct BasicAuth {
    user: String,
    password: String,
}

impl BasicAuth {
    /// Credentials as given: the user may not hold a colon (RFC 7617 section 2), the password
    /// may.
    pub fn new(user: &str, password: &str) -> Result<BasicAuth, InvalidSetting> {
        if user.contains(':') {
            return Err(InvalidSetting::new("the user name cannot hold a colon"));
        }
        if user.chars().chain(password.chars()).any(char::is_control) {
            return Err(InvalidSetting::new(
                "the user name or password holds a control character",
            ));
        }
        Ok(BasicAuth {
            user: user.to_string(),
            password: password.to_string(),
        })
    }

    /// Parses `user:password` (the password may be empty, and may hold colons).
    pub fn parse(text: &str) -> Result<BasicAuth, InvalidSetting> {
        let Some((user, password)) = text.split_once(':') else {
            return Err(InvalidSetting::new(
                "expected user:password, with a colon after the user name",
            ));
        };
        BasicAuth::new(user, password)
    }

    /// The `Authorization` header's value, marked sensitive.
    fn header_value(&self) -> HeaderValue {
        let encoded = base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", self.user, self.password));
        // Base64 is visible ASCII: the value is always valid.
        let mut value = HeaderValue::from_str(&format!("Basic {encoded}"))
            .unwrap_or_else(|_| HeaderValue::from_static("Basic"));
        value.set_sensitive(true);
        value
    }
}

impl fmt::Debug for BasicAuth {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("BasicAuth(<redacted>)")
    }
}

/// A cookie the user gives for the site (`--cookie name=value`).
#[derive(Clone, PartialEq, Eq)]
pub struct SiteCookie {
    name: String,
    value: String,
}

impl SiteCookie {
    /// Parses `name=value`, or several as a `Cookie` header writes them (`a=1; b=2`).
    pub fn parse_list(text: &str) -> Result<Vec<SiteCookie>, InvalidSetting> {
        let cookies: Vec<SiteCookie> = text
            .split(';')
            .map(str::trim)
            .filter(|pair| !pair.is_empty())
            .map(SiteCookie::parse)
            .collect::<Result<_, _>>()?;
        if cookies.is_empty() {
            return Err(InvalidSetting::new("expected name=value"));
        }
        Ok(cookies)
    }

    /// Parses one `name=value` (RFC 6265 section 4.1.1: the name a token, the value without
    /// spaces, quotes aside, commas, semicolons or backslashes).
    fn parse(pair: &str) -> Result<SiteCookie, InvalidSetting> {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(InvalidSetting::new(format!(
                "expected name=value, not {:?}",
                shown_name(pair.split('=').next().unwrap_or_default())
            )));
        };
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() || HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(InvalidSetting::new(format!(
                "{:?} is not a cookie name",
                shown_name(name)
            )));
        }
        let unquoted = value
            .strip_prefix('"')
            .and_then(|inner| inner.strip_suffix('"'))
            .unwrap_or(value);
        let valid = unquoted.bytes().all(
            |byte| matches!(byte, 0x21 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E),
        );
        if !valid {
            return Err(InvalidSetting::new(format!(
                "the value of cookie {name} holds a character a cookie cannot (a space, a quote, a comma, a backslash or a control character)"
            )));
        }
        Ok(SiteCookie {
            name: name.to_string(),
            value: value.to_string(),
        })
    }
}

impl fmt::Debug for SiteCookie {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}=<redacted>", self.name)
    }
}

/// What the user gives to reach a protected site. Sent to the site's origins only.
#[derive(Clone, Default)]
pub struct SiteAccess {
    /// Headers for every request to the site.
    pub headers: Vec<SiteHeader>,
    /// Basic authentication for every request to the site.
    pub basic_auth: Option<BasicAuth>,
    /// Cookies for every request to the site, besides those the site sets.
    pub cookies: Vec<SiteCookie>,
}

impl SiteAccess {
    /// Whether the user gave nothing: no header, no credentials, no cookie.
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty() && self.basic_auth.is_none() && self.cookies.is_empty()
    }

    /// Checks that the parts do not contradict each other: basic authentication and an
    /// `Authorization` header, or one header given twice, cannot both be sent.
    pub fn check(&self) -> Result<(), InvalidSetting> {
        let mut names = HashSet::new();
        for site_header in &self.headers {
            if !names.insert(site_header.name.as_str()) {
                return Err(InvalidSetting::new(format!(
                    "the header {} is given twice",
                    site_header.name
                )));
            }
        }
        if self.basic_auth.is_some() && names.contains(header::AUTHORIZATION.as_str()) {
            return Err(InvalidSetting::new(
                "basic authentication and an Authorization header cannot both be sent",
            ));
        }
        Ok(())
    }
}

impl fmt::Debug for SiteAccess {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SiteAccess")
            .field("headers", &self.headers)
            .field("basic_auth", &self.basic_auth)
            .field("cookies", &self.cookies)
            .finish()
    }
}

/// The origins a crawl's secrets may go to: the seed's (its scheme, host and port), the
/// `https` origin of the same host when the seed is `http` on the default port (an upgrade,
/// never a downgrade), and with subdomains allowed, the same for every subdomain of the
/// seed's site.
#[derive(Debug, Clone)]
struct SiteOrigins {
    scheme: String,
    host: String,
    port: Option<u16>,
    /// With `--allow-subdomains`: the seed's host without a leading `www.`.
    site: Option<String>,
}

impl SiteOrigins {
    fn of(seed: &Url, allow_subdomains: bool) -> SiteOrigins {
        let host = seed.host_str().unwrap_or_default().to_string();
        let is_name = matches!(seed.host(), Some(Host::Domain(_)));
        SiteOrigins {
            scheme: seed.scheme().to_string(),
            site: (allow_subdomains && is_name)
                .then(|| host.strip_prefix("www.").unwrap_or(&host).to_string()),
            host,
            port: seed.port_or_known_default(),
        }
    }

    fn contains(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let same_host = host == self.host
            || self.site.as_deref().is_some_and(|site| {
                host == site
                    || host
                        .strip_suffix(site)
                        .is_some_and(|prefix| prefix.ends_with('.'))
            });
        if !same_host {
            return false;
        }
        let port = url.port_or_known_default();
        if url.scheme() == self.scheme && port == self.port {
            return true;
        }
        self.scheme == "http"
            && self.port == Some(80)
            && url.scheme() == "https"
            && port == Some(443)
    }
}

/// [`SiteAccess`] bound to the site's origins, with the cookie jar of the crawl: what every
/// request to the site carries. Requests to any other host get nothing from it.
pub struct SiteSession {
    access: SiteAccess,
    origins: SiteOrigins,
    /// The cookies the site set (RFC 6265 rules: domain, path, expiry, `Secure`).
    jar: Jar,
}

impl SiteSession {
    /// The session of a crawl from `seed` (normalized, without credentials).
    pub fn new(access: SiteAccess, seed: &Url, allow_subdomains: bool) -> SiteSession {
        SiteSession {
            access,
            origins: SiteOrigins::of(seed, allow_subdomains),
            jar: Jar::default(),
        }
    }

    /// A session that sends nothing (for tools that reach no protected site).
    pub fn none(seed: &Url) -> SiteSession {
        SiteSession::new(SiteAccess::default(), seed, false)
    }

    /// Whether `url` is on the site's origins, where its secrets may go.
    pub fn is_site(&self, url: &Url) -> bool {
        self.origins.contains(url)
    }

    /// The user's headers and basic authentication for a request to `url`; nothing when
    /// `url` is not the site's. Cookies come from the client's cookie store (this session).
    pub fn headers_for(&self, url: &Url) -> Vec<(HeaderName, HeaderValue)> {
        if !self.is_site(url) {
            return Vec::new();
        }
        let mut headers: Vec<(HeaderName, HeaderValue)> = self
            .access
            .headers
            .iter()
            .map(|site_header| (site_header.name.clone(), site_header.value.clone()))
            .collect();
        if let Some(basic_auth) = &self.access.basic_auth {
            headers.push((header::AUTHORIZATION, basic_auth.header_value()));
        }
        headers
    }

    /// Whether a request to `url` carries anything of the user's or the site's: headers,
    /// credentials or cookies.
    pub fn sends_credentials(&self, url: &Url) -> bool {
        !self.headers_for(url).is_empty() || self.cookies(url).is_some()
    }

    /// What a browser's request to `url` carries besides its own headers, in place of those of
    /// the same name: the headers of [`Self::headers_for`] and the `Cookie` header; nothing for
    /// another host.
    pub fn browser_headers(&self, url: &Url) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = self.headers_for(url);
        if let Some(cookies) = self.cookies(url) {
            headers.push((header::COOKIE, cookies));
        }
        headers
    }
}

impl CookieStore for SiteSession {
    /// Keeps the cookies the site sets; another host's are not kept (the crawl sends it
    /// nothing anyway).
    fn set_cookies(&self, cookie_headers: &mut dyn Iterator<Item = &HeaderValue>, url: &Url) {
        if self.is_site(url) {
            self.jar.set_cookies(cookie_headers, url);
        }
    }

    /// The user's cookies and those the site set that apply to `url`; a cookie the site set
    /// replaces the user's of the same name (it is the newer).
    fn cookies(&self, url: &Url) -> Option<HeaderValue> {
        if !self.is_site(url) {
            return None;
        }
        let from_site = self.jar.cookies(url);
        let from_site = from_site
            .as_ref()
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let site_pairs: Vec<&str> = from_site
            .split(';')
            .map(str::trim)
            .filter(|pair| !pair.is_empty())
            .collect();
        let site_names: HashSet<&str> = site_pairs
            .iter()
            .map(|pair| pair.split('=').next().unwrap_or_default())
            .collect();
        let mut pairs: Vec<String> = self
            .access
            .cookies
            .iter()
            .filter(|cookie| !site_names.contains(cookie.name.as_str()))
            .map(|cookie| format!("{}={}", cookie.name, cookie.value))
            .collect();
        pairs.extend(site_pairs.iter().map(|pair| pair.to_string()));
        if pairs.is_empty() {
            return None;
        }
        let mut value = HeaderValue::from_str(&pairs.join("; ")).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

impl fmt::Debug for SiteSession {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SiteSession")
            .field("access", &self.access)
            .field("origins", &self.origins)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn access() -> SiteAccess {
        SiteAccess {
            headers: vec![
                SiteHeader::parse("X-Token: s3cret").unwrap_or_else(|error| panic!("{error}")),
            ],
            basic_auth: Some(
                BasicAuth::parse("user:pa:ss").unwrap_or_else(|error| panic!("{error}")),
            ),
            cookies: SiteCookie::parse_list("a=1; b=2").unwrap_or_else(|error| panic!("{error}")),
        }
    }

    #[test]
    fn headers_parse_and_refuse_what_they_cannot_carry() {
        let parsed = SiteHeader::parse(" X-Api-Key :  abc def ").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.name().as_str(), "x-api-key");
        assert_eq!(parsed.value.to_str().ok(), Some("abc def"));
        assert!(parsed.value.is_sensitive());
        for (text, says) in [
            ("no colon", "expected `Name: value`"),
            ("Bad Name: x", "not a header name"),
            ("X-A: one\ntwo", "control character"),
            ("Host: example.com", "cannot be set"),
            ("user-agent: x", "--user-agent"),
            ("Cookie: a=1", "--cookie"),
        ] {
            let error = SiteHeader::parse(text)
                .err()
                .unwrap_or_else(|| panic!("{text:?} was accepted"))
                .to_string();
            assert!(error.contains(says), "{text:?}: {error}");
            assert!(
                !error.contains("two") && !error.contains("example.com"),
                "{error}"
            );
        }
    }

    #[test]
    fn basic_auth_splits_at_the_first_colon() {
        let auth = BasicAuth::parse("user:pa:ss").unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            auth,
            BasicAuth::new("user", "pa:ss").unwrap_or_else(|e| panic!("{e}"))
        );
        // base64("user:pa:ss")
        assert_eq!(
            auth.header_value().to_str().ok(),
            Some("Basic dXNlcjpwYTpzcw==")
        );
        assert!(BasicAuth::parse("nocolon").is_err());
        assert!(
            BasicAuth::parse("user:").is_ok(),
            "an empty password is a password"
        );
        assert_eq!(format!("{auth:?}"), "BasicAuth(<redacted>)");
    }

    #[test]
    fn cookies_parse_alone_or_as_a_header_writes_them() {
        let cookies = SiteCookie::parse_list("a=1; b=\"two\";c=").unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = cookies.iter().map(|cookie| cookie.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        for text in ["", "novalue", "=1", "a=b c", "a=b,c", "a b=1"] {
            assert!(
                SiteCookie::parse_list(text).is_err(),
                "{text:?} was accepted"
            );
        }
    }

    #[test]
    fn nothing_secret_shows_in_debug() {
        let shown = format!(
            "{:?}",
            SiteSession::new(access(), &url("https://e.com/"), false)
        );
        for secret in ["s3cret", "pa:ss", "=1", "=2"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("x-token"), "{shown}");
    }

    #[test]
    fn secrets_go_to_the_sites_origins_only() {
        let session = SiteSession::new(access(), &url("http://e.com/blog/"), false);
        for site in ["http://e.com/", "http://e.com/other", "https://e.com/x"] {
            assert!(session.is_site(&url(site)), "{site}");
            assert_eq!(session.headers_for(&url(site)).len(), 2, "{site}");
        }
        for other in [
            "http://www.e.com/",
            "http://e.com:8080/",
            "http://e.com.evil.net/",
            "http://cdn.example/x",
        ] {
            assert!(!session.is_site(&url(other)), "{other}");
            assert!(session.headers_for(&url(other)).is_empty(), "{other}");
            assert!(session.cookies(&url(other)).is_none(), "{other}");
            assert!(session.browser_headers(&url(other)).is_empty(), "{other}");
        }
        let https = SiteSession::new(access(), &url("https://e.com/"), false);
        assert!(
            !https.is_site(&url("http://e.com/")),
            "never downgraded to plain http"
        );
        let subdomains = SiteSession::new(access(), &url("https://www.e.com/"), true);
        assert!(subdomains.is_site(&url("https://blog.e.com/")));
        assert!(subdomains.is_site(&url("https://e.com/")));
        assert!(!subdomains.is_site(&url("https://bad-e.com/")));
    }

    #[test]
    fn the_sites_cookies_are_kept_and_replace_the_users_of_the_same_name() {
        let site = url("https://e.com/");
        let session = SiteSession::new(access(), &site, false);
        // The pairs sent, in any order.
        let cookie = |session: &SiteSession, target: &str| -> Option<Vec<String>> {
            let value = session.cookies(&url(target))?;
            let mut pairs: Vec<String> = value
                .to_str()
                .ok()?
                .split("; ")
                .map(str::to_string)
                .collect();
            pairs.sort();
            Some(pairs)
        };
        assert_eq!(
            cookie(&session, "https://e.com/x"),
            Some(vec!["a=1".into(), "b=2".into()])
        );
        let set = [
            HeaderValue::from_static("b=3; Path=/"),
            HeaderValue::from_static("c=4"),
        ];
        session.set_cookies(&mut set.iter(), &site);
        assert_eq!(
            cookie(&session, "https://e.com/x"),
            Some(vec!["a=1".into(), "b=3".into(), "c=4".into()])
        );
        let elsewhere = [HeaderValue::from_static("d=5; Domain=other.example")];
        session.set_cookies(&mut elsewhere.iter(), &url("https://other.example/"));
        assert_eq!(cookie(&session, "https://other.example/"), None);
        let headers = session.browser_headers(&url("https://e.com/x"));
        let names: Vec<&str> = headers.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["x-token", "authorization", "cookie"]);
    }

    #[test]
    fn contradictions_are_refused() {
        let mut both = access();
        both.headers
            .push(SiteHeader::parse("Authorization: Bearer x").unwrap_or_else(|e| panic!("{e}")));
        assert!(both.check().is_err());
        let twice = SiteAccess {
            headers: vec![
                SiteHeader::parse("X-A: 1").unwrap_or_else(|e| panic!("{e}")),
                SiteHeader::parse("x-a: 2").unwrap_or_else(|e| panic!("{e}")),
            ],
            ..SiteAccess::default()
        };
        assert!(twice.check().is_err());
        assert!(access().check().is_ok());
    }
}
