//! Mesh gradients: a grid of `columns` × `rows` colored points in the node's unit box, each
//! cell a patch whose edges are cubic curves through the points and their handles.
//!
//! As Pen draws them (spec/pen-versions.md, after the notes of the woodcase implementer, pinned
//! against Pen's exports): each patch is a Coons patch (a tensor patch with zero twist) of its
//! four edge curves; a point's handles are offsets from it, a quarter of the way to the
//! neighbour when absent; the color at patch parameters (u, v) is the corners' colors mixed
//! bilinearly in smoothstep(u), smoothstep(v), on the sRGB values. A mesh whose counts do not
//! match `columns × rows`, or smaller than 2 × 2, draws nothing (Pen removes such a fill when it
//! opens the file).
//!
//! The mesh is smooth, so it is drawn small — each patch cut into cells about a pixel of a
//! raster at most [`MAX_RASTER`] on a side, each cell filled with its center's color — and the
//! raster is scaled up onto the shape with bicubic filtering.

use tiny_skia::{Color as SkColor, FillRule, Paint, PathBuilder, Pixmap, Transform};

use crate::doc::json::{Json, JsonValue};
use crate::doc::values::MeshGradient;

/// Longest side of the raster a mesh is drawn at before it is scaled onto its shape.
const MAX_RASTER: f32 = 384.0;

/// A point of the grid: its position and its four handles (absolute, in the unit box).
#[derive(Debug, Clone, Copy, PartialEq)]
struct GridPoint {
    at: (f32, f32),
    left: Option<(f32, f32)>,
    right: Option<(f32, f32)>,
    top: Option<(f32, f32)>,
    bottom: Option<(f32, f32)>,
}

/// A mesh ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshSpec {
    columns: usize,
    rows: usize,
    points: Vec<GridPoint>,
    /// Straight RGBA, the fill's opacity applied.
    colors: Vec<[u8; 4]>,
}

/// Why a mesh gradient draws nothing (Pen removes such a fill).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// Fewer than 2 × 2 columns and rows, not whole numbers, or more than 4,096 points.
    #[error("its grid is {columns} × {rows}; a mesh needs at least 2 × 2 whole columns and rows")]
    Grid { columns: f64, rows: f64 },
    /// A point that is neither `[x, y]` nor a point with handles.
    #[error("its points are not [x, y] or {{position: [x, y], …Handle: [dx, dy]}}")]
    Points,
    /// Not one color and one point per grid point.
    #[error("it has {colors} colors and {points} points for a grid of {columns} × {rows} ({} each are needed)", columns * rows)]
    Count { colors: usize, points: usize, columns: usize, rows: usize },
}

impl MeshSpec {
    /// The mesh of `fill`, or why it draws nothing.
    pub fn of(fill: &MeshGradient, opacity: f32) -> Result<MeshSpec, MeshError> {
        let count = |v: Option<&crate::doc::VarOr<f64>>| v.and_then(|v| v.value().copied()).unwrap_or(0.0);
        let (columns, rows) = (count(fill.columns.as_ref()), count(fill.rows.as_ref()));
        if !(columns >= 2.0 && rows >= 2.0 && columns.fract() == 0.0 && rows.fract() == 0.0 && columns * rows <= 4096.0)
        {
            return Err(MeshError::Grid { columns, rows });
        }
        let (columns, rows) = (columns as usize, rows as usize);
        let colors: Vec<[u8; 4]> = fill
            .colors
            .iter()
            .flatten()
            .map(|color| {
                let [r, g, b, a] = color.value().map_or([0, 0, 0, 0], |c| c.rgba());
                [r, g, b, (f32::from(a) * opacity).round() as u8]
            })
            .collect();
        let points = fill.points.as_ref().map(|raw| points(&raw.to_json())).unwrap_or(Err(()));
        let points = points.map_err(|()| MeshError::Points)?;
        if colors.len() != columns * rows || points.len() != columns * rows {
            return Err(MeshError::Count { colors: colors.len(), points: points.len(), columns, rows });
        }
        Ok(MeshSpec { columns, rows, points, colors })
    }

