//! The runtime the fleet's queue is reached on.

use anyhow::Context;

use crate::exit::Failure;

/// The runtime the queue's calls run on.
pub(super) fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(Failure::fatal)
}
