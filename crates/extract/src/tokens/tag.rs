//! What a tokenizer hands the collection: a start tag, read through one trait whatever
//! tokenizer read it, and the text mode it switches to.

/// A start tag as the tokenizer read it: its name (ASCII lowercased), attributes (the first
/// of a name counts) and whether it was written self-closing.
pub(crate) trait StartTag {
    fn name(&self) -> &str;
    fn attribute(&self, name: &str) -> Option<&str>;
    fn self_closing(&self) -> bool;
}

/// The tokenizer state a start tag switches to (HTML, "parsing HTML fragments": the elements
/// whose content is not markup).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextMode {
    /// `<title>`, `<textarea>`: text with character references.
    Rcdata,
    /// `<style>`, `<noscript>` (scripting is on in a browser), `<iframe>`, `<xmp>`...
    Rawtext,
    /// `<script>`.
    ScriptData,
    /// `<plaintext>`: the rest of the document.
    Plaintext,
}
