//! Helpers shared by kernel crates: the global thread index and a clamp.
#![no_std]
#![feature(stdarch_nvptx)]

use core::arch::nvptx;

/// This thread's index in a one-dimensional grid.
#[inline(always)]
pub fn global_index() -> usize {
    unsafe { (nvptx::_block_idx_x() * nvptx::_block_dim_x() + nvptx::_thread_idx_x()) as usize }
}

/// `v` limited to `lo..=hi`.
#[inline]
pub fn clamp(v: f32, lo: f32, hi: f32) -> f32 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}
