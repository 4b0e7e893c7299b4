// The Rust side of add.cu, written for kernelscope's tests (see ../README.md): the same
// kernel as rust-cuda would take it, on the same lines as add.cu's. Not compiled here
// (rust-cuda does not run on the build machines); the tests find `add` in it by name.
// Line 5 (add.cu's #include) is blank here.

use cuda_std::prelude::*;
#[kernel] pub unsafe fn add(a: &[f32], b: &[f32], c: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < a.len() {
        *c.add(i) = a[i] + b[i];
    }
}
