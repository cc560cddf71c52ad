//! A finding and the thresholds that flag a page: the vocabulary every check speaks, with
//! nothing of the checks themselves.

use crate::kind::FindingKind;

/// One problem, where it is, and who links there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What is wrong.
    pub kind: FindingKind,
    /// The URL it is wrong with.
    pub url: String,
    /// The particulars, for a reader: a status, a chain of redirects, the other pages.
    pub detail: String,
    /// Pages of the run that link to `url`, sorted (for findings about link targets).
    pub referrers: Vec<String>,
}

/// The limits beyond which a page is flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Clicks from the start page.
    pub max_depth: u32,
    /// Response time, body included, in milliseconds.
    pub slow_ms: u64,
    /// Body size after decompression, in bytes.
    pub large_bytes: u64,
    /// Titles longer than this many characters are cut off in search results.
    pub title_max_chars: usize,
    /// Titles shorter than this many characters say too little.
    pub title_min_chars: usize,
    /// Meta descriptions longer than this many characters are cut off in search results.
    pub description_max_chars: usize,
    /// Meta descriptions shorter than this many characters say too little.
    pub description_min_chars: usize,
    /// A main heading longer than this many characters dilutes it.
    pub h1_max_chars: usize,
    /// Listed pages with fewer words of visible text are thin.
    pub thin_words: u32,
    /// Listed pages whose text's simhashes are at most this many bits apart (of 64) are near
    /// duplicates; 0 turns the check off.
    pub near_duplicate_bits: u32,
    /// URLs longer than this many characters are too long.
    pub url_max_chars: usize,
    /// URLs with more query parameters than this have too many.
    pub url_max_parameters: usize,
    /// Image files bigger than this many bytes are large.
    pub large_image_bytes: u64,
    /// Listed pages whose HTML and the resources of the site they load weigh more than this
    /// many bytes are heavy.
    pub heavy_bytes: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            max_depth: 4,
            slow_ms: 1_500,
            large_bytes: 1024 * 1024,
            title_max_chars: 60,
            title_min_chars: 30,
            description_max_chars: 155,
            description_min_chars: 70,
            h1_max_chars: 70,
            thin_words: 200,
            near_duplicate_bits: 6,
            url_max_chars: 115,
            url_max_parameters: 3,
            large_image_bytes: 200 * 1024,
            heavy_bytes: 3 * 1024 * 1024,
        }
    }
}

/// A finding of `kind` about `url`, with no referrers yet.
pub(crate) fn finding(kind: FindingKind, url: &str, detail: String) -> Finding {
    Finding {
        kind,
        url: url.to_string(),
        detail,
        referrers: Vec::new(),
    }
}

/// A threshold `--threshold NAME=VALUE` sets: its name, what it limits, its range, and where
/// it is kept.
#[derive(Debug)]
pub struct ThresholdOption {
    /// Its name, as `--threshold` takes it.
    pub name: &'static str,
    /// What it limits, in words.
    pub meaning: &'static str,
    /// The least value taken.
    pub min: u64,
    /// The greatest value taken.
    pub max: u64,
    get: fn(&Thresholds) -> u64,
    set: fn(&mut Thresholds, u64),
}

impl ThresholdOption {
    /// Its value in `thresholds`.
    pub fn value(&self, thresholds: &Thresholds) -> u64 {
        (self.get)(thresholds)
    }
}

