//! TLS to PostgreSQL with rustls, as libpq's `sslmode` and `sslrootcert` mean it.
//!
//! | sslmode | TLS | certificate checked |
//! | --- | --- | --- |
//! | `disable` | never | — |
//! | `allow` | only when the server refuses a connection without it | only if a CA is given |
//! | `prefer` (default) | when the server offers it; without it if the handshake fails | only if a CA is given |
//! | `require` | always | only if a CA is given: then as `verify-ca` |
//! | `verify-ca` | always | signed by a trusted CA |
//! | `verify-full` | always | signed by a trusted CA, and for the host connected to |
//!
//! The CA is `sslrootcert` (a PEM file, or `system` for this machine's trusted CAs), else
//! `~/.postgresql/root.crt` when it exists. `sslrootcert=system` makes `verify-full` the default and
//! refuses a weaker mode, as libpq does: the system's CAs sign certificates for any host name.
//!
//! The glue between rustls and the client (`MakeTlsConnect`) is written here rather than taken from
//! a crate: the maintained one reads the certificate's signature algorithm with `x509-cert`, whose
//! `const-oid` 0.9 would be a second major version in the graph, for one OID that a few lines of DER
//! reading find; the other pins `sha2` 0.10 or needs a newer Rust than this workspace.

use std::fmt;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use sha2::Digest;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::{Error, Result};

/// The ALPN protocol PostgreSQL 17 servers expect (and require for `sslnegotiation=direct`); older
/// servers ignore it.
const ALPN_POSTGRESQL: &[u8] = b"postgresql";

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    const ALL: [Self; 6] = [
        Self::Disable,
        Self::Allow,
        Self::Prefer,
        Self::Require,
        Self::VerifyCa,
        Self::VerifyFull,
    ];

    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Allow => "allow",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == text)
    }
}

/// Where the trusted CAs come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Roots {
    /// None given: the certificate is not checked (`require`, `prefer`, `allow`).
    Unchecked,
    /// A PEM file: `sslrootcert=PATH`, or `~/.postgresql/root.crt` when none is given.
    File(PathBuf),
    /// `sslrootcert=system`: the CAs this machine trusts.
    System,
}

impl Roots {
    /// How a message names who should have signed: "the CA in /etc/ca.pem".
    pub(super) fn signer(&self) -> String {
        match self {
            Self::Unchecked => "a CA (none was given)".to_owned(),
            Self::File(path) => format!("the CA in {}", path.display()),
            Self::System => "a CA this system trusts (sslrootcert=system)".to_owned(),
        }
    }
}

