//! Splitting the frames of a snapshot run across the jobs of a CI matrix: each job runs
//! `--shard I/N` on the same paths and takes the frames whose hash falls to it. Nothing is
//! scheduled or shared; the assignment depends only on the file's key and the frame's id, so
//! every frame lands in exactly one shard, and adding a frame never moves the others.

use std::fmt;

use super::SnapshotError;

/// Most shards: far more than any CI matrix runs (GitHub Actions allows 256 jobs per matrix);
/// a larger count is almost surely a typing mistake.
pub(crate) const MAX_SHARDS: u32 = 256;

/// One part of `count`, numbered from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// The whole run: one shard of one.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// `I/N` with 1 ≤ I ≤ N ≤ [`MAX_SHARDS`].
    pub fn parse(text: &str) -> Result<Shard, SnapshotError> {
        let bad = |reason: String| SnapshotError::Shard { text: text.to_owned(), reason };
        let Some((index, count)) = text.trim().split_once('/') else {
            return Err(bad("write it as I/N, e.g. 2/4 for the second of four shards".into()));
        };
        let number =
            |part: &str| part.trim().parse::<u32>().map_err(|_| bad(format!("'{part}' is not a whole number")));
        let (index, count) = (number(index)?, number(count)?);
        if count == 0 || count > MAX_SHARDS {
            return Err(bad(format!("the number of shards must be between 1 and {MAX_SHARDS}")));
        }
        if index == 0 || index > count {
            return Err(bad(format!("shards are numbered from 1 to {count}")));
        }
        Ok(Shard { index, count })
    }

    /// The shard's number, from 1.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// How many shards there are.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// True when the frame `id` of the file `key` (or, with an empty id, the file itself) is
    /// this shard's to check.
    pub fn owns(&self, key: &str, id: &str) -> bool {
        self.count == 1 || Shard::of(key, id, self.count) == self.index
    }

    /// The shard, of `count`, that `id` of the file `key` falls to.
    fn of(key: &str, id: &str, count: u32) -> u32 {
        // A separator no key or id contains keeps ("ab", "c") and ("a", "bc") apart.
        let hash = crate::hash::fnv1a(format!("{key}\0{id}").as_bytes());
        (hash % u64::from(count)) as u32 + 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse_what_cannot_be_one() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        assert_eq!(Shard::parse(" 1 / 1 ").unwrap(), Shard::ALL);
        for bad in ["", "3", "0/3", "4/3", "1/0", "a/2", "1/-2", "1/257", "1/2/3"] {
            let error = Shard::parse(bad).unwrap_err();
            assert!(matches!(error, SnapshotError::Shard { .. }), "{bad}: {error}");
        }
    }

    #[test]
    fn every_frame_falls_to_exactly_one_shard_and_they_are_balanced() {
        let count = 5;
        let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
        let mut sizes = vec![0; count as usize];
        for file in 0..20 {
            for frame in 0..50 {
                let (key, id) = (format!("designs/file-{file}.pen"), format!("f{frame}"));
                let owners: Vec<u32> = shards.iter().filter(|s| s.owns(&key, &id)).map(|s| s.index).collect();
                assert_eq!(owners.len(), 1, "{key} {id}: {owners:?}");
                sizes[owners[0] as usize - 1] += 1;
            }
        }
        // 1,000 frames in 5 shards: each gets a fair part, not all of them.
        assert!(sizes.iter().all(|&size| (120..=280).contains(&size)), "{sizes:?}");
    }

    #[test]
    fn a_frame_keeps_its_shard_whatever_else_exists() {
        // The assignment is a pure function of the key and the id: fixed values (computed
        // separately from the FNV-1a definition) guard it against an accidental change that
        // would move frames between the jobs of existing CI setups.
        let counts = [2, 3, 4, 7];
        assert_eq!(counts.map(|n| Shard::of("design.pen", "abc12", n)), [2, 2, 2, 6]);
        assert_eq!(counts.map(|n| Shard::of("designs/app.pen", "Hk3s9", n)), [2, 2, 4, 6]);
        let spread: Vec<u32> =
            ["a", "b", "c", "d", "e", "f", "g", "h"].iter().map(|id| Shard::of("x.pen", id, 3)).collect();
        assert!(spread.iter().any(|&s| s != spread[0]), "{spread:?}");
        assert!(Shard::ALL.owns("any.pen", "any"));
    }
}
