// Stand-in for rust-cuda's `add` kernel, written for kernelscope's tests (see ../README.md).
// rust-cuda hands its NVVM IR to libNVVM, the NVVM compiler nvcc runs (cicc); this is the
// kernel with the ABI rust-cuda gives `#[kernel] pub unsafe fn add(a: &[f32], b: &[f32],
// c: *mut f32)`: extern "C" (the #[no_mangle] name), each slice a pointer + length pair.
#include <cstddef>

extern "C" __global__ void add(const float* a, size_t a_len, const float* b, size_t b_len, float* c) {
  size_t i = (size_t)blockDim.x * blockIdx.x + threadIdx.x;
  if (i < a_len) {
    if (i >= b_len) __trap(); c[i] = a[i] + b[i];  // Rust's bounds check of b[i], then the sum
  }
}
