"""NumPy's own BLAS for the Cranelift backend's matrix products, and its LAPACK for the
np.linalg ops.

NumPy wheels bundle OpenBLAS (`numpy.libs/libscipy_openblas64_-*.so`, entry points renamed
`scipy_cblas_dgemm64_` and so on, 64-bit integers). `register()` finds that library, already
loaded by NumPy, resolves `?gemm` and `?gemv` by name and hands their addresses to
`_core.set_blas`, so compiled products run the very code NumPy's `@` runs, with the thread
count NumPy's BLAS is set to (`threadpoolctl` and `OPENBLAS_NUM_THREADS` apply to both).
Where no known library is found (a NumPy built against another BLAS), products use the
`gemm` crate compiled into ember. The same library's LAPACK routines (`scipy_dgesv_64_`...)
go to `_core.set_lapack` for the linalg ops; without them, graphs with those ops run on the
eager backend.
"""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

from ember import _core

# (prefix, suffix) of the renamed CBLAS symbols, most specific first. A "64_" suffix marks
# the 64-bit-integer interface; names without it use NumPy's reported integer width.
_SYMBOL_FORMS = (("scipy_cblas_", "64_"), ("cblas_", "64_"), ("scipy_cblas_", ""), ("cblas_", ""))
_FUNCTIONS = ("sgemm", "dgemm", "sgemv", "dgemv")
# The Fortran LAPACK routines: `scipy_dgesv_64_`, `dgesv_64_`, `scipy_dgesv_`, `dgesv_`.
_LAPACK_FORMS = (("scipy_", "_64_"), ("", "_64_"), ("scipy_", "_"), ("", "_"))
_LAPACK = ("dgesv", "dgetrf", "dpotrf", "dsyevd", "dgelsd", "dgesdd")


def _numpy_blas_libraries() -> list[str]:
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    return sorted(glob.glob(os.path.join(libs, "*openblas*.so*")))


def _numpy_blas_ilp64() -> bool:
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except (KeyError, TypeError):
        return False
    return "64BITINT" in str(blas.get("openblas configuration", "")).upper()


def _resolve(forms: tuple[tuple[str, str], ...], names: tuple[str, ...]
             ) -> tuple[tuple[int, ...], bool] | None:
    """The addresses of `names` in the first of NumPy's BLAS libraries that exports them all
    in one of `forms` (prefix, suffix), and whether they take 64-bit integers."""
    for path in _numpy_blas_libraries():
        try:
            # RTLD_NOLOAD: only the copy NumPy already loaded, never a second one.
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LOCAL)
        except OSError:
            continue
        for prefix, suffix in forms:
            try:
                pointers = [getattr(lib, f"{prefix}{name}{suffix}") for name in names]
            except AttributeError:
                continue
            addresses = tuple(ctypes.cast(p, ctypes.c_void_p).value for p in pointers)
            ilp64 = suffix.endswith("64_") or _numpy_blas_ilp64()
            return addresses, ilp64  # type: ignore[return-value]
    return None


def find() -> tuple[tuple[int, int, int, int], bool] | None:
    """The addresses of NumPy's `sgemm`, `dgemm`, `sgemv`, `dgemv` and whether they take
    64-bit integers, or None."""
    return _resolve(_SYMBOL_FORMS, _FUNCTIONS)  # type: ignore[return-value]


def find_lapack() -> tuple[tuple[int, ...], bool] | None:
    """The addresses of NumPy's `dgesv_`, `dgetrf_`, `dpotrf_`, `dsyevd_`, `dgelsd_`,
    `dgesdd_` and whether they take 64-bit integers, or None."""
    return _resolve(_LAPACK_FORMS, _LAPACK)  # type: ignore[return-value]


def register() -> bool:
    """Registers NumPy's BLAS and LAPACK with the native backend; False where no BLAS was
    found."""
    lapack = find_lapack()
    if lapack is None:
        _core.set_lapack(None)
    else:
        _core.set_lapack(*lapack)
    found = find()
    if found is None:
        _core.set_blas(None)
        return False
    addresses, ilp64 = found
    _core.set_blas(addresses, ilp64)
    return True


def unregister() -> None:
    """Every product back to the `gemm` crate (for comparing the two paths)."""
    _core.set_blas(None)
