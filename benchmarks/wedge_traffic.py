"""DRAM sectors the wedge method reads per edge, plain CSR against fingerprint layouts (CPU only).

For every oriented edge u -> v the wedge kernels read N+(v) at a random place;
this counts the 32-byte sectors that read touches (and v's two indptr words,
which the plain layout needs and the fingerprint layout replaces by a meta
word read in order), on G(n, 16 n) with the engine's rank orientation:

    python benchmarks/wedge_traffic.py --log2n 22

It also counts, by a Numba pass over every wedge, how many fingerprint
matches the kernel must confirm on the full ids. Prints a Markdown table.
"""

from __future__ import annotations

import argparse

import numba
import numpy as np

from tricount.generate.erdos_renyi import erdos_renyi
from tricount.prep import orient
from tricount.prep.canonical import canonical_edges

SECTOR = 32


def sectors(starts, lengths, entry_bytes: int):
    """Sectors touched by reading lengths[i] entries from starts[i] (entries of entry_bytes)."""
    per = SECTOR // entry_bytes
    ends = starts + lengths
    return np.where(lengths > 0, (ends - 1) // per - starts // per + 1, 0)


@numba.njit(cache=True)
def fingerprint_matches(indptr, cols, shift):
    """(wedges, matches of w >> shift in N+(u) after v, triangles) over every wedge."""
    n = indptr.shape[0] - 1
    wedges = matches = triangles = 0
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            v = cols[e]
            for k in range(indptr[v], indptr[v + 1]):
                w = cols[k]
                wedges += 1
                for j in range(e + 1, indptr[u + 1]):
                    a = cols[j]
                    if (a >> shift) == (w >> shift):
                        matches += 1
                        triangles += a == w
                    elif (a >> shift) > (w >> shift):
                        break
    return wedges, matches, triangles


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    n = 1 << args.log2n
    src, dst = erdos_renyi(n, 16 * n, seed=args.seed)
    edges = canonical_edges(src, dst)
    degrees = np.bincount(np.concatenate([edges.lo, edges.hi]), minlength=edges.n_vertices)
    oriented = orient.orient_by_rank(edges.lo, edges.hi, edges.n_vertices, degrees)
    indptr, cols = np.asarray(oriented.indptr), np.asarray(oriented.indices)
    out_degree = np.diff(indptr)
    m = cols.shape[0]
    lengths = out_degree[cols]
    plain = sectors(indptr[cols], lengths, 4)
    indptr_sectors = sectors(cols.astype(np.int64), np.full(m, 2), 8)
    print(f"G(n, 16 n), n = 2^{args.log2n}: {m} edges, largest out-degree "
          f"{int(out_degree.max())}, {int(lengths.sum())} wedges ({lengths.mean():.2f} per edge)\n")
    print("| layout | sectors of N+(v) per edge | of indptr | padded entries / m |")
    print("|---|--:|--:|--:|")
    print(f"| plain CSR, 4-byte ids | {plain.mean():.3f} | {indptr_sectors.mean():.3f} | 1.000 |")
    for align in (1, 4, 8, 16):
        padded = (out_degree + align - 1) // align * align
        starts = np.concatenate([[0], np.cumsum(padded)])[:-1]
        fp = sectors(starts[cols], lengths, 2)
        print(f"| fingerprints, 2 bytes, lists aligned to {align} | {fp.mean():.3f} | 0 (meta word "
              f"in order) | {padded.sum() / m:.3f} |")
    shift = max(0, int(n - 1).bit_length() - 16)
    wedges, matches, triangles = fingerprint_matches(indptr, cols, shift)
    print(f"\nfingerprints w >> {shift}: {matches} matches to confirm among {wedges} wedges "
          f"({matches / max(wedges, 1):.2e} per wedge), {triangles} of them triangles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
