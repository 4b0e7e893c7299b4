//! Stand-in for a cuda-oxide `vecadd` kernel, written for kernelscope's tests (see
//! ../README.md). cuda-oxide hands LLVM IR to LLVM's NVPTX back end (`llc`); record.sh
//! compiles this file with rustc to LLVM IR and that IR with llc-22 for sm_80.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx;
use core::slice;

/// The global thread index; kept out of line so it stays a `.func`, as cuda-oxide's
/// `index_1d` helper does.
#[inline(never)]
#[no_mangle]
pub fn index_1d() -> usize {
    unsafe { (nvptx::_block_idx_x() * nvptx::_block_dim_x() + nvptx::_thread_idx_x()) as usize }
}

/// c[i] = a[i] + b[i]. cuda-oxide passes each slice as a pointer and a length; rustc's
/// "ptx-kernel" ABI would pass a slice as one 16-byte aggregate, so the pairs are spelled out.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn vecadd(a: *const f32, a_len: usize, b: *const f32, b_len: usize, c: *mut f32, c_len: usize) {
    let (a, b, c) = (slice::from_raw_parts(a, a_len), slice::from_raw_parts(b, b_len), slice::from_raw_parts_mut(c, c_len));
    let i = index_1d();
    if i < a.len() && i < b.len() && i < c.len() {
        c[i] = a[i] + b[i];
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
