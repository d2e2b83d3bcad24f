//! An exact, linear-time Euclidean distance transform measured from each cell's centre
//! to the border of the nearest excluded cell (its square), not to its centre.
//!
//! Centre-to-centre transforms (scipy's, OpenCV's) overestimate the distance to the
//! excluded ground by up to half a cell diagonal, which would break the corridor's lower
//! bound. In cell units, the distance from the centre of cell `p` to the square of cell
//! `e` is `√(g(pₓ − eₓ)² + g(p_y − e_y)²)` with `g(d) = max(0, |d| − ½)`, which is
//! separable like the squared Euclidean distance:
//!
//! 1. per column, `G(x, y) = g(distance to the nearest excluded cell of the column)²`,
//!    from one sweep down and one sweep up;
//! 2. per row, `D²(p) = min_q G(q) + g(p − q)²`. For `q < p`, `g(p − q)² = ((p − ½) − q)²`
//!    and for `q > p`, `g(p − q)² = ((p + ½) − q)²`: parabolas of the usual shape,
//!    evaluated half a cell to the side. With `E(t) = min_q G(q) + (t − q)²`, the lower
//!    envelope of Felzenszwalb and Huttenlocher (2012), `D²(p) = min(G(p), E(p − ½),
//!    E(p + ½))` exactly: each envelope term is the true term for the `q` on its side
//!    and at least the true term for the others.
//!
//! Everything outside the raster is excluded too: it counts as a ring of excluded cells
//! around it. The column pass is exact in integers; the row pass works in f64 and the
//! result is rounded down to f32.

/// The border distance of each cell times `scale` (the cell size, m), rounded down to
/// f32, for a raster of `width` × `height` cells in row-major order where `excluded(i)`
/// tells whether cell `i` is excluded. Written into `out` (resized). The column pass
/// keeps its counts in `out` itself, so the peak memory beyond the input is the output
/// and a few rows per thread. Both passes run on all of rayon's threads.
pub fn border_distance(
    width: usize,
    height: usize,
    excluded: impl Fn(usize) -> bool + Sync,
    scale: f64,
    out: &mut Vec<f32>,
) {
    border_distance_with(width, height, excluded, out, |d2| {
        lower_f32((d2.sqrt()) * scale)
    });
}

/// `v` as the largest f32 that is not above it (the cast rounds to nearest).
pub fn lower_f32(v: f64) -> f32 {
    let f = v as f32;
    if f as f64 > v { f.next_down() } else { f }
}

/// The transform with the squared distance (cells²) of each cell mapped by `finish`.
pub fn border_distance_with(
    width: usize,
    height: usize,
    excluded: impl Fn(usize) -> bool + Sync,
    out: &mut Vec<f32>,
    finish: impl Fn(f64) -> f32 + Sync,
) {
    use rayon::prelude::*;
    out.clear();
    out.resize(width * height, 0.0);
    if width == 0 || height == 0 {
        return;
    }
    column_pass(width, height, &excluded, out);
    // The row pass: each row on its own, from the column counts to the squared distance.
    out.par_chunks_mut(width).for_each_init(
        || {
            (
                vec![0.0f64; width],
                vec![0.0f64; width],
                Envelope::new(width),
            )
        },
        |(g, d2, env), row| {
            for (gx, c) in g.iter_mut().zip(row.iter()) {
                // g(k)² with g(k) = k − ½ for k ≥ 1.
                let k = c.to_bits();
                *gx = if k == 0 {
                    0.0
                } else {
                    let h = k as f64 - 0.5;
                    h * h
                };
            }
            env.transform(g, d2);
            for (c, &d) in row.iter_mut().zip(d2.iter()) {
                *c = finish(d);
            }
        },
    );
}

/// Columns a task of the column pass takes: 64 f32, four cache lines of each row.
const STRIP: usize = 64;

/// The raster's cells, shared by the tasks of the column pass, each of which writes only
/// its own strip of columns.
struct Strips(*mut f32);
// SAFETY: the tasks of `column_pass` write disjoint sets of cells (their own columns)
// and nothing else reads or writes the buffer while they run.
unsafe impl Sync for Strips {}