/// The TLS half of a store URL: the mode, the CAs, and the connector built from them.
#[derive(Clone)]
pub(super) struct Tls {
    pub(super) mode: SslMode,
    pub(super) roots: Roots,
    connector: MakeRustls,
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tls")
            .field("mode", &self.mode)
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

impl Tls {
    /// Reads the URL's `sslmode` and `sslrootcert` and loads the CAs, so that a missing or unusable
    /// file is reported when the store is opened. `default_root` is `~/.postgresql/root.crt`.
    pub(super) fn new(
        sslmode: Option<&str>,
        sslrootcert: Option<&str>,
        default_root: Option<PathBuf>,
    ) -> Result<Self> {
        let system = sslrootcert == Some("system");
        let mode = match sslmode {
            None if system => SslMode::VerifyFull,
            None => SslMode::Prefer,
            Some(text) => SslMode::parse(text).ok_or_else(|| {
                Error::Config(format!(
                    "the store URL's sslmode is not one of {}; verify-full is the one that checks \
                     the server is who it says",
                    SslMode::ALL.map(SslMode::as_str).join(", ")
                ))
            })?,
        };
        if system && mode != SslMode::VerifyFull {
            return Err(Error::Config(format!(
                "sslrootcert=system needs sslmode=verify-full (or no sslmode): the system's CAs sign \
                 certificates for any host name, so without the host name check sslmode={} would \
                 trust any server with a public certificate",
                mode.as_str()
            )));
        }
        let roots = match sslrootcert {
            _ if mode == SslMode::Disable => Roots::Unchecked,
            Some("system") => Roots::System,
            Some("") => {
                return Err(Error::Config(
                    "the store URL's sslrootcert is empty; give the path of the CA's PEM file, or \
                     `system`"
                        .into(),
                ));
            }
            Some(path) => Roots::File(PathBuf::from(path)),
            None => match default_root.filter(|path| path.is_file()) {
                Some(path) => Roots::File(path),
                None if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) => {
                    return Err(Error::Config(format!(
                        "sslmode={} checks the server's certificate against a CA, and none was \
                         given; add sslrootcert=/path/to/ca.pem (for a managed server, the CA bundle \
                         its provider publishes), or sslrootcert=system to trust this machine's CAs",
                        mode.as_str()
                    )));
                }
                None => Roots::Unchecked,
            },
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = match &roots {
            Roots::Unchecked => Arc::new(AnyCertificate(provider.clone())),
            Roots::File(path) => webpki_verifier(load_file(path)?, &provider, mode)?,
            Roots::System => webpki_verifier(load_system()?, &provider, mode)?,
        };
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::Config(format!("cannot set up TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        config.alpn_protocols = vec![ALPN_POSTGRESQL.to_vec()];
        Ok(Self {
            mode,
            roots,
            connector: MakeRustls {
                config: Arc::new(config),
            },
        })
    }

    /// The connector the client calls when the server agrees to TLS.
    pub(super) fn connector(&self) -> MakeRustls {
        self.connector.clone()
    }
}

fn webpki_verifier(
    roots: RootCertStore,
    provider: &Arc<CryptoProvider>,
    mode: SslMode,
) -> Result<Arc<dyn ServerCertVerifier>> {
    let full = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| Error::Config(format!("cannot set up TLS certificate checks: {e}")))?;
    Ok(match mode {
        SslMode::VerifyFull => full,
        // libpq: with a CA, `require` (and `prefer`, `allow`) check what `verify-ca` checks.
        SslMode::Disable
        | SslMode::Allow
        | SslMode::Prefer
        | SslMode::Require
        | SslMode::VerifyCa => Arc::new(CaOnly(full)),
    })
}

fn load_file(path: &Path) -> Result<RootCertStore> {
    let shown = path.display();
    let pem = std::fs::read(path).map_err(|e| {
        Error::Config(format!(
            "cannot read the store URL's sslrootcert {shown}: {e}; give the path of the PEM file \
             holding the CA certificate that signed the server's (or sslrootcert=system)"
        ))
    })?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::Config(format!(
                "sslrootcert {shown} is not a valid PEM file ({e}); give the CA certificate in PEM \
                 form (-----BEGIN CERTIFICATE-----)"
            ))
        })?;
    if certs.is_empty() {
        return Err(Error::Config(format!(
            "sslrootcert {shown} holds no PEM certificate (no -----BEGIN CERTIFICATE----- block); a \
             DER file converts with `openssl x509 -inform der -in ca.der -out ca.pem`"
        )));
    }
    let mut roots = RootCertStore::empty();
    let (added, ignored) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(Error::Config(format!(
            "none of the {ignored} certificates in sslrootcert {shown} can serve as a CA (they do \
             not parse as X.509); give the CA certificate that signed the server's"
        )));
    }
    Ok(roots)
}

fn load_system() -> Result<RootCertStore> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        let why = found
            .errors
            .first()
            .map(|e| format!(" ({e})"))
            .unwrap_or_default();
        return Err(Error::Config(format!(
            "sslrootcert=system found no trusted CA certificates on this machine{why}; install the \
             system's CA bundle (the ca-certificates package), point SSL_CERT_FILE at one, or give \
             sslrootcert=/path/to/ca.pem"
        )));
    }
    Ok(roots)
}

