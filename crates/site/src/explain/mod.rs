//! `explain`: why one URL is in the sitemap or not, told from the crawl database without a
//! request (docs/design.md, Explaining a URL).

mod explanation;
mod gather;
mod nearest;
mod published;
mod words;

pub use explanation::{
    Evidence, Explanation, History, Hop, LastmodStory, Nearest, Reached, RunRef, Standing,
    StatusSpan, Step,
};
pub use gather::{ExplainError, explain};
pub use words::explanation_text;
