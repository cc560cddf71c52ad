//! The URLs a user may have meant by one the crawl never met: the same page written another
//! way, then the pages above it.

use url::Url;

/// Other ways of writing `url` that lead to the same page on most sites, each with how it
/// differs, nearest first: without its query, with or without a trailing slash, over the
/// other scheme, with or without `www.`, in lower case.
pub(crate) fn variants(url: &Url) -> Vec<(Url, &'static str)> {
    let mut variants = Vec::new();
    if url.query().is_some() {
        let mut without = url.clone();
        without.set_query(None);
        variants.push((without, "without the query"));
    }
    let path = url.path();
    if path.len() > 1 {
        let mut toggled = url.clone();
        match path.strip_suffix('/') {
            Some(stripped) => {
                toggled.set_path(stripped);
                variants.push((toggled, "without the trailing slash"));
            }
            None => {
                toggled.set_path(&format!("{path}/"));
                variants.push((toggled, "with a trailing slash"));
            }
        }
    }
    let other_scheme = if url.scheme() == "https" {
        "http"
    } else {
        "https"
    };
    let mut scheme = url.clone();
    if scheme.set_scheme(other_scheme).is_ok() {
        // The default port of one scheme is not the other's.
        if url.port().is_none() {
            let _ = scheme.set_port(None);
        }
        variants.push((
            scheme,
            if other_scheme == "https" {
                "over https"
            } else {
                "over http"
            },
        ));
    }
    if let Some(host) = url.host_str() {
        let (other_host, differs) = match host.strip_prefix("www.") {
            Some(bare) => (bare.to_string(), "without www."),
            None => (format!("www.{host}"), "with www."),
        };
        let mut www = url.clone();
        if www.set_host(Some(&other_host)).is_ok() {
            variants.push((www, differs));
        }
    }
    let lower = path.to_lowercase();
    if lower != path {
        let mut lowered = url.clone();
        lowered.set_path(&lower);
        variants.push((lowered, "in lower case"));
    }
    variants
}

/// The directories above `url`, nearest first, up to its root: `/a/b/c` gives `/a/b/`,
/// `/a/`, `/`.
pub(crate) fn parents(url: &Url) -> Vec<Url> {
    let mut parents = Vec::new();
    let mut path = url.path().trim_end_matches('/').to_string();
    while let Some(cut) = path.rfind('/') {
        path.truncate(cut);
        let mut parent = url.clone();
        parent.set_query(None);
        parent.set_path(&format!("{path}/"));
        if parent != *url {
            parents.push(parent);
        }
    }
    parents
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn texts(variants: &[(Url, &'static str)]) -> Vec<(String, &'static str)> {
        variants
            .iter()
            .map(|(url, differs)| (url.to_string(), *differs))
            .collect()
    }

    #[test]
    fn a_url_is_written_the_other_usual_ways() {
        assert_eq!(
            texts(&variants(&url("https://www.e.com/Docs/Guide?page=2"))),
            [
                (
                    "https://www.e.com/Docs/Guide".to_string(),
                    "without the query"
                ),
                (
                    "https://www.e.com/Docs/Guide/?page=2".to_string(),
                    "with a trailing slash"
                ),
                (
                    "http://www.e.com/Docs/Guide?page=2".to_string(),
                    "over http"
                ),
                (
                    "https://e.com/Docs/Guide?page=2".to_string(),
                    "without www."
                ),
                (
                    "https://www.e.com/docs/guide?page=2".to_string(),
                    "in lower case"
                ),
            ]
        );
        assert_eq!(
            texts(&variants(&url("http://127.0.0.1:8080/blog/"))),
            [
                (
                    "http://127.0.0.1:8080/blog".to_string(),
                    "without the trailing slash"
                ),
                ("https://127.0.0.1:8080/blog/".to_string(), "over https"),
            ],
            "an address has no www."
        );
    }

    #[test]
    fn the_directories_above_come_nearest_first() {
        let above: Vec<String> = parents(&url("https://e.com/a/b/c?x=1"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            above,
            ["https://e.com/a/b/", "https://e.com/a/", "https://e.com/"]
        );
        assert!(parents(&url("https://e.com/")).is_empty());
    }
}