/// Checks the handshake's signatures and nothing of the certificate: `require` (and `prefer`,
/// `allow`) with no CA keep out eavesdroppers, not an impostor, as in libpq.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The chain up to a trusted CA, not the host name: `verify-ca`.
#[derive(Debug)]
struct CaOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for CaOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            // The name is checked only once the chain (and the validity period) passed, so a
            // name error says everything else is right.
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// What went wrong in a TLS handshake, in terms a message can explain.
#[derive(Debug)]
pub(super) enum TlsFailure {
    /// The certificate does not lead to a trusted CA, or a signature on the way is wrong.
    Untrusted,
    /// The certificate is for other names than the host connected to.
    NameMismatch {
        host: String,
        presented: Vec<String>,
    },
    Expired {
        not_after: Option<UnixTime>,
    },
    NotYetValid,
    /// The host (a Unix socket, or not a valid DNS name or IP address) cannot be checked.
    NoHostName,
    /// Any other refusal by rustls or the server (a protocol version, an alert).
    Handshake(rustls::Error),
    /// The connection broke during the handshake.
    Io(io::Error),
}

impl TlsFailure {
    fn from_io(host: &str, err: io::Error) -> Self {
        let Some(tls) = err
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        else {
            return Self::Io(err);
        };
        match tls {
            rustls::Error::InvalidCertificate(cert) => match cert {
                CertificateError::UnknownIssuer | CertificateError::BadSignature => Self::Untrusted,
                CertificateError::NotValidForName => Self::NameMismatch {
                    host: host.to_owned(),
                    presented: Vec::new(),
                },
                CertificateError::NotValidForNameContext { presented, .. } => Self::NameMismatch {
                    host: host.to_owned(),
                    presented: presented.iter().map(|name| general_name(name)).collect(),
                },
                CertificateError::ExpiredContext { not_after, .. } => Self::Expired {
                    not_after: Some(*not_after),
                },
                CertificateError::Expired => Self::Expired { not_after: None },
                CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                    Self::NotYetValid
                }
                _ => Self::Handshake(tls.clone()),
            },
            _ => Self::Handshake(tls.clone()),
        }
    }
}

/// `DnsName("db.example.com")` → `db.example.com`, `IpAddress(10.0.0.5)` → `10.0.0.5`.
fn general_name(name: &str) -> String {
    name.strip_prefix("DnsName(\"")
        .and_then(|n| n.strip_suffix("\")"))
        .or_else(|| {
            name.strip_prefix("IpAddress(")
                .and_then(|n| n.strip_suffix(')'))
        })
        .unwrap_or(name)
        .to_owned()
}

impl fmt::Display for TlsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Untrusted => f.write_str("certificate not trusted"),
            Self::NameMismatch { host, presented } if presented.is_empty() => {
                write!(f, "the server's certificate is not for {host}")
            }
            Self::NameMismatch { host, presented } => write!(
                f,
                "the server's certificate is for {}, not {host}",
                presented.join(", ")
            ),
            Self::Expired {
                not_after: Some(at),
            } => write!(
                f,
                "the server's certificate expired at {}",
                crate::figures::utc_time(
                    i64::try_from(at.as_secs())
                        .unwrap_or(i64::MAX / 1000)
                        .saturating_mul(1000)
                )
            ),
            Self::Expired { not_after: None } => {
                f.write_str("the server's certificate has expired")
            }
            Self::NotYetValid => f.write_str("the server's certificate is not valid yet"),
            Self::NoHostName => f.write_str("no host name to check the certificate against"),
            Self::Handshake(err) => write!(f, "{err}"),
            Self::Io(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for TlsFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(err) => Some(err),
            Self::Untrusted
            | Self::NameMismatch { .. }
            | Self::Expired { .. }
            | Self::NotYetValid
            | Self::NoHostName
            | Self::Handshake(_) => None,
        }
    }
}

/// Makes a TLS connector for each host the client connects to.
#[derive(Clone)]
pub(super) struct MakeRustls {
    config: Arc<ClientConfig>,
}