/// The thresholds `--threshold` sets (`--deep`, `--slow` and `--large` have flags of their
/// own), in the order docs/audit.md lists them.
pub const THRESHOLD_OPTIONS: [ThresholdOption; 11] = [
    ThresholdOption {
        name: "title-max-chars",
        meaning: "titles longer are cut off in search results (title-too-long)",
        min: 1,
        max: 10_000,
        get: |thresholds| thresholds.title_max_chars as u64,
        set: |thresholds, value| thresholds.title_max_chars = value as usize,
    },
    ThresholdOption {
        name: "title-min-chars",
        meaning: "titles shorter say too little (title-too-short)",
        min: 0,
        max: 10_000,
        get: |thresholds| thresholds.title_min_chars as u64,
        set: |thresholds, value| thresholds.title_min_chars = value as usize,
    },
    ThresholdOption {
        name: "description-max-chars",
        meaning: "meta descriptions longer are cut off (description-too-long)",
        min: 1,
        max: 10_000,
        get: |thresholds| thresholds.description_max_chars as u64,
        set: |thresholds, value| thresholds.description_max_chars = value as usize,
    },
    ThresholdOption {
        name: "description-min-chars",
        meaning: "meta descriptions shorter say too little (description-too-short)",
        min: 0,
        max: 10_000,
        get: |thresholds| thresholds.description_min_chars as u64,
        set: |thresholds, value| thresholds.description_min_chars = value as usize,
    },
    ThresholdOption {
        name: "h1-max-chars",
        meaning: "main headings longer dilute it (h1-too-long)",
        min: 1,
        max: 10_000,
        get: |thresholds| thresholds.h1_max_chars as u64,
        set: |thresholds, value| thresholds.h1_max_chars = value as usize,
    },
    ThresholdOption {
        name: "thin-words",
        meaning: "listed pages with fewer words of visible text are thin (thin-page)",
        min: 0,
        max: 1_000_000,
        get: |thresholds| u64::from(thresholds.thin_words),
        set: |thresholds, value| thresholds.thin_words = value as u32,
    },
    ThresholdOption {
        name: "near-duplicate-bits",
        meaning: "listed pages whose text's simhashes are at most this many bits apart of 64 are near duplicates (6: about 95% alike); 0 turns the check off (near-duplicate)",
        min: 0,
        max: 7,
        get: |thresholds| u64::from(thresholds.near_duplicate_bits),
        set: |thresholds, value| thresholds.near_duplicate_bits = value as u32,
    },
    ThresholdOption {
        name: "url-max-chars",
        meaning: "URLs longer are too long (url-too-long)",
        min: 1,
        max: 100_000,
        get: |thresholds| thresholds.url_max_chars as u64,
        set: |thresholds, value| thresholds.url_max_chars = value as usize,
    },
    ThresholdOption {
        name: "url-max-parameters",
        meaning: "URLs with more query parameters have too many (url-many-parameters)",
        min: 0,
        max: 1_000,
        get: |thresholds| thresholds.url_max_parameters as u64,
        set: |thresholds, value| thresholds.url_max_parameters = value as usize,
    },
    ThresholdOption {
        name: "large-image-bytes",
        meaning: "image files bigger are large (large-image)",
        min: 0,
        max: 1 << 40,
        get: |thresholds| thresholds.large_image_bytes,
        set: |thresholds, value| thresholds.large_image_bytes = value,
    },
    ThresholdOption {
        name: "heavy-page-bytes",
        meaning: "listed pages whose HTML and resources of the site weigh more are heavy (heavy-page)",
        min: 0,
        max: 1 << 40,
        get: |thresholds| thresholds.heavy_bytes,
        set: |thresholds, value| thresholds.heavy_bytes = value,
    },
];

impl Thresholds {
    /// Sets each of `settings` in turn (a later one wins); the error names the first wrong
    /// one, as `--threshold` would have it.
    pub fn set_all<'a>(
        &mut self,
        settings: impl IntoIterator<Item = &'a String>,
    ) -> Result<(), String> {
        settings
            .into_iter()
            .try_for_each(|setting| self.set(setting))
            .map_err(|problem| format!("--threshold {problem}"))
    }

    /// Sets a threshold from `NAME=VALUE`, as `--threshold` takes it; the error says what is
    /// wrong in one line.
    pub fn set(&mut self, setting: &str) -> Result<(), String> {
        let Some((name, value)) = setting.split_once('=') else {
            return Err(format!("{setting:?} is not NAME=VALUE"));
        };
        let (name, value) = (name.trim(), value.trim());
        let Some(option) = THRESHOLD_OPTIONS.iter().find(|option| option.name == name) else {
            let names: Vec<&str> = THRESHOLD_OPTIONS.iter().map(|option| option.name).collect();
            return Err(format!(
                "no threshold {name:?}: the thresholds are {}",
                names.join(", ")
            ));
        };
        match value.replace('_', "").parse::<u64>() {
            Ok(number) if (option.min..=option.max).contains(&number) => {
                (option.set)(self, number);
                Ok(())
            }
            _ => Err(format!(
                "{name}={value}: the value is a whole number from {} to {}",
                option.min, option.max
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_is_set_by_name_within_its_range_and_every_name_reads_back() {
        let mut thresholds = Thresholds::default();
        thresholds.set("thin-words=150").unwrap();
        assert_eq!(thresholds.thin_words, 150);
        thresholds.set(" heavy-page-bytes = 2_000_000 ").unwrap();
        assert_eq!(thresholds.heavy_bytes, 2_000_000);
        assert!(
            thresholds
                .set("near-duplicate-bits=9")
                .unwrap_err()
                .contains("from 0 to 7")
        );
        assert!(
            thresholds
                .set("thin=3")
                .unwrap_err()
                .contains("no threshold \"thin\"")
        );
        assert!(
            thresholds
                .set("thin-words")
                .unwrap_err()
                .contains("NAME=VALUE")
        );
        for option in &THRESHOLD_OPTIONS {
            let mut changed = Thresholds::default();
            let value = option.min.max(1).min(option.max);
            changed.set(&format!("{}={value}", option.name)).unwrap();
            assert_eq!(option.value(&changed), value, "{}", option.name);
        }
    }
}