    /// The mesh drawn for a box of `width` × `height` device pixels: the raster and the scale
    /// from box units (0–1) to its pixels.
    pub fn rasterize(&self, width: f32, height: f32) -> Option<Pixmap> {
        let scale = (MAX_RASTER / width.max(height).max(1.0)).min(1.0);
        let (w, h) = ((width * scale).ceil().max(1.0) as u32, (height * scale).ceil().max(1.0) as u32);
        let mut pixmap = Pixmap::new(w, h)?;
        let to_pixels = Transform::from_scale(w as f32, h as f32);
        let mut paint = Paint { anti_alias: false, ..Paint::default() };
        for row in 0..self.rows - 1 {
            for column in 0..self.columns - 1 {
                let patch = self.patch(row, column);
                // Cells of about one raster pixel: the patch's extent in pixels.
                let span = patch.extent();
                let cells = ((span.0 * w as f32).max(span.1 * h as f32)).ceil().clamp(2.0, 256.0) as usize;
                for j in 0..cells {
                    for i in 0..cells {
                        let (u0, v0) = (i as f32 / cells as f32, j as f32 / cells as f32);
                        let (u1, v1) = ((i + 1) as f32 / cells as f32, (j + 1) as f32 / cells as f32);
                        let corners = [patch.at(u0, v0), patch.at(u1, v0), patch.at(u1, v1), patch.at(u0, v1)];
                        let [r, g, b, a] = patch.color((u0 + u1) / 2.0, (v0 + v1) / 2.0);
                        if a == 0 {
                            continue;
                        }
                        let mut builder = PathBuilder::new();
                        builder.move_to(corners[0].0, corners[0].1);
                        for corner in &corners[1..] {
                            builder.line_to(corner.0, corner.1);
                        }
                        builder.close();
                        let Some(path) = builder.finish() else { continue };
                        paint.set_color(SkColor::from_rgba8(r, g, b, a));
                        pixmap.fill_path(&path, &paint, FillRule::Winding, to_pixels, None);
                    }
                }
            }
        }
        Some(pixmap)
    }

    /// The patch between grid rows `row`, `row + 1` and columns `column`, `column + 1`.
    fn patch(&self, row: usize, column: usize) -> Patch {
        let index = |r: usize, c: usize| r * self.columns + c;
        let [p00, p01, p10, p11] =
            [index(row, column), index(row, column + 1), index(row + 1, column), index(row + 1, column + 1)]
                .map(|i| self.points[i]);
        let toward =
            |from: (f32, f32), to: (f32, f32)| (from.0 + (to.0 - from.0) / 4.0, from.1 + (to.1 - from.1) / 4.0);
        let handle = |point: GridPoint, handle: Option<(f32, f32)>, neighbour: GridPoint| {
            handle.map_or_else(|| toward(point.at, neighbour.at), |(dx, dy)| (point.at.0 + dx, point.at.1 + dy))
        };
        Patch {
            top: [p00.at, handle(p00, p00.right, p01), handle(p01, p01.left, p00), p01.at],
            bottom: [p10.at, handle(p10, p10.right, p11), handle(p11, p11.left, p10), p11.at],
            left: [p00.at, handle(p00, p00.bottom, p10), handle(p10, p10.top, p00), p10.at],
            right: [p01.at, handle(p01, p01.bottom, p11), handle(p11, p11.top, p01), p11.at],
            colors: [index(row, column), index(row, column + 1), index(row + 1, column), index(row + 1, column + 1)]
                .map(|i| self.colors[i]),
        }
    }
}

/// One Coons patch: its edge curves (top and bottom left to right, left and right top to
/// bottom) and corner colors (top-left, top-right, bottom-left, bottom-right).
struct Patch {
    top: [(f32, f32); 4],
    bottom: [(f32, f32); 4],
    left: [(f32, f32); 4],
    right: [(f32, f32); 4],
    colors: [[u8; 4]; 4],
}

impl Patch {
    fn at(&self, u: f32, v: f32) -> (f32, f32) {
        let (top, bottom) = (cubic(&self.top, u), cubic(&self.bottom, u));
        let (left, right) = (cubic(&self.left, v), cubic(&self.right, v));
        let (c00, c01, c10, c11) = (self.top[0], self.top[3], self.bottom[0], self.bottom[3]);
        let axis = |t: f32, b: f32, l: f32, r: f32, p00: f32, p01: f32, p10: f32, p11: f32| {
            (1.0 - v) * t + v * b + (1.0 - u) * l + u * r
                - ((1.0 - u) * (1.0 - v) * p00 + u * (1.0 - v) * p01 + (1.0 - u) * v * p10 + u * v * p11)
        };
        (
            axis(top.0, bottom.0, left.0, right.0, c00.0, c01.0, c10.0, c11.0),
            axis(top.1, bottom.1, left.1, right.1, c00.1, c01.1, c10.1, c11.1),
        )
    }