impl<S> MakeTlsConnect<S> for MakeRustls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type TlsConnect = RustlsConnect;
    type Error = TlsFailure;

    /// Never fails: the client asks for a connector before it knows whether TLS will be used (a
    /// Unix socket passes an empty name), so a name that cannot be checked fails the handshake.
    fn make_tls_connect(&mut self, domain: &str) -> std::result::Result<RustlsConnect, TlsFailure> {
        Ok(RustlsConnect {
            connector: tokio_rustls::TlsConnector::from(self.config.clone()),
            name: ServerName::try_from(domain.to_owned()).ok(),
            host: domain.to_owned(),
        })
    }
}

pub(super) struct RustlsConnect {
    connector: tokio_rustls::TlsConnector,
    name: Option<ServerName<'static>>,
    host: String,
}

type Handshake<S> =
    Pin<Box<dyn Future<Output = std::result::Result<RustlsStream<S>, TlsFailure>> + Send>>;

impl<S> TlsConnect<S> for RustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type Error = TlsFailure;
    type Future = Handshake<S>;

    fn connect(self, stream: S) -> Handshake<S> {
        Box::pin(async move {
            let name = self.name.ok_or(TlsFailure::NoHostName)?;
            self.connector
                .connect(name, stream)
                .await
                .map(RustlsStream)
                .map_err(|err| TlsFailure::from_io(&self.host, err))
        })
    }
}

/// A TLS connection to the server.
pub(super) struct RustlsStream<S>(tokio_rustls::client::TlsStream<S>);

impl<S> TlsStream for RustlsStream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    /// SCRAM's `tls-server-end-point` binding: the login is tied to this TLS session, so a server
    /// in the middle cannot pass it on.
    fn channel_binding(&self) -> ChannelBinding {
        let (_, session) = self.0.get_ref();
        session
            .peer_certificates()
            .and_then(|certs| certs.first())
            .and_then(|cert| end_point_hash(cert))
            .map_or_else(ChannelBinding::none, ChannelBinding::tls_server_end_point)
    }
}

impl<S> AsyncRead for RustlsStream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S> AsyncWrite for RustlsStream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// RFC 5929 `tls-server-end-point`: the server's certificate hashed with the hash of its own
/// signature algorithm, SHA-256 in place of MD5 and SHA-1. `None` for algorithms without one hash
/// (Ed25519, RSA-PSS), which the server cannot bind either; the login then goes without binding.
fn end_point_hash(cert: &[u8]) -> Option<Vec<u8>> {
    // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE, signatureAlgorithm SEQUENCE { OID, … }, … }
    let (certificate, _) = der_element(cert, 0x30)?;
    let (_to_be_signed, rest) = der_element(certificate, 0x30)?;
    let (algorithm, _) = der_element(rest, 0x30)?;
    let (oid, _) = der_element(algorithm, 0x06)?;
    const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01];
    const ECDSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04];
    let hash = |bits: u16| -> Vec<u8> {
        match bits {
            224 => sha2::Sha224::digest(cert).to_vec(),
            384 => sha2::Sha384::digest(cert).to_vec(),
            512 => sha2::Sha512::digest(cert).to_vec(),
            _ => sha2::Sha256::digest(cert).to_vec(),
        }
    };
    let bits = if let Some(last) = oid.strip_prefix(RSA) {
        match last {
            // md5, sha1, sha256 with RSA
            [0x04] | [0x05] | [0x0b] => 256,
            [0x0c] => 384,
            [0x0d] => 512,
            [0x0e] => 224,
            _ => return None,
        }
    } else if let Some(last) = oid.strip_prefix(ECDSA) {
        match last {
            // ecdsa-with-SHA1, ecdsa-with-SHA256
            [0x01] | [0x03, 0x02] => 256,
            [0x03, 0x01] => 224,
            [0x03, 0x03] => 384,
            [0x03, 0x04] => 512,
            _ => return None,
        }
    } else {
        return None;
    };
    Some(hash(bits))
}

