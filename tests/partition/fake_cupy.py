"""A stand-in for CuPy over NumPy, with the partitioned count's kernels emulated, for CPU tests.

The GPU executor (tricount.partition.gpu, tricount.gpu.apex, tricount.gpu.chunks)
is mostly orchestration: chunking, streams, plans, the order of keys. This
module lets the CPU suite run all of it: ``cupy`` becomes NumPy arrays of a
subclass whose module is "cupy" (so ``tricount.prep.xp.array_namespace`` takes
them for CuPy's), with the few CUDA objects the code touches (devices,
streams, events, pinned memory, the memory pool and hooks), and every kernel
the count launches is replaced by a NumPy emulation of its .cu contract that
first checks each argument's type against the kernel's C signature (a wrong
dtype there is garbage on a real GPU). Appended keys come out in a random
order, as from warp-aggregated atomics. The emulated tc_hash checks its
preconditions (long lists before short ones in every task, sorted owner
lists) and counts by looking every id of a partner's list up in its owner's
(binary searches, in NumPy). The real kernels run in test_partition_gpu.py on
a GPU.

Device memory is accounted as CuPy's pool does to its memory hooks: every
array that owns its data is one allocation (rounded up to
:data:`ALLOCATION_UNIT`), from its creation until NumPy frees it, reported to
the hooks entered in the allocating thread (so ``live_memory_hook`` measures
the emulated count as it does the real one), and counted in the default pool's
bytes in use on its device until it is freed, in whatever thread. Host arrays given to
``cupy.asarray`` are copied, as to a device; pinned buffers are host memory.
The workspaces CuPy allocates inside a call are reported for the call's
duration (:func:`_workspace`): a sort's second buffer, an argsort's key copy,
indices and buffers, a boolean mask's or nonzero's running count, a scatter's
converted values.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import itertools
import threading
import types
import weakref

import numpy as np

_RNG = np.random.default_rng(12345)


#: CuPy's pool hands out blocks of multiples of 512 bytes.
ALLOCATION_UNIT = 512


class _Hooks(threading.local):
    """The memory hooks entered in this thread, as CuPy keeps them; ``paused`` inside an
    emulated kernel (its NumPy temporaries are registers and shared memory on a GPU)."""

    def __init__(self):
        self.active = []
        self.paused = False


_HOOKS = _Hooks()
_POINTERS = itertools.count(1 << 20)
_OWNERS = {}  # id of an array owning device data -> its pointer, while it lives
_USED = {}  # device id -> the bytes of its live allocations (the pool's used_bytes)
_PLACED = {}  # pointer -> its device id


def _block(nbytes: int) -> int:
    return -(-int(nbytes) // ALLOCATION_UNIT) * ALLOCATION_UNIT


def _malloc(nbytes: int) -> int | None:
    """Report an allocation of ``nbytes`` to this thread's hooks; its pointer (None: empty)."""
    if nbytes <= 0:
        return None
    ptr = next(_POINTERS)
    device = Device().id
    _PLACED[ptr] = device
    _USED[device] = _USED.get(device, 0) + _block(nbytes)
    for hook in list(_HOOKS.active):
        hook.malloc_postprocess(device, int(nbytes), _block(nbytes), ptr, 0)
    return ptr


def _free(nbytes: int, ptr: int) -> None:
    device = _PLACED.pop(ptr)
    _USED[device] -= _block(nbytes)
    # A finalizer may run in a thread that is ending, whose thread-local state is gone:
    # no hook of its is active then.
    for hook in list(getattr(_HOOKS, "active", ())):
        hook.free_postprocess(device, _block(nbytes), ptr, 0)


def _own(array: np.ndarray) -> None:
    """Account the data under ``array`` (its last base) as device memory, once, until freed."""
    if _HOOKS.paused:
        return
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    key = id(root)
    if key in _OWNERS:
        return
    ptr = _malloc(root.nbytes)
    if ptr is None:
        return
    _OWNERS[key] = ptr

    def freed(nbytes=root.nbytes, ptr=ptr, key=key):
        _OWNERS.pop(key, None)
        _free(nbytes, ptr)

    weakref.finalize(root, freed)


