use super::*;

#[test]
fn the_summary_line_counts_each_noun_in_its_number() {
    let line = |number: usize, warnings: usize| {
        tally_line(&CheckTally {
            files: number,
            entries: number,
            problems: number,
            warnings,
        })
    };
    assert_eq!(line(0, 0), "0 files, 0 entries, 0 problems.");
    assert_eq!(line(1, 1), "1 file, 1 entry, 1 problem, 1 warning.");
    assert_eq!(line(2, 2), "2 files, 2 entries, 2 problems, 2 warnings.");
}