    fn color(&self, u: f32, v: f32) -> [u8; 4] {
        let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
        let (s, t) = (smooth(u), smooth(v));
        let [c00, c01, c10, c11] = self.colors;
        std::array::from_fn(|i| {
            let top = f32::from(c00[i]) * (1.0 - s) + f32::from(c01[i]) * s;
            let bottom = f32::from(c10[i]) * (1.0 - s) + f32::from(c11[i]) * s;
            (top * (1.0 - t) + bottom * t).round().clamp(0.0, 255.0) as u8
        })
    }

    /// The width and height of the patch's corner box, in the unit box.
    fn extent(&self) -> (f32, f32) {
        let points = self.top.iter().chain(&self.bottom);
        let (mut min, mut max) = ((f32::MAX, f32::MAX), (f32::MIN, f32::MIN));
        for p in points {
            min = (min.0.min(p.0), min.1.min(p.1));
            max = (max.0.max(p.0), max.1.max(p.1));
        }
        ((max.0 - min.0).max(0.0), (max.1 - min.1).max(0.0))
    }
}

fn cubic(p: &[(f32, f32); 4], t: f32) -> (f32, f32) {
    let s = 1.0 - t;
    let (a, b, c, d) = (s * s * s, 3.0 * s * s * t, 3.0 * s * t * t, t * t * t);
    (a * p[0].0 + b * p[1].0 + c * p[2].0 + d * p[3].0, a * p[0].1 + b * p[1].1 + c * p[2].1 + d * p[3].1)
}

/// The grid points of a mesh's `points` value.
fn points(json: &Json) -> Result<Vec<GridPoint>, ()> {
    let JsonValue::Array(items) = &json.value else { return Err(()) };
    items.iter().map(point).collect()
}

fn pair(json: &Json) -> Option<(f32, f32)> {
    let JsonValue::Array(items) = &json.value else { return None };
    match items.as_slice() {
        [x, y] => Some((x.as_f64()? as f32, y.as_f64()? as f32)),
        _ => None,
    }
}

fn point(json: &Json) -> Result<GridPoint, ()> {
    if let Some(at) = pair(json) {
        return Ok(GridPoint { at, left: None, right: None, top: None, bottom: None });
    }
    let handle = |key: &str| json.get(key).and_then(pair);
    let at = json.get("position").and_then(pair).ok_or(())?;
    Ok(GridPoint {
        at,
        left: handle("leftHandle"),
        right: handle("rightHandle"),
        top: handle("topHandle"),
        bottom: handle("bottomHandle"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::read;

    fn mesh(text: &str) -> Result<MeshSpec, MeshError> {
        MeshSpec::of(&read::<MeshGradient>(text).expect("a mesh"), 1.0)
    }

    #[test]
    fn a_two_by_two_mesh_mixes_its_corner_colors() {
        let spec = mesh(
            r##"{"type":"mesh_gradient","columns":2,"rows":2,"colors":["#FF0000","#0000FF","#00FF00","#FFFFFF"],
                "points":[[0,0],[1,0],[0,1],[1,1]]}"##,
        )
        .expect("drawable");
        let raster = spec.rasterize(100.0, 100.0).expect("raster");
        let pixel = |x: u32, y: u32| {
            let p = raster.pixel(x, y).expect("inside").demultiply();
            [p.red(), p.green(), p.blue(), p.alpha()]
        };
        assert!(pixel(1, 1)[0] > 240 && pixel(1, 1)[2] < 15, "red top-left: {:?}", pixel(1, 1));
        assert!(pixel(98, 1)[2] > 240, "blue top-right: {:?}", pixel(98, 1));
        assert!(pixel(1, 98)[1] > 240, "green bottom-left: {:?}", pixel(1, 98));
        let middle = pixel(50, 50);
        assert!(middle.iter().take(3).all(|c| (90..170).contains(c)), "a mix in the middle: {middle:?}");
    }

    #[test]
    fn a_mesh_pen_would_remove_draws_nothing_and_says_why() {
        let wrong_count = mesh(
            r##"{"type":"mesh_gradient","columns":2,"rows":2,"colors":["#FF0000"],"points":[[0,0],[1,0],[0,1],[1,1]]}"##,
        );
        assert!(wrong_count.unwrap_err().to_string().contains("1 colors and 4 points"));
        assert!(mesh(r##"{"type":"mesh_gradient","columns":1,"rows":2,"colors":[],"points":[]}"##).is_err());
        let handles = mesh(
            r##"{"type":"mesh_gradient","columns":2,"rows":2,"colors":["#000","#000","#000","#000"],
                "points":[{"position":[0,0],"rightHandle":[0.3,0.1]},[1,0],[0,1],[1,1]]}"##,
        );
        assert!(handles.is_ok());
    }
}