@contextlib.contextmanager
def _workspace(nbytes: int):
    """A temporary device allocation of ``nbytes`` for the duration of a call."""
    ptr = _malloc(nbytes)
    try:
        yield
    finally:
        if ptr is not None:
            _free(nbytes, ptr)


def sort_workspace(nbytes: int) -> int:
    """Bytes Thrust's radix sort allocates to sort ``nbytes`` of keys: a second key buffer,
    plus CUB's digit counts and look-back tiles (an estimate: about 1/32 of the keys and
    16 KiB)."""
    return int(nbytes) + int(nbytes) // 32 + (16 << 10)


class FakeArray(np.ndarray):
    """A NumPy array that answers CuPy's extra methods and is accounted as device memory."""

    def __array_finalize__(self, obj):
        _own(self)

    def sort(self, axis=-1, kind=None, order=None):
        with _workspace(sort_workspace(self.nbytes)):
            super().sort(axis=axis, kind=kind, order=order)

    def __getitem__(self, key):
        if isinstance(key, np.ndarray) and key.dtype == np.bool_:
            with _workspace(4 * key.size):  # the mask's int32 running count
                return super().__getitem__(key)
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        converted = (isinstance(key, np.ndarray) and key.dtype != np.bool_
                     and isinstance(value, np.ndarray) and value.dtype != self.dtype)
        with _workspace(value.size * self.itemsize if converted else 0):
            super().__setitem__(key, value)

    def get(self, stream=None, order="C", out=None):
        if out is None:
            return np.array(self)
        out[...] = self
        return out

    def set(self, arr, stream=None):
        self[...] = arr

    @property
    def device(self):
        return Device(0)

    @property
    def data(self):
        return _Pointer(self)


FakeArray.__module__ = "cupy._fake"


class _Pointer:
    """What ``ndarray.data`` gives for a copy between devices (CuPy's MemoryPointer)."""

    def __init__(self, array):
        self.array = array

    def copy_from_device_async(self, src, size, stream=None):
        dst = self.array.reshape(-1).view(np.uint8)
        dst[:size] = src.array.reshape(-1).view(np.uint8)[:size]


def _wrap(value):
    if isinstance(value, np.ndarray) and not isinstance(value, FakeArray):
        return value.view(FakeArray)
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    return value


def _wrapped(fn):
    def call(*args, **kwargs):
        return _wrap(fn(*args, **kwargs))

    return call


class Device:
    _local = threading.local()

    def __init__(self, device=None):
        self.id = int(getattr(Device._local, "id", 0) if device is None else device)
        self.attributes = {"MultiProcessorCount": 4, "MaxSharedMemoryPerBlockOptin": 1 << 16,
                           "MaxSharedMemoryPerBlock": 1 << 15}

    def __enter__(self):
        self._previous = getattr(Device._local, "id", 0)
        Device._local.id = self.id
        return self

    def __exit__(self, *exc):
        Device._local.id = self._previous

    def use(self):
        Device._local.id = self.id

    def synchronize(self):  # every emulated kernel has run when its call returns
        pass


class Event:
    def synchronize(self):
        pass

    def record(self, stream=None):
        pass


class Stream:
    _local = threading.local()

    def __init__(self, non_blocking=False, null=False):
        pass

    def __enter__(self):
        Stream._local.stack = getattr(Stream._local, "stack", []) + [self]
        return self

    def __exit__(self, *exc):
        Stream._local.stack.pop()

    def record(self, event=None):
        return Event()

    def wait_event(self, event):
        assert isinstance(event, Event)

    def synchronize(self):
        pass


def get_current_stream():
    stack = getattr(Stream._local, "stack", [])
    return stack[-1] if stack else Stream()


