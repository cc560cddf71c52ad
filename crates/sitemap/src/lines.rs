//! Line numbers of byte positions, for messages about XML documents.

/// Line numbers for positions that only move forward: counts newlines once.
#[derive(Debug, Default)]
pub(crate) struct LineCounter {
    position: usize,
    line: usize,
}

impl LineCounter {
    pub(crate) fn line_at(&mut self, xml: &[u8], position: u64) -> usize {
        let position = usize::try_from(position)
            .unwrap_or(usize::MAX)
            .min(xml.len());
        if position < self.position {
            self.position = 0;
            self.line = 0;
        }
        self.line += xml[self.position..position]
            .iter()
            .filter(|byte| **byte == b'\n')
            .count();
        self.position = position;
        self.line + 1
    }
}
