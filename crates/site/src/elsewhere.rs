//! Pages whose canonical names another host: not listed, and the likeliest reason a staging
//! copy lists nothing. Explained in the error of a run that found nothing to list, and in the
//! summary.

use std::collections::BTreeMap;

use sitemapper_crawl::{HostMap, suggested_mapping};
use sitemapper_store::{RunId, Store, StoreError};
use url::Url;

use crate::counted::count;

/// Pages whose canonical names one other host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalsElsewhere {
    /// How many pages.
    pub pages: u64,
    /// One of their canonicals (the first in URL order), for the other host's origin.
    pub example: Url,
    /// The crawl's scope, which the canonicals leave.
    pub scope_root: Url,
}

impl CanonicalsElsewhere {
    /// The explanation, and with no host mapped, the mapping that would list them.
    pub fn explain(&self, host_map: &HostMap) -> String {
        let host = self.example.host_str().unwrap_or_default();
        let declare = if self.pages == 1 {
            "declares"
        } else {
            "declare"
        };
        let mut text = format!(
            "{} {declare} a canonical on {host}, another host: not listed",
            count(self.pages, "page")
        );
        if host_map.is_empty() {
            text.push_str(&format!(
                "; if this is a copy of {host}, use --map-host {}",
                suggested_mapping(&self.scope_root, &self.example)
            ));
        }
        text
    }
}

/// The pages of `run` whose canonical names another host than the scope's, by host, most
/// pages first.
pub fn canonicals_elsewhere(
    store: &Store,
    run: RunId,
    scope_root: &Url,
) -> Result<Vec<CanonicalsElsewhere>, StoreError> {
    let mut by_origin: BTreeMap<String, CanonicalsElsewhere> = BTreeMap::new();
    store.for_each_out_of_scope_canonical(run, |target| -> Result<(), StoreError> {
        let Ok(target) = Url::parse(target) else {
            return Ok(());
        };
        if target.host_str() == scope_root.host_str() {
            // The same host, outside the seed's directory: not a copy of another site.
            return Ok(());
        }
        let found = by_origin
            .entry(target.origin().ascii_serialization())
            .or_insert_with(|| CanonicalsElsewhere {
                pages: 0,
                example: target.clone(),
                scope_root: scope_root.clone(),
            });
        found.pages += 1;
        if target < found.example {
            found.example = target;
        }
        Ok(())
    })?;
    let mut found: Vec<CanonicalsElsewhere> = by_origin.into_values().collect();
    found.sort_by(|a, b| {
        b.pages
            .cmp(&a.pages)
            .then_with(|| a.example.cmp(&b.example))
    });
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn the_explanation_suggests_a_mapping_only_when_none_is_given() {
        let elsewhere = CanonicalsElsewhere {
            pages: 37,
            example: url("https://www.example.com/a"),
            scope_root: url("https://staging.example.com/"),
        };
        assert_eq!(
            elsewhere.explain(&HostMap::default()),
            "37 pages declare a canonical on www.example.com, another host: not listed; if this is a copy of www.example.com, use --map-host staging.example.com=www.example.com"
        );
        let mut mapped = HostMap::default();
        mapped
            .add("staging.example.com=shop.example.com")
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            elsewhere.explain(&mapped),
            "37 pages declare a canonical on www.example.com, another host: not listed"
        );
    }
}