class MemoryHook:
    """Entered, it hears this thread's allocations and frees (``*_postprocess``)."""

    name = "MemoryHook"

    def __enter__(self):
        # As CuPy: a hook's name may be entered once per thread (a hook entered twice, as a
        # worker's context nested in itself, is a KeyError there).
        if any(h.name == self.name for h in _HOOKS.active):
            raise KeyError(f"memory hook {self.name} already exists")
        _HOOKS.active.append(self)
        return self

    def __exit__(self, *exc):
        _HOOKS.active.remove(self)
        return False

    def malloc_postprocess(self, device_id, size, mem_size, mem_ptr, pmem_id):
        pass

    def free_postprocess(self, device_id, mem_size, mem_ptr, pmem_id):
        pass


class OutOfMemoryError(MemoryError):
    pass


class Pool:
    def free_bytes(self):
        return 0

    def used_bytes(self):
        """The current device's bytes in live allocations, every thread's."""
        return _USED.get(Device().id, 0)

    def malloc(self, size):
        raise NotImplementedError("arrays allocate through _own")

    def free_all_blocks(self):
        pass


#: Bytes "free" on each fake device.
FREE_BYTES = {"free": 1 << 30}


def _mem_get_info():
    return FREE_BYTES["free"], FREE_BYTES["free"]


class _Module(types.ModuleType):
    """NumPy's functions, returning FakeArrays; its types and scalars as they are."""

    def __getattr__(self, name):
        value = getattr(np, name)
        if callable(value) and not isinstance(value, type):
            return _wrapped(value)
        return value


def _asarray(a, dtype=None, order=None, **kwargs):
    """A device array: FakeArrays as they are (or converted), anything else copied."""
    if isinstance(a, FakeArray):
        return np.asarray(a, dtype=dtype, order=order).view(FakeArray)
    return np.array(a, dtype=dtype, order=order, copy=True).view(FakeArray)


def _argsort(a, axis=-1, kind=None):
    """Thrust's argsort: a copy of the keys, int64 indices, and a sort of both."""
    a = np.asarray(a)
    with _workspace(a.nbytes + sort_workspace(a.nbytes + 8 * a.size)):
        return np.argsort(a, axis=axis, kind="stable").view(FakeArray)


def _flatnonzero(a):
    """CuPy's nonzero: a boolean copy unless ``a`` is one, and an int32 running count."""
    a = np.asarray(a)
    with _workspace((0 if a.dtype == np.bool_ else a.size) + 4 * a.size):
        return np.flatnonzero(a).view(FakeArray)


def make_modules(device_count: int = 1):
    """``(cupy, cupyx)`` stand-ins."""
    cp = _Module("cupy")
    # A spec of no origin, as a namespace has: importlib.util.find_spec("cupy") (the kernel
    # cache's identity, tricount.gpu.warm) reads it where a real CuPy is installed too.
    cp.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    cp.ndarray = FakeArray
    cp.asarray = cp.array = _asarray
    cp.argsort = _argsort
    cp.flatnonzero = _flatnonzero
    cp.asnumpy = lambda a, stream=None: np.array(a)
    pool = Pool()
    cp.get_default_memory_pool = lambda: pool
    cp.get_default_pinned_memory_pool = lambda: Pool()
    cuda = types.SimpleNamespace(
        Device=Device, Stream=Stream, Event=Event, get_current_stream=get_current_stream,
        MemoryHook=MemoryHook, get_allocator=lambda: pool.malloc,
        memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError),
        runtime=types.SimpleNamespace(getDeviceCount=lambda: device_count,
                                      memGetInfo=_mem_get_info,
                                      getDeviceProperties=lambda d: {"name": b"fake GPU"},
                                      deviceCanAccessPeer=lambda d, p: 1,
                                      deviceEnablePeerAccess=lambda p: None,
                                      CUDARuntimeError=RuntimeError),
        driver=types.SimpleNamespace(),  # no occupancy query: resident_grid falls back
        compiler=types.SimpleNamespace(CompileException=RuntimeError))
    cp.cuda = cuda
    cupyx = types.ModuleType("cupyx")
    cupyx.__spec__ = importlib.machinery.ModuleSpec("cupyx", None)
    cupyx.empty_pinned = lambda shape, dtype=np.float64: np.empty(shape, dtype=dtype)
    return cp, cupyx


