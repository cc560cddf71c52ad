//! PostgreSQL through its command-line client, and the check every command run shares.

use std::process::{Command, Output};

use anyhow::{Context, bail};

/// Runs `sql` on the queue's database with `psql`; its unaligned output, without headers.
pub(crate) fn psql(queue: &str, sql: &str) -> anyhow::Result<String> {
    let output = Command::new("psql")
        .arg(queue)
        .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .env("PGCONNECT_TIMEOUT", "10")
        .output()
        .context("run psql (is the PostgreSQL client installed?)")?;
    succeeded(&output, &format!("psql -c {sql:?}"))?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// An error quoting `what`'s stderr unless it exited successfully.
pub(crate) fn succeeded(output: &Output, what: &str) -> anyhow::Result<()> {
    if !output.status.success() {
        bail!(
            "{what} exited with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}
