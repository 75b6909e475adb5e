//! Per-pixel work split by rows over the rayon pool. Each row is computed on its own from the
//! same inputs, so the bytes are those of one thread whatever the number of cores: the
//! determinism of a serial paint with the speed of a parallel one, for the operations nib
//! computes itself (compositing, masks, gradient tables, blurs).

use std::ops::Range;

use rayon::prelude::*;

/// Work below this many bytes stays on the calling thread (handing it over costs more).
pub(crate) const PARALLEL_FROM_BYTES: usize = 32 * 1024;

/// How many rows of `stride` bytes a parallel piece of work takes at least: half the
/// threshold's bytes, as splitting finer only adds scheduling.
pub(crate) fn rows_per_piece(stride: usize) -> usize {
    (PARALLEL_FROM_BYTES / 2).div_ceil(stride.max(1))
}

/// Runs `paint(y, row)` for each row `y` in `rows` of `data`, an image of rows `stride` bytes
/// long; on every core when the rows hold at least [`PARALLEL_FROM_BYTES`].
pub(crate) fn each_row(data: &mut [u8], stride: usize, rows: Range<usize>, paint: impl Fn(usize, &mut [u8]) + Sync) {
    if stride == 0 || rows.is_empty() {
        return;
    }
    let first = rows.start;
    let Some(part) = data.get_mut(rows.start * stride..rows.end * stride) else { return };
    if part.len() >= PARALLEL_FROM_BYTES {
        part.par_chunks_mut(stride)
            .enumerate()
            .with_min_len(rows_per_piece(stride))
            .for_each(|(i, row)| paint(first + i, row));
    } else {
        part.chunks_mut(stride).enumerate().for_each(|(i, row)| paint(first + i, row));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_visited_once_with_its_index_in_parallel_or_not() {
        for height in [3usize, 5000] {
            let stride = 64;
            let mut data = vec![0u8; stride * height];
            each_row(&mut data, stride, 1..height - 1, |y, row| {
                for (x, byte) in row.iter_mut().enumerate() {
                    *byte = byte.wrapping_add((y * 7 + x) as u8);
                }
            });
            for (y, row) in data.chunks(stride).enumerate() {
                let inside = y >= 1 && y < height - 1;
                for (x, byte) in row.iter().enumerate() {
                    assert_eq!(*byte, if inside { (y * 7 + x) as u8 } else { 0 }, "row {y}");
                }
            }
        }
    }
}
