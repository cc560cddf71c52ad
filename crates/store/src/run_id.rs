//! A run's number, the one name every table gives a run.

/// A run's number in its database: runs are numbered in the order they started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunId(pub i64);
