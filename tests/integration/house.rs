//! The house's rule: no file imports a file that imports it back, directly or around a loop,
//! in any crate of the workspace (the binary's `src/` and each crate under `crates/`).
//!
//! The graph is read from the sources as written. Its nodes are the module files reached from
//! the crate's root through `mod NAME;`; test modules (`#[cfg(test)]`) are left out, since
//! nothing imports them. A file imports another when it names one of that file's
//! definitions through a `crate::`, `super::` or `self::` path, in a `use` or inline. A name
//! a module re-exports (`pub use`) counts as the file that defines it, and the re-export
//! itself is no import: a parent that hands its children's names on borrows nothing of them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One crate's modules: each file's module path, what it defines, and what it re-exports.
struct Crate {
    /// Module path (`["fetch", "cause"]`) to its file.
    files: BTreeMap<Vec<String>, PathBuf>,
    /// Per module: the names its file defines at its top level.
    defined: HashMap<Vec<String>, BTreeSet<String>>,
    /// Per module: a name it re-exports, and the path it names, as written.
    reexported: HashMap<Vec<String>, BTreeMap<String, Vec<String>>>,
}

/// The source with comments and the contents of string and character literals blanked,
/// line structure kept.
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut index = 0;
    while index < bytes.len() {
        let rest = &source[index..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            index += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |end| end + 2);
            out.extend(rest[..end].chars().filter(|&c| c == '\n'));
            index += end;
        } else if let Some(hashes) = raw_string_start(rest) {
            let closing = format!("\"{}", "#".repeat(hashes));
            let body = &rest[hashes + 2..];
            let end = body
                .find(&closing)
                .map_or(rest.len(), |end| hashes + 2 + end + closing.len());
            out.push_str("\"\"");
            out.extend(rest[..end].chars().filter(|&c| c == '\n'));
            index += end;
        } else if rest.starts_with('"') {
            let mut end = 1;
            let tail = rest.as_bytes();
            while end < tail.len() && tail[end] != b'"' {
                end += if tail[end] == b'\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(rest.len());
            out.push_str("\"\"");
            out.extend(rest[..end].chars().filter(|&c| c == '\n'));
            index += end;
        } else if let Some(end) = char_literal(rest) {
            out.push_str("' '");
            index += end;
        } else {
            let character = rest.chars().next().expect("not at the end");
            out.push(character);
            index += character.len_utf8();
        }
    }
    out
}

