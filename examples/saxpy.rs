//! SAXPY: y[i] = a * x[i] + y[i], one thread per element.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx;

#[no_mangle] // kernelscope: n = 1 << 24; a = 2.0; x = f32[n] uniform(-1, 1, seed = 1); y = f32[n] uniform(-1, 1, seed = 2); grid = ceil(n / block); block = 256; bytes = 12 * n; flops = 2 * n
pub unsafe extern "ptx-kernel" fn saxpy(n: u32, a: f32, x: *const f32, y: *mut f32) {
    let i = nvptx::_block_idx_x() * nvptx::_block_dim_x() + nvptx::_thread_idx_x();
    if (i as u32) < n {
        let i = i as usize;
        *y.add(i) = a * *x.add(i) + *y.add(i);
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
