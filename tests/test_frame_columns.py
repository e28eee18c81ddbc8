"""Columns of pandas, polars and pyarrow, and mixed columns, as edges (tricount.inputs,
tricount._frame_columns): the count of the triangle 0-1-2 (or a-b-c), or a clear refusal;
never a missing value read as a vertex, nor 1 and "1" read as one vertex."""

from __future__ import annotations

import numpy as np
import pytest

import tricount

MIX = "all strings or all integers, got a mix"
MISSING = "missing value"


def count(graph) -> int:
    return tricount.count(graph, backend="cpu").n_triangles


class TestMixedColumns:
    # Each closes a triangle only if 1 and "1" (or b"a" and "a") were one vertex.
    @pytest.mark.parametrize("graph", [
        ([1, "a", "b"], ["a", "b", "1"]),
        ([b"a", "b", "c"], ["b", "c", "a"]),
        ([1, 2, 3], ["2", "3", "1"]),
        (np.array([1, 2, 3]), np.array(["2", "3", "1"])),
        ({"src": [1, 2, 3], "dst": ["2", "3", "1"]}),
        ({"source": [1, "a", "b"], "target": ["a", "b", "1"]}),
    ], ids=["list mix", "str and bytes", "ints and text", "arrays", "dict", "dict mix"])
    def test_refused(self, graph):
        with pytest.raises(tricount.InvalidEdgesError, match=MIX):
            count(graph)

    def test_one_kind_of_text_is_names(self):
        assert count((["a", "b", "c"], ["b", "c", "a"])) == 1
        assert count(([b"a", b"b", b"c"], [b"b", b"c", b"a"])) == 1


class TestPyarrow:
    def test_a_null_in_a_dictionary_column_is_refused(self):
        pa = pytest.importorskip("pyarrow")
        # Arrow's conversion gives whatever the index buffer holds under a null: here "b",
        # which closed the triangle a-b-c.
        idx = pa.array(np.array([0, 0, 1], dtype=np.int32), mask=np.array([False, False, True]))
        source = pa.DictionaryArray.from_arrays(idx, pa.array(["a", "b"]))
        table = pa.table({"source": source, "target": pa.array(["b", "c", "c"])})
        with pytest.raises(tricount.InvalidEdgesError, match="column 'source' has 1 " + MISSING):
            count(table)
        ids = pa.table({"source": pa.array([0, 1, None]).dictionary_encode(),
                        "target": pa.array([1, 2, 0])})
        with pytest.raises(tricount.InvalidEdgesError, match=MISSING):
            count(ids)

    def test_arrays_as_a_pair(self):
        pa = pytest.importorskip("pyarrow")
        assert count((pa.array([0, 1, 2]), pa.array([1, 2, 0]))) == 1
        assert count((pa.array(["a", "b", "c"]), pa.array(["b", "c", "a"]))) == 1
        assert count((pa.array(["a", "b", "c"], type=pa.large_string()),
                      pa.array(["b", "c", "a"]).dictionary_encode())) == 1
        with pytest.raises(tricount.InvalidEdgesError, match="src has 1 " + MISSING):
            count((pa.array([0, 1, None]), pa.array([1, 2, 0])))

    def test_chunks_with_their_own_dictionaries(self):
        pa = pytest.importorskip("pyarrow")
        source = pa.chunked_array([pa.array(["a", "b"]).dictionary_encode(),
                                   pa.array(["c"]).dictionary_encode()])
        assert count(pa.table({"source": source, "target": ["b", "c", "a"]})) == 1

    def test_nulls_inside_a_dictionary_or_a_run_are_missing_values(self):
        pa = pytest.importorskip("pyarrow")
        pc = pytest.importorskip("pyarrow.compute")
        taken = pa.DictionaryArray.from_arrays(pa.array([1, 0, 2], pa.int32()),
                                               pa.array([None, 5, 6]))
        names = pa.DictionaryArray.from_arrays(pa.array([1, 0], pa.int32()),
                                               pa.array(["a", None]))
        runs = pc.run_end_encode(pa.array([1, 1, None]))
        for source, target in ((taken, [5, 6, 7]), (names, ["b", "c"]), (runs, [2, 3, 4])):
            table = pa.table({"source": source, "target": target})
            with pytest.raises(tricount.InvalidEdgesError,
                               match="column 'source' has 1 " + MISSING):
                count(table)

    def test_a_null_no_index_takes_leaves_ids_exact(self):
        pa = pytest.importorskip("pyarrow")
        pc = pytest.importorskip("pyarrow.compute")
        # The dictionary converted with its null was float64: 2**53 + 1 read as 2**53.
        big = 2**53
        source = pa.DictionaryArray.from_arrays(pa.array([1, 2, 1], pa.int32()),
                                                pa.array([None, big + 1, big]))
        assert count(pa.table({"source": source, "target": [big, 7, 7]})) == 1
        assert count((pc.run_end_encode(pa.array([big + 1, big, big + 1])),
                      pa.array([big, 7, 7]))) == 1

    def test_a_column_name_twice(self):
        pa = pytest.importorskip("pyarrow")
        table = pa.Table.from_arrays([pa.array([0, 1, 2]), pa.array([5, 6, 7]),
                                      pa.array([1, 2, 0])], names=["source", "source", "target"])
        with pytest.raises(tricount.InvalidEdgesError, match="two columns named 'source'"):
            count(table)


