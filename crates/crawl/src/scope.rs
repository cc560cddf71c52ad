//! Scope: which URLs a crawl may request (docs/design.md, Scope).
//!
//! The seed's origin (scheme, host, port) and, when the seed has a path, only URLs under its
//! directory: a sitemap covers only its own directory and below (sitemaps.org, "Sitemap file
//! location"). A seed typed without its trailing slash (`/book`) that the server redirects to
//! the directory (`/book/`) is scoped to that directory: the server says the path names one.

use regex::Regex;
use url::Url;

/// Widening and narrowing of the seed's scope (docs/design.md, Scope).
#[derive(Debug, Clone, Default)]
pub struct ScopeOptions {
    /// Also crawl subdomains of the seed's host (a leading `www.` of the seed is ignored).
    pub allow_subdomains: bool,
    /// When not empty, a URL must match at least one of these (the seed always passes).
    pub include: Vec<Regex>,
    /// A URL matching any of these is out of scope.
    pub exclude: Vec<Regex>,
}

#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// The scope's directory as an absolute URL: where its sitemaps are published.
    root: Url,
    /// The URL the scope was made from (the seed, or where its redirects led): it passes
    /// the include and exclude patterns, whatever they say.
    seed: Url,
    options: ScopeOptions,
}

impl Scope {
    /// The scope of a crawl started at `seed`: its origin and the directory of its path
    /// (`/blog/` for `/blog/` and for `/blog/index.html`).
    pub(crate) fn from_seed(seed: &Url, options: &ScopeOptions) -> Scope {
        let mut root = seed.clone();
        root.set_path(directory_of(seed.path()));
        root.set_query(None);
        root.set_fragment(None);
        Scope {
            root,
            seed: seed.clone(),
            options: options.clone(),
        }
    }

    /// The scope after the seed redirected to `target`: the target's origin, the same
    /// directory when the target is under it, else the target's directory.
    pub(crate) fn moved_to(&self, target: &Url) -> Scope {
        let mut moved = Scope::from_seed(target, &self.options);
        if target.path().starts_with(self.root.path()) {
            moved.root.set_path(self.root.path());
        }
        moved
    }

    /// The scope of the directory `directory` names (`https://example.com/book/`), with the
    /// same options: where a seed leads that redirected only to add its trailing slash.
    pub(crate) fn narrowed_to(&self, directory: &Url) -> Scope {
        Scope::from_seed(directory, &self.options)
    }

    /// The absolute URL of the scope's directory: where its sitemaps are published.
    pub(crate) fn root(&self) -> &Url {
        &self.root
    }

    /// With subdomains allowed, the site whose subdomains are in scope (`example.com` for
    /// `www.example.com`); an address has none.
    pub(crate) fn subdomains_of(&self) -> Option<&str> {
        let host = self
            .root
            .domain()
            .filter(|_| self.options.allow_subdomains)?;
        Some(host.strip_prefix("www.").unwrap_or(host))
    }

    /// Whether include patterns narrow the scope; whether exclude patterns cut it.
    pub(crate) fn filters(&self) -> (bool, bool) {
        (
            !self.options.include.is_empty(),
            !self.options.exclude.is_empty(),
        )
    }

    /// Whether the scope is wider than the path typed: the seed's last segment names neither
    /// a directory (no trailing slash) nor a file (no `.`, as `/book` and unlike
    /// `/index.html`), the seed was answered at that path (`reached`, after any redirect),
    /// and the scope is a directory above it, so more than the typed path is crawled. Include
    /// patterns are the user narrowing it already.
    pub(crate) fn is_wider_than_seed(&self, seed: &Url, reached: &Url) -> bool {
        let path = seed.path();
        let last_segment = path.rsplit('/').next().unwrap_or_default();
        self.options.include.is_empty()
            && !last_segment.is_empty()
            && !last_segment.contains('.')
            && reached.path() == path
            && path.starts_with(self.root.path())
    }

    /// Whether a crawl may request `url`.
    pub(crate) fn contains(&self, url: &Url) -> bool {
        self.is_same_site(url)
            && url.path().starts_with(self.root.path())
            && self.passes_filters(url)
    }

    /// Whether `url` shares the scope's origin (or, with subdomains allowed, its site).
    pub(crate) fn is_same_site(&self, url: &Url) -> bool {
        same_site(&self.root, self.options.allow_subdomains, url)
    }

