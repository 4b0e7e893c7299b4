//! The arithmetic of the crate's kernels.

/// a * x + y, written out so that each operation has its own line.
#[inline]
pub fn axpb(a: f32, x: f32, y: f32) -> f32 {
    let scaled = a * x;
    scaled + y
}

#[inline]
pub fn square(v: f32) -> f32 {
    v * v
}