/// The column pass: for each cell, the count of cells to the nearest excluded cell of
/// its column (0 for an excluded cell; the ring outside the raster is 1 beyond the edge
/// row), the smaller of the sweeps down and up, kept as the bits of `out`. Strips of
/// [`STRIP`] columns run in parallel.
fn column_pass(
    width: usize,
    height: usize,
    excluded: &(impl Fn(usize) -> bool + Sync),
    out: &mut [f32],
) {
    use rayon::prelude::*;
    assert_eq!(out.len(), width * height);
    let cells = Strips(out.as_mut_ptr());
    let cells = &cells;
    (0..width.div_ceil(STRIP)).into_par_iter().for_each(|s| {
        let (x0, x1) = (s * STRIP, ((s + 1) * STRIP).min(width));
        let mut run = [0u32; STRIP];
        let at = |i: usize| {
            debug_assert!(i < width * height && (x0..x1).contains(&(i % width)));
            // SAFETY: `i` is in the raster (`out` has width × height cells) and in this
            // task's strip of columns, which no other task touches.
            unsafe { cells.0.add(i) }
        };
        for y in 0..height {
            let row = y * width;
            for x in x0..x1 {
                let r = if excluded(row + x) {
                    0
                } else {
                    run[x - x0] + 1
                };
                run[x - x0] = r;
                unsafe { *at(row + x) = f32::from_bits(r) };
            }
        }
        run = [0u32; STRIP]; // the ring below the raster
        for y in (0..height).rev() {
            let row = y * width;
            for x in x0..x1 {
                let r = if excluded(row + x) {
                    0
                } else {
                    run[x - x0] + 1
                };
                run[x - x0] = r;
                let c = at(row + x);
                unsafe { *c = f32::from_bits((*c).to_bits().min(r)) };
            }
        }
    });
}

/// The lower envelope of parabolas `G(q) + (t − q)²` of one row (Felzenszwalb and
/// Huttenlocher), with the ring of excluded cells at `q = −1` and `q = n` included.
struct Envelope {
    v: Vec<i64>,
    z: Vec<f64>,
}

impl Envelope {
    fn new(n: usize) -> Envelope {
        Envelope {
            v: Vec::with_capacity(n + 2),
            z: Vec::with_capacity(n + 3),
        }
    }

