//! Tiled matrix multiply: C = A * B for row-major A (m x k), B (k x n), C (m x n).
//!
//! Each block computes a TILE x TILE tile of C, one element per thread. It walks along
//! k one tile at a time: the block copies a TILE x TILE tile of A and one of B into
//! shared memory (each thread copies one element of each), waits for all copies
//! (`_syncthreads`), and then every thread reads a row and a column of TILE values
//! from fast shared memory instead of global memory. Each value loaded from global
//! memory is used TILE times.
//!
//! Launch with TILE x TILE threads per block and ceil(n / TILE) x ceil(m / TILE) blocks
//! (x along the columns, y along the rows). Any m, n, k work: the edges are zero-padded.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]

use core::arch::{asm, nvptx};

/// The tile edge; the block is TILE x TILE threads.
const TILE: usize = 16;

/// A pointer to `$len` values of type `$ty` in the block's shared memory.
///
/// Rust has no syntax for GPU shared memory yet, so the buffer is declared in PTX
/// (`.shared`) and its address converted to a generic pointer (`cvta.shared`).
/// Every use declares the PTX symbol `$name`: use each name once per kernel.
macro_rules! shared_array {
    ($name:ident, $ty:ty, $len:expr) => {{
        let ptr: *mut $ty;
        asm!(
            concat!(".shared .align {align} .b8 ", stringify!($name), "[{bytes}];"),
            concat!("cvta.shared.u64 {ptr}, ", stringify!($name), ";"),
            align = const core::mem::align_of::<$ty>(),
            bytes = const $len * core::mem::size_of::<$ty>(),
            ptr = out(reg64) ptr,
            options(nostack),
        );
        ptr
    }};
}

#[no_mangle] // kernelscope: m = 1024; n = 1024; k = 1024; a = f32[m * k] uniform(-1, 1, seed = 1); b = f32[k * n] uniform(-1, 1, seed = 2); c = f32[m * n] zeros; grid = [ceil(n / 16), ceil(m / 16)]; block = [16, 16]; flops = 2 * m * n * k
pub unsafe extern "ptx-kernel" fn matmul_tiled(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: u32,
    n: u32,
    k: u32,
) {
    // The two tiles, row-major: element (r, c) is at `r * TILE + c`.
    let a_tile = shared_array!(matmul_a_tile, f32, TILE * TILE);
    let b_tile = shared_array!(matmul_b_tile, f32, TILE * TILE);

    let (m, n, k) = (m as usize, n as usize, k as usize);
    let tx = nvptx::_thread_idx_x() as usize;
    let ty = nvptx::_thread_idx_y() as usize;
    let row = nvptx::_block_idx_y() as usize * TILE + ty;
    let col = nvptx::_block_idx_x() as usize * TILE + tx;

    let mut sum = 0.0f32;
    for t in 0..k.div_ceil(TILE) {
        // Copy one element of each tile; outside the matrices, copy zero.
        let a_col = t * TILE + tx;
        let b_row = t * TILE + ty;
        *a_tile.add(ty * TILE + tx) = if row < m && a_col < k { *a.add(row * k + a_col) } else { 0.0 };
        *b_tile.add(ty * TILE + tx) = if b_row < k && col < n { *b.add(b_row * n + col) } else { 0.0 };
        nvptx::_syncthreads(); // both tiles are complete

        for e in 0..TILE {
            sum += *a_tile.add(ty * TILE + e) * *b_tile.add(e * TILE + tx);
        }
        nvptx::_syncthreads(); // everyone is done with the tiles before they are overwritten
    }

    if row < m && col < n {
        *c.add(row * n + col) = sum;
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
