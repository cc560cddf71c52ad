//! URLs as a browser resolves them against a document: the query encoded in the document's
//! encoding.

use url::Url;

/// Resolves `reference` against `base` the way a browser does for this document: the query
/// is encoded in the document's encoding. Keeps only http(s), drops the fragment.
pub(crate) fn resolve(
    base: &Url,
    reference: &str,
    encoding: &'static encoding_rs::Encoding,
) -> Option<Url> {
    let reference = reference.trim_matches(|character: char| character.is_ascii_whitespace());
    if reference.is_empty() {
        return None;
    }
    let mut url = parse_in_encoding(base, reference, encoding)?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// Parses `reference` against `base`, encoding the query in the document's encoding.
pub(crate) fn parse_in_encoding(
    base: &Url,
    reference: &str,
    encoding: &'static encoding_rs::Encoding,
) -> Option<Url> {
    fn encoder<F: for<'x> Fn(&'x str) -> std::borrow::Cow<'x, [u8]>>(encode: F) -> F {
        encode
    }
    let encode = encoder(|text| encoding.encode(text).0);
    let encoding_override: url::EncodingOverride<'_> = if encoding == encoding_rs::UTF_8 {
        None
    } else {
        Some(&encode)
    };
    Url::options()
        .base_url(Some(base))
        .encoding_override(encoding_override)
        .parse(reference)
        .ok()
}
