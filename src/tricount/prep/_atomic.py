"""Atomic add on an element of a NumPy array inside Numba ``prange`` loops.

Numba has atomics only on CUDA; on the CPU a shared counter written by several
threads needs LLVM's ``atomicrmw``. :func:`atomic_add` emits one (``lock xadd``
on x86) with monotonic ordering: only the sum matters, never the order in
which threads reach it. It returns the value *before* the addition, like
CUDA's ``atomicAdd``, so a caller that subtracts can tell who crossed a
threshold.

With ``NUMBA_DISABLE_JIT=1`` (how CI runs the kernels as plain Python, one
thread) it is an ordinary read-modify-write.
"""

from __future__ import annotations

from tricount._threads import load_numba

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["atomic_add"]

if numba.config.DISABLE_JIT:

    def atomic_add(array, index, value):
        """``old = array[index]; array[index] += value; return old`` (plain Python)."""
        old = array[index]
        array[index] += value
        return old

else:
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def atomic_add(typingctx, array, index, value):
        """``array[index] += value`` as one atomic instruction; returns the old value.

        ``array`` is a 1-D integer array; ``value`` is cast to its element type.
        """
        if not (isinstance(array, types.Array) and array.ndim == 1
                and isinstance(array.dtype, types.Integer) and isinstance(index, types.Integer)):
            return None
        sig = array.dtype(array, index, value)

        def codegen(context, builder, signature, args):
            array_type, index_type, value_type = signature.args
            array_value, index_value, value_value = args
            ary = context.make_array(array_type)(context, builder, array_value)
            index_value = context.cast(builder, index_value, index_type, types.intp)
            ptr = cgutils.get_item_pointer(context, builder, array_type, ary, [index_value],
                                           wraparound=False)
            value_value = context.cast(builder, value_value, value_type, array_type.dtype)
            return builder.atomic_rmw("add", ptr, value_value, "monotonic")

        return sig, codegen