    fn passes_filters(&self, url: &Url) -> bool {
        let text = url.as_str();
        if self
            .options
            .exclude
            .iter()
            .any(|pattern| pattern.is_match(text))
        {
            return false;
        }
        self.options.include.is_empty()
            || self
                .options
                .include
                .iter()
                .any(|pattern| pattern.is_match(text))
            || self.seed.as_str() == text
    }
}

/// Whether a redirect from `from` to `to` only adds the trailing slash to the path (`/book` ->
/// `/book/`), keeping the query or dropping it. The origin is not compared: a seed's redirect
/// may move it anyway (http to https, bare host to www).
pub(crate) fn adds_trailing_slash(from: &Url, to: &Url) -> bool {
    !from.path().ends_with('/')
        && to.path().strip_suffix('/') == Some(from.path())
        && (to.query().is_none() || to.query() == from.query())
}

/// The directory part of a URL path: everything up to and including the last `/`.
fn directory_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(index) => &path[..=index],
        None => "/",
    }
}

/// Whether `url` shares the origin of `root` (its scheme, host and port), or, with
/// `subdomains` allowed, its site: the root's host without `www.`, or a subdomain of it.
pub(crate) fn same_site(root: &Url, subdomains: bool, url: &Url) -> bool {
    if url.scheme() != root.scheme() || url.port_or_known_default() != root.port_or_known_default()
    {
        return false;
    }
    let (Some(host), Some(own_host)) = (url.host_str(), root.host_str()) else {
        return false;
    };
    if host == own_host {
        return true;
    }
    if !subdomains {
        return false;
    }
    let site = own_host.strip_prefix("www.").unwrap_or(own_host);
    host == site
        || host
            .strip_suffix(site)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn scope(seed: &str) -> Scope {
        Scope::from_seed(&url(seed), &ScopeOptions::default())
    }

    #[test]
    fn the_seed_origin_is_the_scope() {
        let scope = scope("https://example.com/");
        assert!(scope.contains(&url("https://example.com/a/b?c=d")));
        assert!(
            !scope.contains(&url("http://example.com/a")),
            "other scheme"
        );
        assert!(
            !scope.contains(&url("https://www.example.com/a")),
            "other host"
        );
        assert!(
            !scope.contains(&url("https://example.com:8443/a")),
            "other port"
        );
        assert!(
            scope.contains(&url("https://example.com:443/a")),
            "default port"
        );
    }

    #[test]
    fn localhost_and_loopback_address_are_different_hosts() {
        let scope = scope("http://127.0.0.1:8080/");
        assert!(!scope.contains(&url("http://localhost:8080/")));
    }

    #[test]
    fn a_seed_path_limits_the_scope_to_its_directory() {
        for seed in [
            "https://example.com/blog/",
            "https://example.com/blog/index.html",
        ] {
            let scope = scope(seed);
            assert!(
                scope.contains(&url("https://example.com/blog/post")),
                "{seed}"
            );
            assert!(scope.contains(&url("https://example.com/blog/")), "{seed}");
            assert!(!scope.contains(&url("https://example.com/blog")), "{seed}");
            assert!(!scope.contains(&url("https://example.com/about")), "{seed}");
            assert_eq!(scope.root().as_str(), "https://example.com/blog/");
        }
    }

    #[test]
    fn subdomains_only_when_allowed() {
        let options = ScopeOptions {
            allow_subdomains: true,
            ..ScopeOptions::default()
        };
        let scope = Scope::from_seed(&url("https://www.example.com/"), &options);
        assert!(scope.contains(&url("https://blog.example.com/x")));
        assert!(scope.contains(&url("https://example.com/x")));
        assert!(!scope.contains(&url("https://badexample.com/x")));
        assert!(!scope.contains(&url("https://example.com.evil.net/x")));
    }

    #[test]
    fn include_and_exclude_patterns_narrow_the_scope() {
        let options = ScopeOptions {
            include: vec![Regex::new("/docs/").unwrap_or_else(|error| panic!("{error}"))],
            exclude: vec![Regex::new(r"\.pdf$").unwrap_or_else(|error| panic!("{error}"))],
            ..ScopeOptions::default()
        };
        let scope = Scope::from_seed(&url("https://example.com/"), &options);
        assert!(
            scope.contains(&url("https://example.com/")),
            "the seed always passes"
        );
        assert!(scope.contains(&url("https://example.com/docs/a")));
        assert!(!scope.contains(&url("https://example.com/blog/a")));
        assert!(!scope.contains(&url("https://example.com/docs/a.pdf")));
        let book = Scope::from_seed(&url("https://example.com/book"), &options);
        assert!(book.contains(&url("https://example.com/book")), "the seed");
        assert!(
            !book.contains(&url("https://example.com/")),
            "its directory is not the seed"
        );
    }

    #[test]
    fn a_redirect_that_only_adds_the_trailing_slash_is_recognised() {
        for (from, to, adds) in [
            ("https://e.com/book", "https://e.com/book/", true),
            ("https://e.com/book?a=1", "https://e.com/book/?a=1", true),
            ("https://e.com/book?a=1", "https://e.com/book/", true),
            ("http://e.com/book", "https://www.e.com/book/", true),
            ("https://e.com/book", "https://e.com/book/?a=1", false),
            ("https://e.com/book?a=1", "https://e.com/book/?a=2", false),
            ("https://e.com/book", "https://e.com/book/index.html", false),
            ("https://e.com/book", "https://e.com/books/", false),
            ("https://e.com/book/", "https://e.com/book//", false),
            ("https://e.com/a/book", "https://e.com/book/", false),
        ] {
            assert_eq!(
                adds_trailing_slash(&url(from), &url(to)),
                adds,
                "{from} -> {to}"
            );
        }
    }

    #[test]
    fn a_seed_answered_without_its_trailing_slash_leaves_a_wider_scope() {
        let seed = url("https://e.com/docs/book");
        let scope = Scope::from_seed(&seed, &ScopeOptions::default());
        assert_eq!(scope.root().as_str(), "https://e.com/docs/");
        assert!(scope.is_wider_than_seed(&seed, &seed));
        assert!(
            scope.is_wider_than_seed(&seed, &url("https://www.e.com/docs/book")),
            "answered on another origin, at the same path"
        );
        assert!(
            !scope.is_wider_than_seed(&seed, &url("https://e.com/docs/")),
            "redirected elsewhere: the site chose"
        );
        let narrowed = scope.narrowed_to(&url("https://e.com/docs/book/"));
        assert_eq!(narrowed.root().as_str(), "https://e.com/docs/book/");
        assert!(!narrowed.is_wider_than_seed(&seed, &url("https://e.com/docs/book/")));
        let included = ScopeOptions {
            include: vec![Regex::new("/docs/book").unwrap_or_else(|error| panic!("{error}"))],
            ..ScopeOptions::default()
        };
        assert!(
            !Scope::from_seed(&seed, &included).is_wider_than_seed(&seed, &seed),
            "an include pattern narrows it already"
        );
        for typed in [
            "https://e.com/docs/index.html",
            "https://e.com/docs/",
            "https://e.com/",
        ] {
            let typed = url(typed);
            let scope = Scope::from_seed(&typed, &ScopeOptions::default());
            assert!(!scope.is_wider_than_seed(&typed, &typed), "{typed}");
        }
    }

    #[test]
    fn subdomains_are_named_by_their_site() {
        let options = ScopeOptions {
            allow_subdomains: true,
            ..ScopeOptions::default()
        };
        let www = Scope::from_seed(&url("https://www.example.com/"), &options);
        assert_eq!(www.subdomains_of(), Some("example.com"));
        assert_eq!(
            Scope::from_seed(&url("https://blog.example.com/"), &options).subdomains_of(),
            Some("blog.example.com")
        );
        assert_eq!(scope("https://example.com/").subdomains_of(), None);
        assert_eq!(
            Scope::from_seed(&url("http://127.0.0.1:8080/"), &options).subdomains_of(),
            None
        );
    }

    #[test]
    fn a_redirected_seed_moves_the_scope() {
        let scope = scope("http://example.com/");
        let moved = scope.moved_to(&url("https://www.example.com/home"));
        assert!(moved.contains(&url("https://www.example.com/about")));
        assert!(!moved.contains(&url("http://example.com/about")));
        assert_eq!(moved.root().as_str(), "https://www.example.com/");
    }
}
