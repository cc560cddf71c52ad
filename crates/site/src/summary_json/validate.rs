//! A check of sitemaps, counted and as data (`sitemapper validate --summary json`).

use serde::Serialize;

use crate::sitemap_check::{Checked, ProblemGroup, SitemapChecked};

/// What a check of sitemaps found, counted as it goes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CheckTally {
    /// Files read (or tried).
    pub files: usize,
    /// Their entries: `<url>`s, and an index's `<sitemap>`s.
    pub entries: usize,
    /// Problems found, each occurrence counted.
    pub problems: usize,
    /// Warnings found, each occurrence counted.
    pub warnings: usize,
}

impl CheckTally {
    /// Counts one sitemap checked, and its problems.
    pub fn add(&mut self, checked: &Checked) {
        self.files += 1;
        self.entries += checked.sitemap.entries;
        for group in &checked.problems {
            if group.is_warning() {
                self.warnings += group.count;
            } else {
                self.problems += group.count;
            }
        }
    }
}

/// The fields of `sitemapper validate --summary json` after the envelope.
#[derive(Debug, Serialize)]
pub struct ValidateJson<'a> {
    target: &'a str,
    valid: bool,
    files: usize,
    entries: usize,
    /// Problems found, each occurrence counted.
    problem_count: usize,
    /// Warnings found, each occurrence counted.
    warning_count: usize,
    sitemaps: &'a [SitemapChecked],
    /// Each kind of problem once per file, errors and warnings.
    problems: &'a [ProblemGroup],
}

impl<'a> ValidateJson<'a> {
    /// The check of `target`: what was counted, every sitemap read and every problem.
    pub fn new(
        target: &'a str,
        tally: CheckTally,
        sitemaps: &'a [SitemapChecked],
        problems: &'a [ProblemGroup],
    ) -> ValidateJson<'a> {
        ValidateJson {
            target,
            valid: tally.problems == 0,
            files: tally.files,
            entries: tally.entries,
            problem_count: tally.problems,
            warning_count: tally.warnings,
            sitemaps,
            problems,
        }
    }
}
