//! ember's back end: fused kernels compiled to native code with Cranelift.
