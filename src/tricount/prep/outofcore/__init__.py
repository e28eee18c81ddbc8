"""Canonicalise an edge list too large to build in one piece, in bounded memory.

The result is exactly :meth:`tricount.CSRGraph.from_edges`'s graph, array for
array: every undirected edge once, ``lo < hi``, ids compacted to ``0 .. n-1``
in increasing original order, the strictly upper-triangular CSR of rows in
order, and the same ``self_loops_dropped`` and ``duplicates_dropped`` (a line
repeating a directed line already seen is a duplicate; the reverse of an edge is
not; see :mod:`tricount.prep.canonical`). The input is a *source* of
``(src, dst)`` chunks read twice (:class:`ArrayChunks` slices arrays without
copying them; a generator of chunks, such as
:func:`tricount.generate.rmat.rmat_chunks`, is run twice); the output is the
host CSR, or rows streamed into a *sink* (``tricount.io.write_native_edges``
streams them into a ``.tcsr``).

The scheme, one pass to learn the ids, one to bucket the lines, one sweep per
bucket:

1. **survey** (pass 1): per chunk, count self-loops, mark the ids that occur
   (a byte map over ``0 .. max id`` while ids are dense; the sorted distinct ids
   when they are sparse), and count the non-loop lines in a histogram of their
   smaller end, ``lo >> shift`` (:data:`HIST_BINS` bins, coarsened as larger ids
   appear). The marks give the compact ids; the histogram gives *buckets*,
   contiguous ranges of ``lo`` holding about as many lines as one sort may take
   (:attr:`BuildPlan.bucket_keys`), and each bucket's exact line count;
2. **bucket** (pass 2): per chunk, pack every non-loop line into a 64-bit key
   ``((lo << s | hi) << 1) | reversed`` (ids as they are while dense, compact
   when sparse: either way the order of compact ids) and append it to its
   bucket's region: one array in host memory, or a temporary file when the host
   cannot hold them (R-MAT 28's 4.3 G keys are 34 GB);
3. **sort** (the sweep): per bucket, sort its keys (on the GPU when there is one,
   CuPy's radix sort; else NumPy's sort, buckets on every core), keep each
   distinct pair once, rename its ends to compact ids and write the row entries
   back in place (4 or 8 bytes over the key's 8). Distinct keys are the distinct
   directed lines, so ``duplicates_dropped`` is the non-loop lines less their sum;
4. **emit**: rows come out in bucket order, which is row order: the CSR is the
   buckets' entries end to end (packed in place in host memory), or a stream of
   them into the sink after the row offsets, the sizes known before the first
   entry is written.

A bucket larger than one sort's room (a hub with more lines than the room, or
sparse ids piled into one histogram bin) is split further by key ranges, down
to single pairs if it must be, so memory stays bounded whatever the input.

Peak memory, host: the keys (8 bytes a non-loop line, or none when spilled),
plus the ids' tables (1 byte per id below the largest while marking, 4 per id
for the compact map when ids have gaps, 8 per vertex for the vertex ids, the
row degrees and, for a ``.tcsr``, the column degrees), plus one chunk.
The arrays given are never copied whole.

The modules, one step each: :mod:`.memory` (whether one piece fits, and the
memory the build may use), :mod:`.sources` (what is read twice),
:mod:`.survey` (pass 1), :mod:`.keys` (the keys, their buckets and their
store), :mod:`.build` (the passes in order, and the result), :mod:`._kernels`
(their Numba loops, loaded only when a bounded build runs: importing this
package compiles nothing).
"""

from tricount.prep.outofcore.build import BoundedBuild, BuildPlan, build_bounded
from tricount.prep.outofcore.memory import available_memory, in_memory_bytes, needs_bounded_build
from tricount.prep.outofcore.sources import ArrayChunks

__all__ = ["BuildPlan", "BoundedBuild", "ArrayChunks", "build_bounded", "in_memory_bytes",
           "needs_bounded_build", "available_memory"]
