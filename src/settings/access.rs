//! What a protected site needs (headers, basic authentication, cookies), how it is reached
//! (proxy, certificates) and which host it copies (`--map-host`): parsed and checked, with the
//! rules for where credentials come from. Secrets never appear in an error.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use sitemapper_crawl::{
    BasicAuth, HostMap, NetworkOptions, SiteAccess, SiteCookie, SiteHeader, TrustedCertificates,
    environment_proxies, parse_proxy,
};
use url::Url;

/// What a protected site needs and how it is reached, as the flags and the config file give
/// it; checked when the settings are built.
#[derive(Debug)]
pub(super) struct AccessOptions {
    pub(super) headers: Vec<String>,
    /// The credentials and where they come from (the seed's are read when checked).
    pub(super) basic_auth: Option<(String, CredentialSource)>,
    pub(super) cookies: Vec<String>,
    pub(super) proxy: Option<String>,
    pub(super) cacert: Option<PathBuf>,
    pub(super) insecure: bool,
    pub(super) map_hosts: Vec<String>,
}

impl AccessOptions {
    /// What the site needs on every request. Basic authentication comes from the flag, else
    /// the environment, else the config file, else the seed URL.
    pub(super) fn site_access(
        &self,
        seed_credentials: Option<BasicAuth>,
    ) -> anyhow::Result<SiteAccess> {
        let headers = self
            .headers
            .iter()
            .map(|text| {
                check_header_text("--header", text)?;
                SiteHeader::parse(text)
                    .map_err(|error| anyhow::anyhow!("invalid --header: {error}"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut cookies = Vec::new();
        for text in &self.cookies {
            check_header_text("--cookie", text)?;
            cookies.extend(
                SiteCookie::parse_list(text)
                    .map_err(|error| anyhow::anyhow!("invalid --cookie: {error}"))?,
            );
        }
        let basic_auth = match &self.basic_auth {
            Some((text, source)) => {
                if seed_credentials.is_some() {
                    tracing::info!(
                        "the seed URL's credentials are not used: {} gives others",
                        source.name()
                    );
                }
                check_header_text(source.name(), text)?;
                Some(
                    BasicAuth::parse(text)
                        .map_err(|error| anyhow::anyhow!("invalid {}: {error}", source.name()))?,
                )
            }
            None => seed_credentials,
        };
        let access = SiteAccess {
            headers,
            basic_auth,
            cookies,
        };
        access
            .check()
            .map_err(|error| anyhow::anyhow!("invalid --header: {error}"))?;
        Ok(access)
    }

    /// The proxy and the certificates trusted.
    pub(super) fn network(&self) -> anyhow::Result<NetworkOptions> {
        let proxy = self
            .proxy
            .as_deref()
            .map(|text| {
                parse_proxy(text).map_err(|error| anyhow::anyhow!("invalid --proxy: {error}"))
            })
            .transpose()?;
        let proxy_hosts = match &proxy {
            Some(proxy) => proxy.host_str().map(str::to_string).into_iter().collect(),
            None => environment_proxies()
                .iter()
                .filter_map(|(_, url)| url.host_str().map(str::to_string))
                .collect(),
        };
        let extra_roots = match &self.cacert {
            Some(path) => read_certificates(path)?,
            None => TrustedCertificates::default(),
        };
        Ok(NetworkOptions {
            proxy,
            proxy_hosts,
            extra_roots,
            accept_invalid_certificates: self.insecure,
        })
    }

    pub(super) fn host_map(&self) -> anyhow::Result<HostMap> {
        let mut map = HostMap::default();
        for text in &self.map_hosts {
            map.add(text)
                .map_err(|error| anyhow::anyhow!("invalid --map-host: {error}"))?;
        }
        Ok(map)
    }
}

/// Refuses a value sent in an HTTP header that holds a CR, an LF or a NUL: a line break would
/// end the header and begin another (header injection), and the HTTP client refuses all
/// three, which would end the run later as a failure rather than now as a usage error. The
/// error names the option and never repeats the value, which may be a secret. Where a value
/// is trimmed before use (a cookie's), a trailing line break is refused as well: it is a
/// mistake (a value pasted from a file), not whitespace.
pub(super) fn check_header_text(option: &str, text: &str) -> anyhow::Result<()> {
    let character = match text.chars().find(|c| matches!(c, '\r' | '\n' | '\0')) {
        Some('\r') => "a carriage return (CR)",
        Some('\n') => "a line feed (LF)",
        Some(_) => "a NUL character",
        None => return Ok(()),
    };
    bail!("invalid {option}: it holds {character}, which an HTTP header cannot")
}

/// The environment variable that holds `user:password` for the site: a secret kept out of
/// crontabs, shell histories and process lists.
pub(crate) const BASIC_AUTH_VARIABLE: &str = "SITEMAPPER_BASIC_AUTH";

/// Where credentials for basic authentication come from, in the order they are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CredentialSource {
    Flag,
    Environment,
    ConfigFile,
}

impl CredentialSource {
    fn name(self) -> &'static str {
        match self {
            CredentialSource::Flag => "--basic-auth",
            CredentialSource::Environment => BASIC_AUTH_VARIABLE,
            CredentialSource::ConfigFile => "basic-auth in the config file",
        }
    }
}

/// The flag, else the environment variable, else the config file; the seed URL's come last,
/// in `check`. An empty environment variable counts as unset.
pub(super) fn basic_auth_choice(
    flag: Option<String>,
    environment: Option<String>,
    file: Option<String>,
) -> Option<(String, CredentialSource)> {
    flag.map(|text| (text, CredentialSource::Flag))
        .or_else(|| {
            environment
                .filter(|text| !text.is_empty())
                .map(|text| (text, CredentialSource::Environment))
        })
        .or_else(|| file.map(|text| (text, CredentialSource::ConfigFile)))
}

/// The seed without the credentials it may carry (`https://user:password@host/`), and those
/// credentials, for basic authentication: the URL is used without them everywhere. A seed
/// that is no http(s) URL is kept for the crawler to refuse, with anything that looks like
/// credentials masked, since its error repeats it.
pub(super) fn seed_credentials(seed: &str) -> anyhow::Result<(String, Option<BasicAuth>)> {
    let parsed = Url::parse(seed.trim())
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"));
    let Some(mut url) = parsed else {
        return Ok((sitemapper_fleet::shown_url(seed), None));
    };
    if url.username().is_empty() && url.password().is_none() {
        return Ok((seed.to_string(), None));
    }
    let decode = |text: &str| {
        percent_encoding::percent_decode_str(text)
            .decode_utf8_lossy()
            .into_owned()
    };
    let credentials = BasicAuth::new(
        &decode(url.username()),
        &decode(url.password().unwrap_or_default()),
    )
    .map_err(|error| anyhow::anyhow!("invalid credentials in the seed URL: {error}"))?;
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Ok((url.to_string(), Some(credentials)))
}

/// The most a `--cacert` file is read: a bundle of every public root is a few hundred KiB.
const MAX_CERTIFICATE_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The certificates of a `--cacert` file (PEM): a regular file, at least one certificate,
/// each one valid.
fn read_certificates(path: &Path) -> anyhow::Result<TrustedCertificates> {
    let cannot_read = || format!("cannot read --cacert {}", path.display());
    let metadata = std::fs::metadata(path).with_context(cannot_read)?;
    if !metadata.is_file() || metadata.len() > MAX_CERTIFICATE_FILE_BYTES {
        bail!(
            "--cacert {} is not a PEM file of at most 16 MiB",
            path.display()
        );
    }
    let mut pem = Vec::new();
    std::fs::File::open(path)
        .with_context(cannot_read)?
        .take(MAX_CERTIFICATE_FILE_BYTES)
        .read_to_end(&mut pem)
        .with_context(cannot_read)?;
    TrustedCertificates::from_pem(&pem)
        .map_err(|error| anyhow::anyhow!("--cacert {}: {error}", path.display()))
}

#[cfg(test)]
mod tests;
