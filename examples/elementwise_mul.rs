//! Elementwise multiply over slices: out[i] = a[i] * b[i], grid-stride loop.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx;
use core::slice;

/// The global index of this thread and the number of threads in the grid.
#[inline(always)]
unsafe fn grid_stride() -> (usize, usize) {
    let start = (nvptx::_block_idx_x() * nvptx::_block_dim_x() + nvptx::_thread_idx_x()) as usize;
    let stride = (nvptx::_grid_dim_x() * nvptx::_block_dim_x()) as usize;
    (start, stride)
}

#[no_mangle] // kernelscope: n = 1 << 24; a = f32[n] uniform(-1, 1, seed = 1); b = f32[n] uniform(-1, 1, seed = 2); out = f32[n] zeros; grid = 1024; block = 256; flops = n
pub unsafe extern "ptx-kernel" fn elementwise_mul(a: *const f32, b: *const f32, out: *mut f32, n: usize) {
    let a = slice::from_raw_parts(a, n);
    let b = slice::from_raw_parts(b, n);
    let out = slice::from_raw_parts_mut(out, n);
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < n {
        out[i] = a[i] * b[i];
        i += stride;
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
