//! The report's table of contents: its sections and the groups of findings, each a link to
//! its heading. On screen it is a row of links under the heading; on paper, where nothing
//! folds, a list that also names every kind of finding (the PDF's outline lists the same
//! headings for a reader's sidebar).

use std::fmt::Write;

use super::text::escape;

/// One line of the contents: the `id` of the element it links to, its words, and the lines
/// under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    anchor: String,
    label: String,
    /// A count or a note after the words, in a muted colour.
    note: Option<String>,
    children: Vec<Entry>,
}

impl Entry {
    /// A line linking to the element whose `id` is `anchor`.
    pub(super) fn new(anchor: impl Into<String>, label: impl Into<String>) -> Entry {
        Entry {
            anchor: anchor.into(),
            label: label.into(),
            note: None,
            children: Vec::new(),
        }
    }

    /// This line with `note` after its words.
    pub(super) fn note(mut self, note: impl Into<String>) -> Entry {
        self.note = Some(note.into());
        self
    }

    /// This line with `children` under it.
    pub(super) fn children(mut self, children: Vec<Entry>) -> Entry {
        self.children = children;
        self
    }
}

/// The contents as a `<nav>`: nested ordered lists, the third level (the kinds of finding)
/// shown in print only.
pub(super) fn render(entries: &[Entry]) -> String {
    let mut html = String::from(
        r#"<nav class="panel contents" id="contents" aria-labelledby="contents-heading"><h2 id="contents-heading">Contents</h2>"#,
    );
    list(&mut html, entries, 1);
    html.push_str("</nav>");
    html
}

fn list(html: &mut String, entries: &[Entry], level: usize) {
    if entries.is_empty() {
        return;
    }
    let _ = write!(html, r#"<ol class="level-{level}">"#);
    for entry in entries {
        let _ = write!(
            html,
            r##"<li><a href="#{anchor}">{label}</a>"##,
            anchor = escape(&entry.anchor),
            label = escape(&entry.label),
        );
        if let Some(note) = &entry.note {
            let _ = write!(html, r#" <span class="muted">{}</span>"#, escape(note));
        }
        list(html, &entry.children, level + 1);
        html.push_str("</li>");
    }
    html.push_str("</ol>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_nest_and_their_words_are_text() {
        let html = render(&[
            Entry::new("score", "Site health score"),
            Entry::new("issues", "Issues")
                .children(vec![Entry::new("kind-a", "<b>A</b> & B").note("3 URLs")]),
        ]);
        assert_eq!(
            html,
            concat!(
                r#"<nav class="panel contents" id="contents" aria-labelledby="contents-heading"><h2 id="contents-heading">Contents</h2>"#,
                r##"<ol class="level-1"><li><a href="#score">Site health score</a></li>"##,
                r##"<li><a href="#issues">Issues</a><ol class="level-2"><li><a href="#kind-a">&lt;b&gt;A&lt;/b&gt; &amp; B</a> <span class="muted">3 URLs</span></li></ol></li></ol></nav>"##,
            )
        );
    }
}