/// `code` without its inline test modules (`#[cfg(test)] mod tests { ... }`): their `super`
/// is the file's own module, and nothing imports them.
fn without_test_modules(code: &str) -> String {
    let mut kept = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(start) = rest.find("#[cfg(test)]") {
        let after = &rest[start + "#[cfg(test)]".len()..];
        let item = after.trim_start();
        // `mod name {`, not `mod name;` (a file of its own, left out when read).
        let is_inline_module = item.starts_with("mod ")
            && item
                .find(['{', ';'])
                .is_some_and(|end| item.as_bytes()[end] == b'{');
        kept.push_str(&rest[..start]);
        if !is_inline_module {
            kept.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        let open =
            start + "#[cfg(test)]".len() + (after.len() - item.len()) + item.find('{').unwrap_or(0);
        let mut depth = 0;
        let mut end = rest.len();
        for (index, character) in rest[open..].char_indices() {
            match character {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + index + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    kept.push_str(rest);
    kept
}

/// `r"`, `r#"`, `br##"`...: the number of hashes, when `text` starts a raw string.
fn raw_string_start(text: &str) -> Option<usize> {
    let text = text.strip_prefix('b').unwrap_or(text);
    let text = text.strip_prefix('r')?;
    let hashes = text.bytes().take_while(|&byte| byte == b'#').count();
    (text.as_bytes().get(hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of a character literal at the start of `text` (`'a'`, `'\n'`, `'\''`), not a
/// lifetime.
fn char_literal(text: &str) -> Option<usize> {
    let rest = text.strip_prefix('\'')?;
    if let Some(escaped) = rest.strip_prefix('\\') {
        let end = escaped.find('\'')?;
        return Some(end + 3);
    }
    let character = rest.chars().next()?;
    rest[character.len_utf8()..]
        .starts_with('\'')
        .then_some(character.len_utf8() + 2)
}

fn is_identifier(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|character| character.is_alphanumeric() || character == '_')
}

/// The file of `mod name;` declared in `parent` (a crate root or `mod.rs` owns its
/// directory; `a.rs` owns `a/`), or the one `#[path]` names.
fn module_file(parent: &Path, name: &str, path_attribute: Option<&str>) -> Option<PathBuf> {
    let directory = parent.parent()?;
    if let Some(path) = path_attribute {
        return Some(directory.join(path));
    }
    let stem = parent.file_stem()?.to_str()?;
    let own = if matches!(stem, "lib" | "main" | "mod") {
        directory.to_path_buf()
    } else {
        directory.join(stem)
    };
    [
        own.join(format!("{name}.rs")),
        own.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|file| file.is_file())
}

/// Reads the crate whose root file is `root`.
fn read_crate(root: &Path) -> Crate {
    let mut house = Crate {
        files: BTreeMap::new(),
        defined: HashMap::new(),
        reexported: HashMap::new(),
    };
    let mut pending = vec![(Vec::<String>::new(), root.to_path_buf())];
    while let Some((module, file)) = pending.pop() {
        let source = std::fs::read_to_string(&file).unwrap();
        let code = code_only(&source);
        let mut attributes: Vec<String> = Vec::new();
        let mut defined = BTreeSet::new();
        let mut reexported = BTreeMap::new();
        for statement in top_level_statements(&code) {
            if statement.starts_with("#[") || statement.starts_with("#![") {
                attributes.push(statement);
                continue;
            }
            let test_only = attributes
                .iter()
                .any(|attribute| attribute.contains("cfg(test)"));
            let path_attribute = attributes.iter().find_map(|attribute| {
                let value = attribute.split("path = ").nth(1)?;
                Some(
                    value
                        .trim_matches(|c: char| c == '"' || c == ']' || c == ' ')
                        .to_string(),
                )
            });
            attributes.clear();
            let words: Vec<&str> = statement
                .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '<' || c == ':')
                .filter(|word| !word.is_empty())
                .collect();
            let mut rest = words.as_slice();
            while let [first, tail @ ..] = rest {
                if matches!(
                    *first,
                    "pub" | "crate" | "unsafe" | "async" | "const" | "extern" | "\"\""
                ) && !(*first == "const"
                    && tail
                        .first()
                        .is_some_and(|next| is_identifier(next) && *next != "fn"))
                {
                    rest = tail;
                } else {
                    break;
                }
            }
            match rest {
                ["mod", name, ..] => {
                    let name = name.trim_end_matches(';');
                    if statement.trim_end().ends_with(';') {
                        if !test_only
                            && let Some(child) = module_file(&file, name, path_attribute.as_deref())
                        {
                            let mut path = module.clone();
                            path.push(name.to_string());
                            pending.push((path, child));
                        }
                    } else {
                        defined.insert(name.to_string());
                    }
                }
                ["use", ..] if statement.starts_with("pub") => {
                    for path in use_paths(&statement) {
                        let name = path.last().cloned().unwrap_or_default();
                        let (name, path) = match name.split_once(" as ") {
                            Some((original, alias)) => {
                                let mut path = path.clone();
                                *path.last_mut().unwrap() = original.to_string();
                                (alias.to_string(), path)
                            }
                            None => (name, path),
                        };
                        reexported.insert(name, path);
                    }
                }
                [
                    "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union"
                    | "macro_rules!",
                    name,
                    ..,
                ] => {
                    let name: String = name
                        .chars()
                        .take_while(|character| character.is_alphanumeric() || *character == '_')
                        .collect();
                    defined.insert(name);
                }
                _ => {}
            }
        }
        house.defined.insert(module.clone(), defined);
        house.reexported.insert(module.clone(), reexported);
        house.files.insert(module, file);
    }
    house
}

/// The file's top-level statements: from a line that starts at column 0 to the `;` or the
/// closing `}` at depth 0 that ends it (attributes are statements of their own).
fn top_level_statements(code: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current = String::new();
    let mut depth = 0_i32;
    for line in code.lines() {
        if depth == 0 && current.is_empty() {
            if line.is_empty() || line.starts_with(char::is_whitespace) || line.starts_with('}') {
                continue;
            }
            if line.starts_with("#[") || line.starts_with("#![") {
                statements.push(line.to_string());
                continue;
            }
        }
        current.push_str(line);
        current.push('\n');
        for character in line.chars() {
            match character {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        let trimmed = line.trim_end();
        if depth <= 0 && (trimmed.ends_with(';') || trimmed.ends_with('}')) {
            statements.push(std::mem::take(&mut current));
            depth = 0;
        }
    }
    statements
}

/// The paths a `use` statement names, each whole (`use crate::a::{b, c::d}` names
/// `crate::a::b` and `crate::a::c::d`; `self` in braces names the prefix).
fn use_paths(statement: &str) -> Vec<Vec<String>> {
    let start = statement.find("use ").map_or(0, |start| start + 4);
    let tree: String = statement[start..]
        .chars()
        .filter(|character| !character.is_whitespace() || *character == ' ')
        .collect();
    let tree = tree.trim().trim_end_matches(';').replace(" as ", "\u{1}");
    let tree: String = tree.chars().filter(|c| *c != ' ').collect();
    let tree = tree.replace('\u{1}', " as ");
    let mut paths = Vec::new();
    expand(&tree, &mut Vec::new(), &mut paths);
    paths
}

fn expand(tree: &str, prefix: &mut Vec<String>, paths: &mut Vec<Vec<String>>) {
    for part in split_top(tree) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let depth = prefix.len();
        match part.find('{') {
            Some(open) => {
                let head = part[..open].trim_end_matches("::");
                prefix.extend(head.split("::").filter(|s| !s.is_empty()).map(String::from));
                expand(&part[open + 1..part.len() - 1], prefix, paths);
            }
            None => {
                let mut path = prefix.clone();
                for segment in part.split("::") {
                    if segment != "self" {
                        path.push(segment.to_string());
                    }
                }
                paths.push(path);
            }
        }
        prefix.truncate(depth);
    }
}

/// `text` split at its commas outside braces.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (index, character) in text.char_indices() {
        match character {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

impl Crate {
    /// The file that defines what `path` names, written in `module`; `None` outside the
    /// crate. A path that ends at a module names that module's file.
    fn resolve(&self, module: &[String], path: &[String], hops: usize) -> Option<&Path> {
        let mut segments = path
            .iter()
            .map(|segment| segment.split(" as ").next().unwrap_or(segment));
        let first = segments.next()?;
        let mut current: Vec<String> = match first {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().checked_sub(1)?].to_vec(),
            // A path from one of the module's own children (`fetch::Client` in lib.rs).
            child
                if self
                    .files
                    .contains_key(&[module, &[child.to_string()]].concat()) =>
            {
                module.to_vec()
            }
            _ => return None,
        };
        let mut segments = if matches!(first, "crate" | "self" | "super") {
            None
        } else {
            Some(first)
        }
        .into_iter()
        .chain(segments)
        .peekable();
        while segments.peek() == Some(&"super") {
            segments.next();
            current.pop();
        }
        for segment in segments {
            let mut child = current.clone();
            child.push(segment.to_string());
            if self.files.contains_key(&child) {
                current = child;
                continue;
            }
            if self
                .defined
                .get(&current)
                .is_some_and(|names| names.contains(segment))
            {
                return self.files.get(&current).map(PathBuf::as_path);
            }
            if hops < 8
                && let Some(target) = self
                    .reexported
                    .get(&current)
                    .and_then(|names| names.get(segment))
                && let Some(file) = self.resolve(&current, target, hops + 1)
            {
                return Some(file);
            }
            // A variant, an associated item, a macro: the module's file stands for it.
            return self.files.get(&current).map(PathBuf::as_path);
        }
        self.files.get(&current).map(PathBuf::as_path)
    }

    /// Every file's imports of the crate's other files.
    fn imports(&self) -> BTreeMap<&Path, BTreeSet<&Path>> {
        let mut graph: BTreeMap<&Path, BTreeSet<&Path>> = BTreeMap::new();
        for (module, file) in &self.files {
            let code = without_test_modules(&code_only(&std::fs::read_to_string(file).unwrap()));
            let targets = graph.entry(file.as_path()).or_default();
            for path in paths_in(&code) {
                if let Some(target) = self.resolve(module, &path, 0)
                    && target != file.as_path()
                {
                    targets.insert(target);
                }
            }
        }
        graph
    }
}

/// The `crate::`, `super::` and `self::` paths `code` names, in its `use` statements (not
/// the `pub` ones: re-exports) and inline.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    let mut inline = String::new();
    while let Some(start) = find_word(rest, "use ") {
        inline.push_str(&rest[..start]);
        let end = rest[start..]
            .find(';')
            .map_or(rest.len(), |end| start + end + 1);
        let statement = &rest[start..end];
        let line_start = rest[..start].rfind('\n').map_or(0, |newline| newline + 1);
        let is_reexport = rest[line_start..start].trim_start().starts_with("pub");
        if !is_reexport {
            paths.extend(use_paths(statement));
        }
        rest = &rest[end..];
    }
    inline.push_str(rest);
    // Every path of two segments or more; the crate's own are told apart when resolved.
    let bytes = inline.as_bytes();
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let mut index = 0;
    while index < bytes.len() {
        if !is_word(bytes[index])
            || (index > 0 && (is_word(bytes[index - 1]) || bytes[index - 1] == b':'))
        {
            index += 1;
            continue;
        }
        let start = index;
        while index < bytes.len() && (is_word(bytes[index]) || bytes[index] == b':') {
            index += 1;
        }
        let text = &inline[start..index];
        if text.contains("::") {
            paths.push(
                text.split("::")
                    .filter(|segment| !segment.is_empty())
                    .map(String::from)
                    .collect(),
            );
        }
    }
    paths
}

/// Where `word` starts in `text` at the start of a statement (after whitespace or `{`/`;`).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let start = from + found;
        let before = text[..start].trim_end_matches([' ', '\t']);
        let before = before
            .strip_suffix("pub(crate)")
            .or_else(|| before.strip_suffix("pub"))
            .unwrap_or(before);
        if before.is_empty() || before.ends_with(['\n', '{', ';', '}']) {
            return Some(start);
        }
        from = start + word.len();
    }
    None
}

/// The loops of `graph`: its strongly connected components of more than one file, each with
/// one cycle through them, as paths.
fn loops<'a>(graph: &BTreeMap<&'a Path, BTreeSet<&'a Path>>) -> Vec<Vec<&'a Path>> {
    // Files that reach each other both ways.
    let reaches = |from: &'a Path| -> BTreeSet<&'a Path> {
        let mut seen = BTreeSet::new();
        let mut pending = vec![from];
        while let Some(file) = pending.pop() {
            for &next in graph.get(file).into_iter().flatten() {
                if seen.insert(next) {
                    pending.push(next);
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&Path, BTreeSet<&Path>> =
        graph.keys().map(|&file| (file, reaches(file))).collect();
    let mut found: Vec<Vec<&Path>> = Vec::new();
    let mut placed = BTreeSet::new();
    for (&file, reached) in &reach {
        if placed.contains(file) || !reached.contains(file) {
            continue;
        }
        let component: Vec<&Path> = reached
            .iter()
            .copied()
            .filter(|other| reach.get(other).is_some_and(|back| back.contains(file)))
            .collect();
        placed.extend(component.iter().copied());
        found.push(component);
    }
    found
}

fn crate_roots() -> Vec<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![workspace.join("src/main.rs")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(workspace.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    crates.sort();
    for directory in crates {
        for root in ["src/lib.rs", "src/main.rs"] {
            if directory.join(root).is_file() {
                roots.push(directory.join(root));
            }
        }
    }
    roots
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = String::new();
    let mut files = 0;
    for root in crate_roots() {
        let house = read_crate(&root);
        files += house.files.len();
        let graph = house.imports();
        for component in loops(&graph) {
            let names: Vec<String> = component
                .iter()
                .map(|file| {
                    file.strip_prefix(workspace)
                        .unwrap_or(file)
                        .display()
                        .to_string()
                })
                .collect();
            report.push_str(&format!(
                "loop of {} files: {}\n",
                names.len(),
                names.join(", ")
            ));
            for &file in &component {
                for &target in graph[file]
                    .iter()
                    .filter(|target| component.contains(target))
                {
                    report.push_str(&format!(
                        "  {} -> {}\n",
                        file.strip_prefix(workspace).unwrap_or(file).display(),
                        target.strip_prefix(workspace).unwrap_or(target).display()
                    ));
                }
            }
        }
    }
    assert!(files > 100, "the crates' files were read: {files}");
    assert!(report.is_empty(), "imports that run in a loop:\n{report}");
}

#[test]
fn the_reading_sees_a_loop_where_there_is_one() {
    let directory = tempfile::tempdir().unwrap();
    let source = directory.path().join("src");
    std::fs::create_dir_all(source.join("a")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(source.join(name), text).unwrap();
    write(
        "lib.rs",
        "//! A crate.\nmod a;\nmod b;\n#[cfg(test)]\nmod tests;\npub use a::Thing;\npub fn run() -> b::Other { todo!() }\n",
    );
    write(
        "a.rs",
        "mod inner;\npub struct Thing;\nfn f() { let _ = crate::b::helper(); }\n",
    );
    write("a/inner.rs", "use super::super::b::{self, Other as O};\n");
    write(
        "b.rs",
        "use crate::{Thing};\n/// use crate::a::not_this;\npub struct Other;\npub fn helper() -> &'static str { \"crate::a::nor_this\" }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::a::Thing;\n}\n",
    );
    write("tests.rs", "use crate::a::Thing;\n");
    let house = read_crate(&source.join("lib.rs"));
    assert_eq!(house.files.len(), 4, "tests.rs is a test module");
    let graph = house.imports();
    let short = |file: &Path| file.strip_prefix(&source).unwrap().display().to_string();
    let edges: BTreeSet<(String, String)> = graph
        .iter()
        .flat_map(|(from, to)| to.iter().map(move |to| (short(from), short(to))))
        .collect();
    let expected: BTreeSet<(String, String)> = [
        ("lib.rs", "b.rs"),
        ("a.rs", "b.rs"),
        ("a/inner.rs", "b.rs"),
        ("b.rs", "a.rs"),
    ]
    .into_iter()
    .map(|(from, to)| (from.to_string(), to.to_string()))
    .collect();
    assert_eq!(edges, expected);
    let found = loops(&graph);
    assert_eq!(found.len(), 1);
    let names: BTreeSet<String> = found[0].iter().map(|file| short(file)).collect();
    assert_eq!(
        names,
        BTreeSet::from(["a.rs".to_string(), "b.rs".to_string()])
    );
}
