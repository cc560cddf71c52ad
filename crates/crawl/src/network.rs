//! How the crawler reaches the network: through which proxy, and trusting which TLS
//! certificates (the platform's, a private CA's given with `--cacert`, or with `--insecure`
//! any at all).

use std::fmt;
use std::sync::Arc;

use rustls::DigitallySignedStruct;
use rustls::SignatureScheme;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use url::Url;

use crate::error::InvalidSetting;

/// The proxy schemes a request can go through.
const PROXY_SCHEMES: &[&str] = &["http", "https", "socks5", "socks5h"];

/// Proxy and TLS settings of every HTTP client the crawl builds. Its `Debug` shows the
/// proxy without its credentials.
#[derive(Clone, Default)]
pub struct NetworkOptions {
    /// Every request goes through this proxy (`NO_PROXY` still applies). `None`: the
    /// environment's `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` decide.
    pub proxy: Option<Url>,
    /// The hosts of the proxies in use: the user chose them, so the private-address policy
    /// does not apply to the connection to them (it applies to the URLs requested through
    /// them, as far as they are address literals: the proxy resolves names).
    pub proxy_hosts: Vec<String>,
    /// Certificates trusted besides the platform's (a private CA).
    pub extra_roots: TrustedCertificates,
    /// Accept any certificate (`--insecure`): signatures are still checked, so the connection
    /// is encrypted, but to whoever answers.
    pub accept_invalid_certificates: bool,
}

impl fmt::Debug for NetworkOptions {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("NetworkOptions")
            .field("proxy", &self.proxy.as_ref().map(shown_proxy))
            .field("proxy_hosts", &self.proxy_hosts)
            .field("extra_roots", &self.extra_roots)
            .field(
                "accept_invalid_certificates",
                &self.accept_invalid_certificates,
            )
            .finish()
    }
}

impl NetworkOptions {
    /// These options, with certificates checked whatever `--insecure` says: for requests
    /// that leave the site (IndexNow), which must not trust just anyone.
    pub fn verifying(&self) -> NetworkOptions {
        NetworkOptions {
            accept_invalid_certificates: false,
            ..self.clone()
        }
    }
}

/// A proxy URL as the user gives it: `http://`, `https://`, `socks5://` (names resolved
/// here) or `socks5h://` (names resolved by the proxy), with a host and nothing after it.
pub fn parse_proxy(text: &str) -> Result<Url, InvalidSetting> {
    let url = Url::parse(text.trim())
        .map_err(|error| InvalidSetting::new(format!("not a URL ({error})")))?;
    if !PROXY_SCHEMES.contains(&url.scheme()) {
        return Err(InvalidSetting::new(format!(
            "{}:// is not a proxy scheme sitemapper speaks (http, https, socks5, socks5h)",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(InvalidSetting::new("the proxy URL names no host"));
    }
    Ok(url)
}

/// The proxies the environment names (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, in upper or
/// lower case, as reqwest reads them), with the variable that names each.
pub fn environment_proxies() -> Vec<(String, Url)> {
    [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ]
    .iter()
    .filter_map(|name| {
        let value = std::env::var(name).ok().filter(|value| !value.is_empty())?;
        // reqwest takes a proxy without a scheme for http://.
        let url = Url::parse(&value)
            .ok()
            .filter(|url| url.host_str().is_some())
            .or_else(|| Url::parse(&format!("http://{value}")).ok())?;
        Some((name.to_string(), url))
    })
    .collect()
}

/// A proxy URL fit to be shown: without its credentials.
pub fn shown_proxy(url: &Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string().trim_end_matches('/').to_string()
}

/// Certificates trusted besides the platform's.
#[derive(Clone, Default)]
pub struct TrustedCertificates(Vec<CertificateDer<'static>>);

impl TrustedCertificates {
    /// The certificates of a PEM file: at least one, each one a certificate rustls can use
    /// as a trust anchor.
    pub fn from_pem(pem: &[u8]) -> Result<TrustedCertificates, InvalidSetting> {
        let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<_, _>>()
            .map_err(|error| InvalidSetting::new(format!("not a PEM file ({error})")))?;
        if certificates.is_empty() {
            return Err(InvalidSetting::new(
                "holds no certificate (-----BEGIN CERTIFICATE-----)",
            ));
        }
        let mut store = rustls::RootCertStore::empty();
        for (index, certificate) in certificates.iter().enumerate() {
            store.add(certificate.clone()).map_err(|error| {
                InvalidSetting::new(format!("certificate {} is invalid ({error})", index + 1))
            })?;
        }
        Ok(TrustedCertificates(certificates))
    }

    /// How many certificates.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for TrustedCertificates {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "TrustedCertificates({})", self.0.len())
    }
}

/// The TLS configuration reqwest 0.13 builds by default (`ClientBuilder::build`: the
/// platform's certificate verifier and root certificates, every TLS version rustls has, ALPN
/// `h2` then `http/1.1`), with ring as the crypto provider of this configuration alone, and
/// the extra roots or the acceptance of any certificate that `network` asks for. reqwest is
/// built without a crypto provider of its own, and would otherwise need a process-wide
/// default installed, which is not for a library to set.
pub(crate) fn tls_config(network: &NetworkOptions) -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = if network.accept_invalid_certificates {
        Arc::new(AnyCertificate {
            algorithms: provider.signature_verification_algorithms,
        })
    } else {
        Arc::new(rustls_platform_verifier::Verifier::new_with_extra_roots(
            network.extra_roots.0.iter().cloned(),
            Arc::clone(&provider),
        )?)
    };
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(rustls::ALL_VERSIONS)?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// `--insecure`: any certificate is accepted, whoever it names and whoever signed it. The
/// handshake's signatures are still verified with the crypto provider, so the connection is
/// encrypted to the holder of the certificate's key.
#[derive(Debug)]
struct AnyCertificate {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, certificate, signature, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, certificate, signature, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxies_are_http_https_or_socks5_urls() {
        for good in [
            "http://proxy:3128",
            "https://proxy.example",
            "socks5://127.0.0.1:1080",
            "socks5h://u:p@proxy:1080",
        ] {
            assert!(parse_proxy(good).is_ok(), "{good}");
        }
        for bad in ["proxy:3128", "ftp://proxy", "socks4://p:1", "http://"] {
            assert!(parse_proxy(bad).is_err(), "{bad}");
        }
        let with_credentials =
            parse_proxy("http://user:pw@proxy:3128/").unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(shown_proxy(&with_credentials), "http://proxy:3128");
        let network = NetworkOptions {
            proxy: Some(with_credentials),
            ..NetworkOptions::default()
        };
        assert!(!format!("{network:?}").contains("pw"));
    }

    #[test]
    fn a_pem_file_must_hold_valid_certificates() {
        assert!(TrustedCertificates::from_pem(b"").is_err());
        assert!(TrustedCertificates::from_pem(b"hello").is_err());
        let garbage = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        assert!(TrustedCertificates::from_pem(garbage).is_err());
    }

    #[test]
    fn every_configuration_builds() {
        for insecure in [false, true] {
            let network = NetworkOptions {
                accept_invalid_certificates: insecure,
                ..NetworkOptions::default()
            };
            let config = tls_config(&network).unwrap_or_else(|error| panic!("{error}"));
            assert_eq!(
                config.alpn_protocols,
                [b"h2".to_vec(), b"http/1.1".to_vec()]
            );
        }
    }
}
