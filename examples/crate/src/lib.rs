//! Kernels of a multi-module crate: the arithmetic lives in `math`, the thread index
//! in the `crate_util` dependency.
#![no_std]
#![feature(abi_ptx)]

mod math;

use crate_util::global_index;

/// y[i] = a * x[i] + y[i] + bias, one thread per element.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn scaled_saxpy(n: u32, a: f32, bias: f32, x: *const f32, y: *mut f32) {
    let i = global_index();
    if i < n as usize {
        *y.add(i) = math::axpb(a, *x.add(i), *y.add(i)) + bias;
    }
}

/// out[i] = clamp(x[i], lo, hi) squared.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn clamp_square(n: u32, lo: f32, hi: f32, x: *const f32, out: *mut f32) {
    let i = global_index();
    if i < n as usize {
        *out.add(i) = math::square(crate_util::clamp(*x.add(i), lo, hi));
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
