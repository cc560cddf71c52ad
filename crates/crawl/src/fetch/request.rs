//! Fetching for callers outside the crawl (`validate`, the audit's reading of the site's
//! sitemaps, IndexNow): a GET or a POST through its redirects, each hop with the fetcher's
//! checks (address policy, the site's secrets for its origins only, body cap) and none of the
//! crawl's own (scope, robots.txt, pace, request budget), which belong to a crawl.

use reqwest::StatusCode;
use url::Url;

use super::chain::{Broken, Hops};
use super::failure::{FetchError, FetchFailure};
use super::fetcher::Fetcher;
use super::hop::{BodyWanted, FetchedResponse, HopRequest, Method};

/// A 2xx body fetched through its redirects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// Where the redirects led: the URL that answered.
    pub url: Url,
    /// Its status, a 2xx.
    pub status: StatusCode,
    /// The body as served (transfer encodings such as gzip undone; a gzip file stays one).
    pub body: Vec<u8>,
}

impl Fetcher {
    /// GET `url` through its redirects: the 2xx answer the chain ends on, its body at most
    /// `cap` bytes. Timeouts, failed connections, 429, 502, 503 and 504 are retried as the
    /// fetcher's settings say.
    pub async fn get(&self, url: &Url, cap: u64) -> Result<Fetched, FetchError> {
        // A cap beyond the address space is no cap: memory ends first.
        let cap = usize::try_from(cap).unwrap_or(usize::MAX);
        let hops = Plain {
            request: HopRequest::get(BodyWanted::AnySuccess { cap }),
            max_redirects: self.max_redirects,
            retries: true,
        };
        self.follow(url.clone(), hops).await
    }

    /// POST `body`, of `content_type`, to `url` through its redirects as browsers follow
    /// them: 307 and 308 send it again, 301, 302 and 303 lead to a GET (RFC 9110 section
    /// 15.4). The status of the 2xx answer the chain ends on (its body is not read). Sent
    /// once: a POST is not safe to repeat (RFC 9110 section 9.2.2).
    pub async fn post(
        &self,
        url: &Url,
        content_type: &str,
        body: Vec<u8>,
    ) -> Result<StatusCode, FetchError> {
        let hops = Plain {
            request: HopRequest {
                method: Method::Post {
                    content_type: content_type.to_string(),
                    body,
                },
                wanted: BodyWanted::Nothing,
                validators: None,
            },
            max_redirects: self.max_redirects,
            retries: false,
        };
        self.follow(url.clone(), hops)
            .await
            .map(|fetched| fetched.status)
    }
}

/// The rules of a chain outside the crawl: the fetcher's checks only.
#[derive(Debug)]
struct Plain {
    /// The request of the next hop.
    request: HopRequest,
    max_redirects: usize,
    /// Whether a failed attempt may be sent again.
    retries: bool,
}

impl Hops for Plain {
    type End = Result<Fetched, FetchError>;

    fn max_redirects(&self) -> usize {
        self.max_redirects
    }

    async fn before(&mut self, _url: &Url) -> Result<HopRequest, Self::End> {
        Ok(self.request.clone())
    }

    fn reserve_retry(&self) -> bool {
        self.retries
    }

    async fn redirected(
        &mut self,
        _url: &Url,
        response: &FetchedResponse,
        _target: &Url,
    ) -> Result<(), Self::End> {
        let keeps_method = matches!(
            response.status,
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
        );
        if !keeps_method && matches!(self.request.method, Method::Post { .. }) {
            self.request.method = Method::Get;
        }
        Ok(())
    }

    async fn answered(self, url: Url, response: FetchedResponse) -> Self::End {
        if !response.status.is_success() {
            return Err(FetchError::Status(response.status));
        }
        if response.truncated
            && let Some(cap) = self.request.wanted.cap()
        {
            return Err(FetchError::TooLarge {
                cap: u64::try_from(cap).unwrap_or(u64::MAX),
            });
        }
        Ok(Fetched {
            url,
            status: response.status,
            body: response.body,
        })
    }

    async fn failed(self, _url: Url, failure: FetchFailure) -> Self::End {
        Err(FetchError::Failed(failure))
    }

