//! [`Untouched`]: what a run that failed left as it was (the sitemap an earlier run published,
//! or nothing printed), for the end of its error line. A leaf: it names nothing else of the
//! crate.

use std::path::PathBuf;

/// What a run that failed left as it was, for the end of its error line: the sitemap an
/// earlier run published, or (with stdout) nothing printed. A first run has published
/// nothing that could be kept, and says nothing of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untouched {
    /// The root file an earlier run published.
    Sitemap(PathBuf),
    /// The run writes to stdout, and printed nothing.
    NothingPrinted,
    /// No sitemap was there to keep.
    Nothing,
}

impl Untouched {
    /// What the run left as it was after `separator` (`"; "`), or nothing when it left
    /// nothing.
    pub fn after(&self, separator: &str) -> String {
        match self {
            Untouched::Sitemap(path) => {
                format!("{separator}{} left as it was", path.display())
            }
            Untouched::NothingPrinted => format!("{separator}nothing printed"),
            Untouched::Nothing => String::new(),
        }
    }
}
