//! Vector addition: c[i] = a[i] + b[i], one thread per element.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx;

#[no_mangle] // kernelscope: n = 1 << 24; a = f32[n] uniform(-1, 1, seed = 1); b = f32[n] uniform(-1, 1, seed = 2); c = f32[n] zeros; grid = ceil(n / block); block = 256; flops = n
pub unsafe extern "ptx-kernel" fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
    let idx = nvptx::_thread_idx_x() + nvptx::_block_idx_x() * nvptx::_block_dim_x();
    if (idx as u32) < n {
        let i = idx as usize;
        let sum = *a.add(i) + *b.add(i);
        *c.add(i) = sum;
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
