use std::path::Path;

use super::OWN_CRATES;

/// The log target of each library crate under `crates/` (a crate with only a binary,
/// such as the benchmark, has none): `[lib] name`, else the package name with `_` for `-`.
fn library_targets() -> Vec<String> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut targets = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let directory = entry.unwrap().path();
        let Ok(text) = std::fs::read_to_string(directory.join("Cargo.toml")) else {
            continue;
        };
        let manifest: toml::Table = toml::from_str(&text).unwrap();
        let library = manifest.get("lib");
        if library.is_none() && !directory.join("src/lib.rs").is_file() {
            continue;
        }
        let name = library
            .and_then(|library| library.get("name"))
            .or_else(|| manifest["package"].get("name"))
            .and_then(toml::Value::as_str)
            .unwrap();
        targets.push(name.replace('-', "_"));
    }
    targets.sort();
    targets
}

#[test]
fn verbose_reaches_every_library_crate_of_the_workspace() {
    let targets = library_targets();
    assert!(
        targets.len() >= 7,
        "too few library crates found: {targets:?}"
    );
    let missing: Vec<&String> = targets
        .iter()
        .filter(|target| !OWN_CRATES.contains(&target.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "library crates missing from OWN_CRATES: {missing:?}"
    );
}
