//! TLS to PostgreSQL as libpq does it: `sslmode=prefer` (the default) and `require` encrypt
//! without checking the server's certificate; `verify-ca` and `verify-full` check it against
//! the platform's roots.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::error::QueueError;

/// The connection settings of `url`, and the TLS that goes with its `sslmode`.
pub(super) fn configure(
    url: &str,
) -> Result<(tokio_postgres::Config, MakeRustlsConnect), QueueError> {
    // tokio-postgres knows disable, prefer and require; the verifying modes are read here.
    let verify = ["sslmode=verify-full", "sslmode=verify-ca"]
        .into_iter()
        .find(|mode| url.contains(mode));
    let url = verify.map_or_else(
        || url.to_string(),
        |mode| url.replace(mode, "sslmode=require"),
    );
    let config: tokio_postgres::Config = url
        .parse()
        .map_err(|error: tokio_postgres::Error| QueueError::Url(error.to_string()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = if verify.is_some() {
        Arc::new(
            rustls_platform_verifier::Verifier::new(Arc::clone(&provider))
                .map_err(|error| QueueError::Tls(error.to_string()))?,
        )
    } else {
        Arc::new(Unverified {
            algorithms: provider.signature_verification_algorithms,
        })
    };
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| QueueError::Tls(error.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok((config, MakeRustlsConnect::new(tls)))
}

/// Any certificate, as libpq's `prefer` and `require`: the connection is encrypted to the
/// holder of the certificate's key (the handshake's signatures are verified), whoever it is.
#[derive(Debug)]
struct Unverified {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Unverified {
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