class TestPolars:
    def test_series_as_a_pair(self):
        pl = pytest.importorskip("polars")
        assert count((pl.Series([0, 1, 2]), pl.Series([1, 2, 0]))) == 1
        assert count((pl.Series(["a", "b", "c"]), pl.Series(["b", "c", "a"]))) == 1
        cat = pl.Categorical
        assert count((pl.Series(["a", "b", "c"], dtype=cat),
                      pl.Series(["b", "c", "a"], dtype=cat))) == 1
        with pytest.raises(tricount.InvalidEdgesError, match="src has 1 " + MISSING):
            count((pl.Series([0, 1, None]), pl.Series([1, 2, 0])))

    def test_a_lazy_frame_is_collected(self):
        pl = pytest.importorskip("polars")
        assert count(pl.DataFrame({"source": [0, 1, 2], "target": [1, 2, 0]}).lazy()) == 1

    def test_a_type_numpy_cannot_hold(self):
        pl = pytest.importorskip("polars")
        wide = pl.DataFrame({"source": pl.Series([0, 1, 2], dtype=pl.Int128),
                             "target": pl.Series([1, 2, 0], dtype=pl.Int128)})
        with pytest.raises(tricount.InvalidEdgesError, match="Int128.*cast it to Int64"):
            count(wide)
        with pytest.raises(tricount.InvalidEdgesError, match="column 'source' has 1 " + MISSING):
            count(pl.DataFrame({"source": [0, 1, None], "target": [1, 2, 0]}))


class TestPandas:
    def test_text_series_as_a_pair(self):
        pd = pytest.importorskip("pandas")
        assert count((pd.Series(["a", "b", "c"]), pd.Series(["b", "c", "a"]))) == 1
        assert count((pd.Series(["a", "b", "c"], dtype="category"),
                      pd.Series(["b", "c", "a"], dtype="category"))) == 1
        assert count((pd.Index(["a", "b", "c"]), pd.Index(["b", "c", "a"]))) == 1

    def test_missing_values_named_as_missing(self):
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame({"source": pd.Series([0, 1, None], dtype="Int64"),
                              "target": [1, 2, 0]})
        with pytest.raises(tricount.InvalidEdgesError, match="column 'source' has 1 " + MISSING):
            count(frame)
        assert count(pd.DataFrame({"source": pd.Series([0, 1, 2], dtype="Int64"),
                                   "target": [1, 2, 0]})) == 1