    async fn broken(self, _url: Url, response: FetchedResponse, broken: Broken) -> Self::End {
        Err(match broken {
            Broken::UnusableLocation(_) => FetchError::UnusableRedirect {
                status: response.status,
            },
            Broken::TooManyRedirects => FetchError::TooManyRedirects,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};
    use std::sync::{Arc, Mutex};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::access::{SiteAccess, SiteHeader, SiteSession};
    use crate::address::AddressPolicy;
    use crate::fetch::failure::FetchFailureKind;
    use crate::fetch::settings::FetchSettings;
    use crate::network::NetworkOptions;

    /// A server on 127.0.0.1 that answers each path with a fixed response (`{origin}` in it
    /// replaced by another server's origin) and keeps every request as it came.
    struct Scripted {
        address: SocketAddr,
        requests: Arc<Mutex<Vec<String>>>,
    }

    impl Scripted {
        async fn start(routes: &[(&str, String)]) -> Scripted {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .unwrap_or_else(|error| panic!("{error}"));
            let address = listener
                .local_addr()
                .unwrap_or_else(|error| panic!("{error}"));
            let routes: Arc<HashMap<String, String>> = Arc::new(
                routes
                    .iter()
                    .map(|(path, response)| (path.to_string(), response.clone()))
                    .collect(),
            );
            let requests: Arc<Mutex<Vec<String>>> = Arc::default();
            let kept = Arc::clone(&requests);
            tokio::spawn(async move {
                while let Ok((mut stream, _)) = listener.accept().await {
                    let request = read_request(&mut stream).await;
                    let path = request.split(' ').nth(1).unwrap_or_default().to_string();
                    kept.lock()
                        .unwrap_or_else(|error| panic!("{error}"))
                        .push(request);
                    let response = routes
                        .get(&path)
                        .cloned()
                        .unwrap_or_else(|| answer(404, &[], ""));
                    let _ = stream.write_all(response.as_bytes()).await;
                }
            });
            Scripted { address, requests }
        }

        fn url(&self, path: &str) -> Url {
            Url::parse(&format!("http://{}{path}", self.address))
                .unwrap_or_else(|error| panic!("{error}"))
        }

        fn requests(&self) -> Vec<String> {
            self.requests
                .lock()
                .unwrap_or_else(|error| panic!("{error}"))
                .clone()
        }
    }

    /// The request's head and body, lower-cased header names kept as sent.
    async fn read_request(stream: &mut tokio::net::TcpStream) -> String {
        let mut bytes = Vec::new();
        let mut buffer = [0; 4096];
        loop {
            let read = stream.read(&mut buffer).await.unwrap_or(0);
            if read == 0 {
                break;
            }
            bytes.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&bytes).to_string();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if body.len() >= length {
                    return text;
                }
            }
        }
        String::from_utf8_lossy(&bytes).to_string()
    }