# -- the kernels -----------------------------------------------------------------------------

_C_TYPES = {"int": np.int32, "long long": np.int64, "unsigned int": np.uint32,
            "unsigned long long": np.uint64}
_SCALARS = {"ll": np.int64, "int": np.int32, "u64": np.uint64}


def _chunk_offsets(indptr, n_rows, e0, e1):
    """A chunk's offsets as the kernels read them (slice.cu's tc_chunk_offsets): the rows'
    stored offsets clamped to the chunk's entries [e0, e1), from 0; the chunk's first and
    last rows hold them all."""
    n_rows, e0, e1 = int(n_rows), int(e0), int(e1)
    stored = np.asarray(indptr[:n_rows + 1], dtype=np.int64)
    assert 0 <= e0 <= e1 and stored[0] <= e0 and stored[-1] >= e1, "the chunk's entries"
    assert (np.diff(stored) >= 0).all(), "offsets not rising"
    return np.clip(stored, e0, e1) - e0


def _check(name, args, spec, types_):
    assert len(args) == len(spec), f"{name}: {len(args)} arguments, signature has {len(spec)}"
    for i, (arg, kind) in enumerate(zip(args, spec)):
        if kind.endswith("*"):
            dtype = types_.get(kind[:-1], None) or np.dtype(kind[:-1])
            assert isinstance(arg, np.ndarray), f"{name} argument {i}: not an array"
            assert arg.dtype == dtype, f"{name} argument {i}: {arg.dtype}, kernel takes {dtype}"
            assert arg.flags.c_contiguous, f"{name} argument {i}: not contiguous"
        else:
            assert type(arg) is _SCALARS[kind], \
                f"{name} argument {i}: {type(arg).__name__}, kernel takes {kind}"


def _append(keys, cursor, new):
    """Append ``new`` in a random order (warp-aggregated atomics), bounds checked."""
    new = _RNG.permutation(np.asarray(new, dtype=np.uint64))
    at = int(cursor[0])
    assert at + new.shape[0] <= keys.shape[0], "append past the end of the keys buffer"
    keys[at:at + new.shape[0]] = new
    cursor[0] = at + new.shape[0]


def _bit_length(x):
    return np.floor(np.log2(np.maximum(x, 1))).astype(np.int64) + 1


