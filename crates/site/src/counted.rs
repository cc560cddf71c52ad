//! A number in prose and the noun it counts: the singular for one, the plural for any other
//! number ("1 file", "0 files", "2 files"). Every summary line, report and message that counts
//! something says it through [`count`], so that none says "1 files" or "2 file".

use std::fmt::Display;

/// `number` and `noun`, whose plural is `noun` followed by "s": `count(1, "file")` is
/// "1 file", `count(2, "file")` "2 files". A noun whose plural is not made so ("query",
/// "index") names both through [`count_with`].
pub fn count<N>(number: N, noun: &str) -> String
where
    N: Display + PartialEq + From<u8>,
{
    count_with(number, noun, &format!("{noun}s"))
}

/// `number` grouped by thousands and `noun` as [`count`] gives it: `count_grouped(1204,
/// "URL")` is "1,204 URLs".
pub fn count_grouped(number: u64, noun: &str) -> String {
    let plural = format!("{noun}s");
    let noun = if number == 1 { noun } else { &plural };
    format!("{} {noun}", sitemapper_audit::thousands(number))
}

/// `number` and `singular` for one, `plural` for any other number: `count_with(2, "query",
/// "queries")` is "2 queries".
pub fn count_with<N>(number: N, singular: &str, plural: &str) -> String
where
    N: Display + PartialEq + From<u8>,
{
    let noun = if number == N::from(1) {
        singular
    } else {
        plural
    };
    format!("{number} {noun}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!(count(0_u64, "file"), "0 files");
        assert_eq!(count(1_u64, "file"), "1 file");
        assert_eq!(count(2_usize, "file"), "2 files");
        assert_eq!(count(1_u32, "time"), "1 time");
        assert_eq!(count(11_u64, "URL"), "11 URLs");
        assert_eq!(count_grouped(1, "URL"), "1 URL");
        assert_eq!(count_grouped(1204, "URL"), "1,204 URLs");
    }

    #[test]
    fn an_irregular_plural_is_given() {
        assert_eq!(count_with(1_u64, "query", "queries"), "1 query");
        assert_eq!(count_with(2_u64, "query", "queries"), "2 queries");
        assert_eq!(count_with(0_usize, "index", "indexes"), "0 indexes");
    }
}