/// The contents of the DER element with `tag` at the start of `der`, and what follows it.
fn der_element(der: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&first, rest) = der.split_first()?;
    if first != tag {
        return None;
    }
    let (&short, rest) = rest.split_first()?;
    let (len, rest) = if short < 0x80 {
        (usize::from(short), rest)
    } else {
        let width = usize::from(short & 0x7f);
        if width == 0 || width > 4 || rest.len() < width {
            return None;
        }
        let (digits, rest) = rest.split_at(width);
        let len = digits
            .iter()
            .fold(0usize, |len, &byte| (len << 8) | usize::from(byte));
        (len, rest)
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A certificate's outline: tbsCertificate (empty), then the signature algorithm.
    fn outline(oid: &[u8]) -> Vec<u8> {
        let mut algorithm = vec![0x06, oid.len() as u8];
        algorithm.extend_from_slice(oid);
        let mut inner = vec![0x30, 0x00, 0x30, algorithm.len() as u8];
        inner.extend(algorithm);
        let mut cert = vec![0x30, 0x81, inner.len() as u8];
        cert.extend(inner);
        cert
    }

    #[test]
    fn channel_binding_hashes_with_the_certificates_own_hash() {
        let ecdsa_sha384 = outline(&[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]);
        assert_eq!(end_point_hash(&ecdsa_sha384).map(|h| h.len()), Some(48));
        // SHA-1 is raised to SHA-256.
        let rsa_sha1 = outline(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05]);
        assert_eq!(
            end_point_hash(&rsa_sha1),
            Some(sha2::Sha256::digest(&rsa_sha1).to_vec())
        );
        // Ed25519 has no hash of its own to bind with.
        assert_eq!(end_point_hash(&outline(&[0x2b, 0x65, 0x70])), None);
        assert_eq!(end_point_hash(&[0x30, 0x85, 0xff]), None);
        assert_eq!(end_point_hash(&[]), None);
    }

    #[test]
    fn modes_and_roots_follow_libpq() {
        let mode = |sslmode: Option<&str>, root: Option<&str>| {
            Tls::new(sslmode, root, None).map(|tls| (tls.mode, tls.roots))
        };
        assert_eq!(
            mode(None, None).unwrap(),
            (SslMode::Prefer, Roots::Unchecked)
        );
        assert_eq!(
            mode(None, Some("system")).unwrap(),
            (SslMode::VerifyFull, Roots::System)
        );
        let weak = mode(Some("require"), Some("system"))
            .unwrap_err()
            .to_string();
        assert!(
            weak.contains("sslrootcert=system needs sslmode=verify-full"),
            "{weak}"
        );
        let unknown = mode(Some("verify_full"), None).unwrap_err().to_string();
        assert!(unknown.contains("verify-ca, verify-full"), "{unknown}");
        let no_ca = mode(Some("verify-ca"), None).unwrap_err().to_string();
        assert!(
            no_ca.contains("add sslrootcert=/path/to/ca.pem")
                && no_ca.contains("sslrootcert=system"),
            "{no_ca}"
        );
        let missing = mode(Some("require"), Some("/nonexistent/ca.pem"))
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("cannot read the store URL's sslrootcert /nonexistent/ca.pem"),
            "{missing}"
        );
        // With TLS off, the CA is not read at all.
        assert_eq!(
            mode(Some("disable"), Some("/nonexistent/ca.pem")).unwrap(),
            (SslMode::Disable, Roots::Unchecked)
        );
    }

    #[test]
    fn the_default_root_file_is_used_when_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let default = dir.path().join("root.crt");
        // Missing: verify-full says what to give.
        let err = Tls::new(Some("verify-full"), None, Some(default.clone()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("none was given"), "{err}");
        std::fs::write(&default, "not a certificate\n").unwrap();
        let err = Tls::new(Some("require"), None, Some(default.clone()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("holds no PEM certificate"), "{err}");
    }
}
