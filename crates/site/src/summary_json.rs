//! The summaries of the commands as data (`--summary json`, docs/summary-json.md): the
//! envelope every one starts with, then the crawl's, the runs' and the validation's own
//! fields. The binary prints them; the audit's adds its findings to the crawl's.

pub(crate) mod crawl;
pub(crate) mod envelope;
pub(crate) mod runs;
pub(crate) mod validate;
