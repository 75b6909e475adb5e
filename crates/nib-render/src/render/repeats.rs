//! Long runs of identical rows or columns, taken out of an image before a local filter (a
//! blur) and put back after it: the backdrop of a card on a flat page, or the coverage of a
//! rounded card's shadow along its straight sides, is the same row (or column) many times over.
//!
//! A filter that reads at most `reach` units either side of each output unit, and works in
//! blocks of `align` units counted from the image's start (a reduced blur), gives the same
//! bytes on the shortened image: units before the cut see the same neighbours; units after it
//! see them moved by a whole number of blocks; and the units taken out, deep inside the run,
//! all equal the unit where the cut was, which sees only copies of the run's unit.

/// Where a run is cut: `len` units taken out from unit `at` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    pub at: usize,
    pub len: usize,
}

/// The cut for the longest run of equal `units` (indices of the units equal to the one before
/// them, ascending), among `count` units, for a filter reading `reach` units either side in
/// blocks of `align`. `None` when it would take out less than a quarter of the image: shortening
/// and growing back copy the image twice.
fn cut_of(same_as_before: impl Iterator<Item = bool>, count: usize, reach: usize, align: usize) -> Option<Cut> {
    let (mut best_start, mut best_len) = (0usize, 1usize);
    let (mut start, mut len) = (0, 1);
    for (i, same) in same_as_before.enumerate() {
        let unit = i + 1;
        if same {
            len += 1;
        } else {
            (start, len) = (unit, 1);
        }
        if len > best_len {
            (best_start, best_len) = (start, len);
        }
    }
    // Both ends of the run keep `reach` units, plus one unit the cut copies.
    let spare = best_len.checked_sub(2 * reach + 1)?;
    let len = spare / align.max(1) * align.max(1);
    (len > 0 && len * 4 >= count).then_some(Cut { at: best_start + reach, len })
}

/// The cut for the rows of `data` (rows of `stride` bytes).
pub(crate) fn row_cut(data: &[u8], stride: usize, reach: usize, align: usize) -> Option<Cut> {
    if stride == 0 {
        return None;
    }
    let rows: Vec<&[u8]> = data.chunks_exact(stride).collect();
    cut_of(rows.windows(2).map(|pair| pair[0] == pair[1]), rows.len(), reach, align)
}

/// The cut for the columns of `data`, `width` pixels of `C` bytes a row.
pub(crate) fn column_cut<const C: usize>(data: &[u8], width: usize, reach: usize, align: usize) -> Option<Cut> {
    if width < 2 {
        return None;
    }
    // Column x equals column x − 1 when every row says so.
    let mut same = vec![true; width];
    same[0] = false;
    for row in data.chunks_exact(width * C) {
        let (pixels, _) = row.as_chunks::<C>();
        for ((same, before), pixel) in same[1..].iter_mut().zip(pixels).zip(&pixels[1..]) {
            *same &= before == pixel;
        }
        let left = same.iter().filter(|same| **same).count();
        // Most images (a gradient, a photo) have no two equal columns: known after a row.
        if left * 4 < width {
            return None;
        }
    }
    cut_of(same.into_iter().skip(1), width, reach, align)
}

/// `data` without the rows `cut` takes out.
pub(crate) fn without_rows(data: &[u8], stride: usize, cut: Cut) -> Vec<u8> {
    let (kept_before, taken) = (cut.at * stride, cut.len * stride);
    let mut short = Vec::with_capacity(data.len() - taken);
    short.extend_from_slice(&data[..kept_before]);
    short.extend_from_slice(&data[kept_before + taken..]);
    short
}

/// The rows of `short` into `out`, the rows `cut` took out put back as copies of the row at
/// the cut.
pub(crate) fn with_rows_back(short: &[u8], stride: usize, cut: Cut, out: &mut [u8]) {
    let kept_before = cut.at * stride;
    out[..kept_before].copy_from_slice(&short[..kept_before]);
    let copied = &short[kept_before..kept_before + stride];
    for row in out[kept_before..(cut.at + cut.len) * stride].chunks_exact_mut(stride) {
        row.copy_from_slice(copied);
    }
    out[(cut.at + cut.len) * stride..].copy_from_slice(&short[kept_before..]);
}

