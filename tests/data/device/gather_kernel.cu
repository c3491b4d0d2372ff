// Case 2: a hand-written embedding gather used by train_custom_kernel.py through ctypes.
// The bug: no bounds check on the ids, so a corrupt id makes the kernel read far outside the
// table (an illegal address, reported by PyTorch at its next synchronising call).
#include <cuda_runtime.h>
#include <cstdint>

__global__ void gather_rows_kernel(float* out, const float* table, const int64_t* ids,
                                   int64_t n, int64_t dim) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * dim) return;
    int64_t row = i / dim;
    int64_t col = i % dim;
    out[i] = table[ids[row] * dim + col];
}

__global__ void scatter_add_rows_kernel(float* grad_table, const float* grad_out,
                                        const int64_t* ids, int64_t n, int64_t dim) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * dim) return;
    int64_t row = i / dim;
    int64_t col = i % dim;
    atomicAdd(&grad_table[ids[row] * dim + col], grad_out[i]);
}

extern "C" int gather_rows(float* out, const float* table, const int64_t* ids, int64_t n,
                           int64_t dim, void* stream) {
    int64_t total = n * dim;
    int threads = 256;
    int blocks = (int)((total + threads - 1) / threads);
    gather_rows_kernel<<<blocks, threads, 0, (cudaStream_t)stream>>>(out, table, ids, n, dim);
    return (int)cudaGetLastError();
}

extern "C" int scatter_add_rows(float* grad_table, const float* grad_out, const int64_t* ids,
                                int64_t n, int64_t dim, void* stream) {
    int64_t total = n * dim;
    int threads = 256;
    int blocks = (int)((total + threads - 1) / threads);
    scatter_add_rows_kernel<<<blocks, threads, 0, (cudaStream_t)stream>>>(grad_table, grad_out,
                                                                         ids, n, dim);
    return (int)cudaGetLastError();
}
