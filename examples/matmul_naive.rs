//! Naive matrix multiply: C = A * B for row-major A (m x k), B (k x n), C (m x n).
//!
//! One thread computes one element of C: the dot product of a row of A and a column
//! of B, read straight from global memory. Simple, but every element of A and B is
//! read again by many threads; `matmul_tiled.rs` reuses them through shared memory.
//!
//! Launch a 2D grid that covers C: x along the columns, y along the rows
//! (e.g. 16 x 16 threads per block, ceil(n / 16) x ceil(m / 16) blocks).
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx;

#[no_mangle] // kernelscope: m = 1024; n = 1024; k = 1024; a = f32[m * k] uniform(-1, 1, seed = 1); b = f32[k * n] uniform(-1, 1, seed = 2); c = f32[m * n] zeros; grid = [ceil(n / 16), ceil(m / 16)]; block = [16, 16]; flops = 2 * m * n * k
pub unsafe extern "ptx-kernel" fn matmul_naive(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: u32,
    n: u32,
    k: u32,
) {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let row = (nvptx::_block_idx_y() * nvptx::_block_dim_y() + nvptx::_thread_idx_y()) as usize;
    let col = (nvptx::_block_idx_x() * nvptx::_block_dim_x() + nvptx::_thread_idx_x()) as usize;
    if row >= m || col >= n {
        return;
    }

    let mut sum = 0.0f32;
    for e in 0..k {
        sum += *a.add(row * k + e) * *b.add(e * n + col);
    }
    *c.add(row * n + col) = sum;
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