    fn answer(status: u16, headers: &[(&str, &str)], body: &str) -> String {
        let headers: String = headers
            .iter()
            .map(|(name, value)| format!("{name}: {value}\r\n"))
            .collect();
        format!(
            "HTTP/1.1 {status} X\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    fn redirect(status: u16, location: &str) -> String {
        answer(status, &[("Location", location)], "")
    }

    /// A fetcher for sites on 127.0.0.1, as if it were public (127.0.0.2 stays private).
    fn fetcher(session: Option<Arc<SiteSession>>) -> Fetcher {
        let addresses = AddressPolicy {
            allow_private: false,
            public_exceptions: vec![IpAddr::V4(Ipv4Addr::LOCALHOST)],
        };
        let settings = FetchSettings {
            max_redirects: 3,
            retries: 0,
            ..FetchSettings::default()
        };
        Fetcher::new(&settings, addresses, &NetworkOptions::default(), session)
            .unwrap_or_else(|error| panic!("{error}"))
    }

    fn has_header(request: &str, name: &str) -> bool {
        request.lines().any(|line| {
            line.split_once(':')
                .is_some_and(|(header, _)| header.eq_ignore_ascii_case(name))
        })
    }

    #[tokio::test]
    async fn a_redirect_to_another_origin_carries_none_of_the_sites_secrets() {
        let other = Scripted::start(&[("/sitemap.xml", answer(200, &[], "<urlset/>"))]).await;
        let target = other.url("/sitemap.xml");
        let site = Scripted::start(&[
            ("/start", redirect(302, "/moved")),
            ("/moved", redirect(301, target.as_str())),
        ])
        .await;
        let access = SiteAccess {
            headers: vec![
                SiteHeader::parse("X-Token: s3cret").unwrap_or_else(|error| panic!("{error}")),
            ],
            ..SiteAccess::default()
        };
        let session = SiteSession::new(access, &site.url("/"), false);
        let fetched = fetcher(Some(Arc::new(session)))
            .get(&site.url("/start"), 1024)
            .await;
        assert_eq!(
            fetched,
            Ok(Fetched {
                url: target,
                status: StatusCode::OK,
                body: b"<urlset/>".to_vec(),
            })
        );
        let on_site = site.requests();
        assert_eq!(on_site.len(), 2, "{on_site:?}");
        assert!(on_site.iter().all(|request| has_header(request, "x-token")));
        let elsewhere = other.requests();
        assert_eq!(elsewhere.len(), 1, "{elsewhere:?}");
        assert!(!has_header(&elsewhere[0], "x-token"), "{elsewhere:?}");
    }

    #[tokio::test]
    async fn every_hop_passes_the_address_policy() {
        let site = Scripted::start(&[("/", redirect(302, "http://127.0.0.2:9/internal"))]).await;
        let fetched = fetcher(None).get(&site.url("/"), 1024).await;
        let Err(FetchError::Failed(failure)) = fetched else {
            panic!("{fetched:?}");
        };
        assert_eq!(failure.kind(), FetchFailureKind::Refused);
        assert!(failure.to_string().contains("private network"), "{failure}");
    }

    #[tokio::test]
    async fn a_chain_ends_at_its_limit_or_where_it_leads_nowhere() {
        let site = Scripted::start(&[
            ("/loop", redirect(307, "/loop")),
            ("/nowhere", answer(301, &[], "")),
            ("/ftp", redirect(302, "ftp://e.com/file")),
            ("/big", answer(200, &[], "0123456789")),
            ("/gone", answer(410, &[], "")),
        ])
        .await;
        let fetcher = fetcher(None);
        let loop_url = site.url("/loop");
        assert_eq!(
            fetcher.get(&loop_url, 8).await,
            Err(FetchError::TooManyRedirects)
        );
        assert_eq!(
            site.requests().len(),
            4,
            "three redirects followed, then cut"
        );
        for path in ["/nowhere", "/ftp"] {
            let fetched = fetcher.get(&site.url(path), 8).await;
            assert!(
                matches!(fetched, Err(FetchError::UnusableRedirect { .. })),
                "{path}: {fetched:?}"
            );
        }
        for (path, expected) in [
            ("/big", FetchError::TooLarge { cap: 8 }),
            ("/gone", FetchError::Status(StatusCode::GONE)),
        ] {
            assert_eq!(
                fetcher.get(&site.url(path), 8).await,
                Err(expected),
                "{path}"
            );
        }
    }

    #[tokio::test]
    async fn a_post_is_sent_again_on_307_and_becomes_a_get_on_303() {
        let site = Scripted::start(&[
            ("/submit", redirect(307, "/again")),
            ("/again", redirect(303, "/done")),
            ("/done", answer(202, &[], "")),
        ])
        .await;
        let status = fetcher(None)
            .post(
                &site.url("/submit"),
                "application/json",
                b"{\"a\":1}".to_vec(),
            )
            .await;
        assert_eq!(status, Ok(StatusCode::ACCEPTED));
        let requests = site.requests();
        let lines: Vec<&str> = requests
            .iter()
            .filter_map(|request| request.lines().next())
            .collect();
        assert_eq!(
            lines,
            [
                "POST /submit HTTP/1.1",
                "POST /again HTTP/1.1",
                "GET /done HTTP/1.1"
            ]
        );
        assert!(requests[1].ends_with("{\"a\":1}"), "{requests:?}");
    }
}