    /// `out[p] = min(G(p), E(p − ½), E(p + ½))`, the squared border distance of the row.
    fn transform(&mut self, g: &[f64], out: &mut [f64]) {
        debug_assert_eq!(g.len(), out.len());
        let n = g.len() as i64;
        let f = |q: i64| -> f64 {
            if q < 0 || q >= n {
                0.0 // the excluded ring outside the raster
            } else {
                g[q as usize]
            }
        };
        self.v.clear();
        self.z.clear();
        self.v.push(-1);
        self.z.push(f64::NEG_INFINITY);
        self.z.push(f64::INFINITY);
        for q in 0..=n {
            let fq = f(q) + (q * q) as f64;
            loop {
                let vk = *self.v.last().expect("the envelope is never empty");
                let s = (fq - (f(vk) + (vk * vk) as f64)) / (2 * (q - vk)) as f64;
                if s <= self.z[self.z.len() - 2] && self.v.len() > 1 {
                    self.v.pop();
                    self.z.pop();
                    continue;
                }
                *self.z.last_mut().expect("the envelope has bounds") = s;
                self.v.push(q);
                self.z.push(f64::INFINITY);
                break;
            }
        }
        // Evaluate at t = p − ½ and t = p + ½ for p = 0..n, sweeping t upward.
        let mut k = 0;
        let mut eval = |t: f64| -> f64 {
            while self.z[k + 1] < t {
                k += 1;
            }
            let q = self.v[k];
            let d = t - q as f64;
            f(q) + d * d
        };
        let mut left = eval(-0.5);
        for p in 0..n as usize {
            let right = eval(p as f64 + 0.5);
            out[p] = g[p].min(left).min(right);
            left = right;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The squared distance from the centre of every cell to the nearest excluded square
    /// (the ring outside included), by brute force.
    fn brute(w: usize, h: usize, ex: &[bool]) -> Vec<f64> {
        let g = |d: i64| ((d.abs() as f64) - 0.5).max(0.0);
        let mut out = vec![f64::INFINITY; w * h];
        for py in 0..h as i64 {
            for px in 0..w as i64 {
                let mut best = f64::INFINITY;
                for ey in -1..=h as i64 {
                    for ex_ in -1..=w as i64 {
                        let inside = ey >= 0 && ey < h as i64 && ex_ >= 0 && ex_ < w as i64;
                        if inside && !ex[(ey as usize) * w + ex_ as usize] {
                            continue;
                        }
                        let d = g(px - ex_).powi(2) + g(py - ey).powi(2);
                        best = best.min(d);
                    }
                }
                out[py as usize * w + px as usize] = best;
            }
        }
        out
    }

    #[test]
    fn a_single_cell_raster_is_half_a_cell_from_the_ring() {
        let mut out = Vec::new();
        border_distance_with(1, 1, |_| false, &mut out, |d2| d2 as f32);
        assert_eq!(out, vec![0.25]);
    }

    #[test]
    fn the_tie_of_centre_distances_is_resolved_by_the_border() {
        // Cells (5, 0) and (4, 3) from (0, 0) are both 5 centres away; their squares are
        // 4.5 and √(3.5² + 2.5²) = 4.30 away. A centre transform cannot tell.
        let (w, h) = (12, 12);
        let mut ex = vec![false; w * h];
        let at = |x: usize, y: usize| (y + 6) * w + x + 6;
        ex[at(5, 0)] = true;
        ex[at(4, 3)] = true;
        let mut out = Vec::new();
        border_distance_with(w, h, |i| ex[i], &mut out, |d2| d2 as f32);
        // The ring is 6.5 cells away; (4, 3) is nearer.
        assert_eq!(out[at(0, 0)], 18.5);
    }

    /// A raster of several column strips (the last one partial) and many rows, so that
    /// the parallel passes split it: still exactly the brute force.
    #[test]
    fn strips_and_rows_in_parallel_equal_brute_force() {
        let (w, h) = (2 * STRIP + 22, 37);
        let ex: Vec<bool> = (0..w * h)
            .map(|k| (k * 2_654_435_761usize) % 1000 < 15 || (k % w == 70 && k / w > 5))
            .collect();
        let mut out = Vec::new();
        border_distance_with(w, h, |i| ex[i], &mut out, |d2| d2 as f32);
        let want = brute(w, h, &ex);
        for i in 0..w * h {
            assert_eq!(out[i] as f64, want[i], "cell {i}");
        }
    }

    proptest! {
        /// The code against lemma `corridor.f32_toward_zero_keeps_the_bound`
        /// (proofs/corridor.py): a stored distance is the f64 one rounded toward zero,
        /// `d_f = d (1 − δ)` with `0 ≤ δ ≤ 2⁻²³`.
        #[test]
        fn lemma_lower_f32_rounds_toward_zero(v in 1e-6f64..1e6) {
            let f = lower_f32(v) as f64;
            prop_assert!(f <= v && v - f <= v * 2f64.powi(-23), "{v} {f}");
        }

        #[test]
        fn equals_brute_force(
            w in 1usize..24, h in 1usize..24,
            seed in prop::collection::vec(prop::bool::weighted(0.08), 24 * 24),
        ) {
            let ex: Vec<bool> = seed[..w * h].to_vec();
            // Squared distances are multiples of ¼ below 2²⁴: exact in f32.
            let mut out = Vec::new();
            border_distance_with(w, h, |i| ex[i], &mut out, |d2| d2 as f32);
            let want = brute(w, h, &ex);
            for i in 0..w * h {
                prop_assert_eq!(out[i] as f64, want[i], "cell {}", i);
            }
            // The stored distances (scale 0.25 m) never exceed the f64 value.
            let mut d = Vec::new();
            border_distance(w, h, |i| ex[i], 0.25, &mut d);
            for i in 0..w * h {
                let exact = want[i].sqrt() * 0.25;
                prop_assert!(d[i] as f64 <= exact);
                prop_assert!(exact - d[i] as f64 <= 1e-6);
            }
        }
    }
}
