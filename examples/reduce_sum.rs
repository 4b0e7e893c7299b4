//! Sum reduction: *out += input[0] + input[1] + ... + input[n - 1].
//!
//! The classic three-step pattern:
//! 1. each thread adds up its share of the input in a register (grid-stride loop);
//! 2. the threads of a block combine their sums in shared memory, halving the number
//!    of active threads each step, with a barrier (`_syncthreads`) between steps;
//! 3. thread 0 adds the block's total to `*out` with one atomic add.
//!
//! Launch with `BLOCK` threads per block and any number of blocks; set `*out = 0` first.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]

use core::arch::{asm, nvptx};

/// Threads per block. The shared buffer has one slot per thread, and the tree
/// reduction below needs a power of two.
const BLOCK: usize = 256;

/// A pointer to `$len` values of type `$ty` in the block's shared memory.
///
/// Rust has no syntax for GPU shared memory yet, so the buffer is declared in PTX
/// (`.shared`) and its address converted to a generic pointer (`cvta.shared`).
/// Every use declares the PTX symbol `$name`: use it once per kernel.
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

/// `*address += value` as one atomic operation (PTX `red`: the old value is not needed).
#[inline(always)]
unsafe fn atomic_add(address: *mut f32, value: f32) {
    asm!("red.add.f32 [{address}], {value};", address = in(reg64) address, value = in(reg32) value,
         options(nostack));
}

#[no_mangle] // kernelscope: n = 1 << 24; input = f32[n] uniform(0, 1, seed = 1); out = f32[1] zeros; grid = min(ceil(n / block), 1024); block = 256; bytes = 4 * n; flops = n
pub unsafe extern "ptx-kernel" fn reduce_sum(input: *const f32, out: *mut f32, n: u32) {
    let partial = shared_array!(reduce_partial, f32, BLOCK);
    let tid = nvptx::_thread_idx_x() as usize;
    let n = n as usize;

    // 1. Each thread sums every (grid size)-th element, starting at its global index.
    let mut i = nvptx::_block_idx_x() as usize * BLOCK + tid;
    let stride = nvptx::_grid_dim_x() as usize * BLOCK;
    let mut sum = 0.0f32;
    while i < n {
        sum += *input.add(i);
        i += stride;
    }
    *partial.add(tid) = sum;
    nvptx::_syncthreads();

    // 2. Tree reduction: the first half of the active threads adds in the second half.
    let mut active = BLOCK / 2;
    while active > 0 {
        if tid < active {
            *partial.add(tid) += *partial.add(tid + active);
        }
        nvptx::_syncthreads();
        active /= 2;
    }

    // 3. One atomic add per block.
    if tid == 0 {
        atomic_add(out, *partial);
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