/// `data` (`width` pixels of `C` bytes a row) without the columns `cut` takes out.
pub(crate) fn without_columns<const C: usize>(data: &[u8], width: usize, cut: Cut) -> Vec<u8> {
    let short_width = width - cut.len;
    let mut short = Vec::with_capacity(data.len() / width * short_width);
    for row in data.chunks_exact(width * C) {
        short.extend_from_slice(&row[..cut.at * C]);
        short.extend_from_slice(&row[(cut.at + cut.len) * C..]);
    }
    short
}

/// The columns of `short` into `out` (`width` pixels a row), the columns `cut` took out put
/// back as copies of the column at the cut.
pub(crate) fn with_columns_back<const C: usize>(short: &[u8], width: usize, cut: Cut, out: &mut [u8]) {
    let short_width = width - cut.len;
    for (row, from) in out.chunks_exact_mut(width * C).zip(short.chunks_exact(short_width * C)) {
        row[..cut.at * C].copy_from_slice(&from[..cut.at * C]);
        let copied = &from[cut.at * C..(cut.at + 1) * C];
        for pixel in row[cut.at * C..(cut.at + cut.len) * C].chunks_exact_mut(C) {
            pixel.copy_from_slice(copied);
        }
        row[(cut.at + cut.len) * C..].copy_from_slice(&from[cut.at * C..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_run_is_cut_inside_its_reach_by_whole_blocks() {
        // Units 3..=40 are equal (38 of them): reach 5 keeps 5 at each end and one to copy,
        // 27 spare, 24 in blocks of 4.
        let same = (1..50).map(|unit| (4..=40).contains(&unit));
        assert_eq!(cut_of(same, 50, 5, 4), Some(Cut { at: 8, len: 24 }));
        // Too short a run for the reach, or too little of the image to be worth it.
        assert_eq!(cut_of((1..50).map(|unit| (4..=14).contains(&unit)), 50, 5, 1), None);
        assert_eq!(cut_of((1..500).map(|unit| (4..=40).contains(&unit)), 500, 5, 4), None);
        assert_eq!(cut_of(std::iter::empty(), 1, 0, 1), None);
    }

    #[test]
    fn rows_and_columns_taken_out_come_back_as_copies() {
        // 30 × 20 pixels of 2 bytes: rows 4..16 equal, columns 5..25 equal.
        let (width, height) = (30usize, 20usize);
        let value = |x: usize, y: usize| -> [u8; 2] {
            let x = if (5..25).contains(&x) { 5 } else { x };
            let y = if (4..16).contains(&y) { 4 } else { y };
            [(x * 7) as u8, (y * 11) as u8]
        };
        let data: Vec<u8> = (0..height).flat_map(|y| (0..width).flat_map(move |x| value(x, y))).collect();
        let rows = row_cut(&data, width * 2, 2, 2).expect("rows 4..16 repeat");
        assert_eq!(rows, Cut { at: 6, len: 6 });
        let columns = column_cut::<2>(&data, width, 3, 1).expect("columns 5..25 repeat");
        assert_eq!(columns, Cut { at: 8, len: 13 });

        let short = without_rows(&data, width * 2, rows);
        assert_eq!(short.len(), (height - 6) * width * 2);
        let mut back = vec![0; data.len()];
        with_rows_back(&short, width * 2, rows, &mut back);
        assert_eq!(back, data);

        let narrow = without_columns::<2>(&data, width, columns);
        assert_eq!(narrow.len(), height * (width - 13) * 2);
        let mut back = vec![0; data.len()];
        with_columns_back::<2>(&narrow, width, columns, &mut back);
        assert_eq!(back, data);
    }
}