class Kernel:
    def __init__(self, stem, name, defines):
        self.stem, self.name, self.defines = stem, name, dict(defines)
        self.shared_size_bytes = 0
        self.max_dynamic_shared_size_bytes = 0
        self.kernel = types.SimpleNamespace(ptr=0)
        self.num_regs = 32

    def __call__(self, grid, block, args, shared_mem=0):
        types_ = {"V": _C_TYPES[self.defines.get("vertex_t", "int")],
                  "E": _C_TYPES[self.defines.get("edge_t", "long long")],
                  "H": _C_TYPES[self.defines.get("hist_t", "unsigned long long")]}
        _HOOKS.paused = True
        try:
            getattr(self, self.name)(args, types_)
        finally:
            _HOOKS.paused = False

    def tc_prep_histogram(self, a, t):
        _check(self.name, a, ["V*", "ll", "H*"], t)
        ids, n, counts = a
        np.add.at(counts, ids[:int(n)], counts.dtype.type(1))

    def tc_prep_unpack(self, a, t):
        gather, mark = bool(self.defines["gather"]), bool(self.defines["mark"])
        _check(self.name, a, ["uint64*", "int64*" if gather else "uint64*", "ll", "int", "int",
                              "u64", "V*", "V*", "uint8*" if mark else "uint64*"], t)
        keys, positions, count, drop, shift, mask, high, low, present = a
        k = (keys[positions[:int(count)]] if gather else keys[:int(count)]) >> np.uint64(drop)
        high[:int(count)] = (k >> np.uint64(shift)).astype(high.dtype)
        low[:int(count)] = (k & mask).astype(low.dtype)

    def tc_prep_task_starts(self, a, t):
        _check(self.name, a, ["V*", "int64*", "int64*", "ll", "ll", "uint8*"], t)
        owners, ptr, running, n, max_probes, starts = a
        n = int(n)
        first = ptr[owners[:n]]
        i = np.arange(n)
        base = running[first]
        piece = (running[:n] - base) // int(max_probes)
        before = np.empty(n, dtype=np.int64)
        before[1:] = (running[:n - 1] - base[1:]) // int(max_probes)
        before[0] = -1
        starts[:n] = ((i == first) | (piece != before)).astype(np.uint8)

    def _oriented(self, lo, hi, rank, n):
        a, b = rank[lo[:n]], rank[hi[:n]]
        return np.minimum(a, b), np.maximum(a, b)

    def tc_slice_out_degree(self, a, t):
        _check(self.name, a, ["V*", "V*", "V*", "ll", "int32*"], t)
        lo, hi, rank, n, out = a
        s, _ = self._oriented(lo, hi, rank, int(n))
        np.add.at(out, s, np.int32(1))

    def tc_slice_rank_keys(self, a, t):
        _check(self.name, a, ["V*", "V*", "V*", "ll", "int", "ll", "ll", "uint64*", "uint64*"],
               t)
        lo, hi, rank, n, shift, first, end, keys, cursor = a
        s, tg = self._oriented(lo, hi, rank, int(n))
        keep = (s >= first) & (s < end)
        _append(keys, cursor, (s[keep].astype(np.uint64) << np.uint64(shift))
                | tg[keep].astype(np.uint64))

    def tc_slice_rank_keys_by_share(self, a, t):
        _check(self.name, a, ["V*", "V*", "V*", "ll", "int", "int64*", "int", "int64*",
                              "uint64*", "uint64*"], t)
        lo, hi, rank, n, shift, bounds, parts, starts, keys, cursors = a
        s, tg = self._oriented(lo, hi, rank, int(n))
        share = np.searchsorted(bounds[1:int(parts)], s, side="right")
        for j in range(int(parts)):
            keep = share == j
            group = keys[int(starts[j]):]  # a view: the group's cursor counts from its start
            _append(group, cursors[j:j + 1], (s[keep].astype(np.uint64) << np.uint64(shift))
                    | tg[keep].astype(np.uint64))

    def tc_slice_scatter(self, a, t):
        _check(self.name, a, ["V*", "V*", "V*", "ll", "uint64*", "V*"], t)
        lo, hi, rank, n, cursor, cols = a
        s, tg = self._oriented(lo, hi, rank, int(n))
        # The atomics' order is arbitrary: a random one, each edge at its source's next place.
        order = _RNG.permutation(s.shape[0])
        s, tg = s[order], tg[order]
        by_source = np.argsort(s, kind="stable")
        s, tg = s[by_source], tg[by_source]
        taken = np.arange(s.shape[0]) - np.searchsorted(s, s, side="left")
        at = cursor[s].astype(np.int64) + taken
        assert (at < cols.shape[0]).all(), "a scattered entry past the end of the ids"
        cols[at] = tg
        np.add.at(cursor, s, np.uint64(1))

    def tc_slice_row_keys(self, a, t):
        _check(self.name, a, ["V*", "V*", "ll", "int", "uint64*"], t)
        rows, cols, n, shift, keys = a
        n = int(n)
        keys[:n] = (rows[:n].astype(np.uint64) << np.uint64(shift)) | cols[:n].astype(np.uint64)

    def tc_slice_low_ids(self, a, t):
        _check(self.name, a, ["uint64*", "ll", "u64", "V*"], t)
        keys, count, mask, low = a
        low[:int(count)] = (keys[:int(count)] & mask).astype(low.dtype)

    def tc_slice_csr_pairs(self, a, t):
        _check(self.name, a, ["int64*", "V*", "ll", "ll", "ll", "ll", "int32*", "ll", "ll",
                              "int", "int", "u64", "ll", "ll", "uint64*", "uint64*"], t)
        indptr, cols, n_rows, e0, e1, r0 = a[:6]
        local = _chunk_offsets(indptr, n_rows, e0, e1)
        rows = (int(r0) + np.repeat(np.arange(int(n_rows)), np.diff(local))).astype(cols.dtype)
        self._block_pairs(rows, cols, int(local[-1]), *a[6:])

    def tc_slice_entry_rows(self, a, t):
        _check(self.name, a, ["int64*", "ll", "ll", "ll", "ll", "V*"], t)
        indptr, n_rows, e0, e1, r0, rows = a
        local = _chunk_offsets(indptr, n_rows, e0, e1)
        n = int(local[-1])
        assert rows.shape[0] >= n, "rows shorter than the entries"
        rows[:n] = (int(r0) + np.repeat(np.arange(int(n_rows)), np.diff(local))
                    ).astype(rows.dtype)

    def tc_slice_row_lengths(self, a, t):
        _check(self.name, a, ["int64*", "ll", "ll", "ll", "ll", "uint32*"], t)
        indptr, n_rows, e0, e1, r0, deg = a
        local = _chunk_offsets(indptr, n_rows, e0, e1)
        deg[int(r0):int(r0) + int(n_rows)] += np.diff(local).astype(np.uint32)

    def tc_slice_owner_work(self, a, t):
        _check(self.name, a, ["int64*", "V*", "ll", "ll", "ll", "ll", "int32*", "ll", "uint64*",
                              "uint64*"], t)
        indptr, cols, n_rows, e0, e1, r0, length, entry_cost, work, pairs = a
        local = _chunk_offsets(indptr, n_rows, e0, e1)
        n = int(local[-1])
        s = int(r0) + np.repeat(np.arange(int(n_rows)), np.diff(local))
        tg = cols[:n].astype(np.int64)
        ls, lt = length[s].astype(np.int64), length[tg].astype(np.int64)
        keep = (lt >= 1) & (ls >= 2)
        owner = np.where(ls >= lt, s, tg)[keep]
        np.add.at(work, owner, (np.minimum(ls, lt)[keep] + int(entry_cost)).astype(np.uint64))
        np.add.at(pairs, owner, np.uint64(1))

    def tc_slice_block_pairs(self, a, t):
        _check(self.name, a, ["V*", "V*", "ll", "int32*", "ll", "ll", "int", "int", "u64", "ll",
                              "ll", "uint64*", "uint64*"], t)
        self._block_pairs(*a)

    def tc_slice_block_pair_count(self, a, t):
        _check(self.name, a, ["V*", "V*", "ll", "int32*", "ll", "ll", "ll", "ll", "uint64*"], t)
        rows, cols, n, length, lo, hi, first, end, count = a
        n = int(n)
        s, tg = rows[:n].astype(np.int64), cols[:n].astype(np.int64)
        below = tg < int(hi)
        ls, lt = length[s], length[np.where(below, tg, 0)]
        ok = below & (lt >= 1) & (ls >= 1 + (tg >= int(lo)))
        owner = np.where(ls >= lt, s, tg)
        ok &= (owner >= int(first)) & (owner < int(end))
        count[0] += np.uint64(np.count_nonzero(ok))

    def _block_pairs(self, rows, cols, n, length, lo, hi, id_bits, len_bits, max_len, first,
                     end, keys, cursor):
        n = int(n)
        s, tg = rows[:n].astype(np.int64), cols[:n].astype(np.int64)
        assert (s < tg).all(), "a pair stream entry not in rank order"
        below = tg < hi
        s, tg = s[below], tg[below]
        ls, lt = length[s].astype(np.int64), length[tg].astype(np.int64)
        keep = (lt >= 1) & (ls >= 1 + (tg >= lo))
        s, tg, ls, lt = s[keep], tg[keep], ls[keep], lt[keep]
        source_owns = ls >= lt
        owner = np.where(source_owns, s, tg)
        partner = np.where(source_owns, tg, s)
        shorter = np.where(source_owns, lt, ls)
        window = (owner >= first) & (owner < end)
        owner, partner, shorter = owner[window], partner[window], shorter[window]
        bits = _bit_length(shorter).astype(np.uint64)
        _append(keys, cursor, ((owner - int(first)).astype(np.uint64)
                               << np.uint64(int(id_bits) + int(len_bits)))
                | ((max_len - bits) << np.uint64(id_bits)) | partner.astype(np.uint64))

    def tc_hash(self, a, t):
        _check(self.name, a, ["E*", "V*", "V*", "V*", "E*", "E*", "ll", "ll", "ll", "uint64*",
                              "uint64*"], t)
        indptr, cols, partners, owner, begin, end, n_block, n_tasks, slots, _next, result = a
        long_list, n_tasks = int(self.defines["long_list"]), int(n_tasks)
        ptr, listed = np.asarray(indptr).astype(np.int64), np.asarray(cols).astype(np.int64)
        owner = np.asarray(owner)[:n_tasks].astype(np.int64)
        begin = np.asarray(begin)[:n_tasks].astype(np.int64)
        end = np.asarray(end)[:n_tasks].astype(np.int64)
        descents = np.flatnonzero(listed[1:] <= listed[:-1])  # cols[i] >= cols[i + 1]
        row = np.searchsorted(ptr, descents, side="right") - 1
        assert not np.isin(owner, row[descents + 1 < ptr[row + 1]]).any(), \
            "an owner's list is not sorted"
        # Every task's pairs in its order: the owner, the partner, the partner's length.
        sizes = end - begin
        first = np.repeat(np.cumsum(sizes) - sizes, sizes)
        at = np.repeat(begin, sizes) + np.arange(int(sizes.sum())) - first
        task = np.repeat(np.arange(n_tasks), sizes)
        x, y = np.repeat(owner, sizes), np.asarray(partners)[at].astype(np.int64)
        length = ptr[y + 1] - ptr[y]
        is_long = length >= long_list
        assert not (~is_long[:-1] & is_long[1:] & (task[:-1] == task[1:])).any(), \
            "a long partner list after a short one in a task"
        # |N(x) ∩ N(y)| for every pair: each id of y's list looked up in x's row, as
        # (row, id) keys of the sorted lists.
        width = int(listed.max()) + 1 if listed.size else 1
        keys = np.repeat(np.arange(ptr.shape[0] - 1), np.diff(ptr)) * width + listed
        found = 0
        for lo in range(0, x.shape[0], 1 << 16):
            xs, ys, ls = x[lo:lo + (1 << 16)], y[lo:lo + (1 << 16)], length[lo:lo + (1 << 16)]
            offsets = np.cumsum(ls) - ls
            probe = np.repeat(ptr[ys] - offsets, ls) + np.arange(int(ls.sum()))
            wanted = np.repeat(xs, ls) * width + listed[probe]
            hit = np.minimum(np.searchsorted(keys, wanted), max(0, keys.shape[0] - 1))
            found += int(np.count_nonzero(keys[hit] == wanted)) if keys.size else 0
        result[0] += np.uint64(found)


def get_kernel(stem, name, defines, *, folder=None):
    return Kernel(stem, name, defines)


@contextlib.contextmanager
def installed(monkeypatch, *, device_count: int = 1, free_bytes: int = 1 << 30):
    """Install the stand-ins for the duration (``monkeypatch`` restores everything)."""
    import sys

    from tricount.gpu import device as gpu_device
    from tricount.gpu.methods import hash as hash_method
    from tricount.gpu.prepare import keys
    from tricount.partition import device_worker

    cp, cupyx = make_modules(device_count)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    monkeypatch.setitem(sys.modules, "cupyx", cupyx)
    # Streams a real GPU count left for reuse (tests on a GPU machine share the process).
    monkeypatch.setattr(device_worker, "_FREE_STREAMS", {})
    monkeypatch.setattr(keys, "get_kernel", get_kernel)
    monkeypatch.setattr(hash_method, "get_kernel", get_kernel)
    monkeypatch.setitem(FREE_BYTES, "free", int(free_bytes))
    gpu_device._device_facts.cache_clear()
    try:
        yield cp
    finally:
        gpu_device._device_facts.cache_clear()
