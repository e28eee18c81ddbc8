"""Generator specs (``name:key=value,...``): parsing, defaults, names, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tricount.errors import InvalidArgumentError
from tricount.generate import GENERATORS, generate_spec, is_spec, parse_spec, rmat


class TestParseSpec:
    def test_defaults_fill_in_and_aliases_resolve(self):
        generator, kwargs = parse_spec("rmat:scale=12,ef=8,seed=3")
        assert generator.name == "rmat"
        assert kwargs == {"scale": 12, "edge_factor": 8, "seed": 3, "a": 0.57, "b": 0.19,
                          "c": 0.19, "permute": True}
        assert parse_spec("kronecker:scale=4")[0].name == "rmat"
        assert parse_spec("erdos-renyi:n=10,m=5")[0].name == "er"
        assert parse_spec("star:n=7")[1] == {"n_leaves": 7}

    @pytest.mark.parametrize("text,value", [("1_000", 1000), ("1e3", 1000), ("0x10", 16)])
    def test_integer_spellings(self, text, value):
        assert parse_spec(f"complete:n={text}")[1]["n"] == value

    @pytest.mark.parametrize("text,value", [("false", False), ("0", False), ("yes", True)])
    def test_boolean_spellings(self, text, value):
        assert parse_spec(f"rmat:scale=4,permute={text}")[1]["permute"] is value

    @pytest.mark.parametrize("spec,message", [
        ("nosuch:n=3", "unknown generator 'nosuch'"),
        ("rmat:ef=4", "lacks scale"),
        ("rmat:scale=4,size=9", "key among scale, edge_factor"),
        ("complete:n=2.5", "not a valid int"),
        ("rmat:scale=4,permute=maybe", "not a valid bool"),
        ("ws:n=10,k=4", "lacks p"),
        ("er:n=10,m=5,m=6", "gives m twice"),
    ])
    def test_errors_name_the_problem(self, spec, message):
        with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(")):
            parse_spec(spec)

    def test_is_spec(self):
        assert is_spec("rmat:scale=4") and is_spec("grid:rows=2,cols=3")
        assert not is_spec("graph.txt") and not is_spec("nosuch:n=3")


class TestGenerateSpec:
    @pytest.mark.parametrize("spec,name", [
        ("rmat:scale=5,ef=4,seed=2", "rmat-s5-ef4-seed2"),
        ("rmat:scale=5,ef=4,a=0.45,b=0.15,c=0.15", "rmat-s5-ef4-seed1-a0.45-b0.15-c0.15"),
        ("rmat:scale=5,permute=no", "rmat-s5-ef16-seed1-unpermuted"),
        ("er:n=100,m=300,seed=4", "er-n100-m300-seed4"),
        ("ba:n=100,m=3", "ba-n100-m3-seed1"),
        ("ws:n=100,k=4,p=0.25", "ws-n100-k4-p0.25-seed1"),
        ("complete:n=9", "complete-n9"),
        ("star:n=9", "star-n9"),
        ("grid:rows=3,cols=4", "grid-3x4"),
        ("grid:rows=3,cols=4,periodic=1", "torus-3x4"),
    ])
    def test_names(self, spec, name):
        assert generate_spec(spec)[2] == name

    def test_same_arrays_as_the_function(self):
        src, dst, _ = generate_spec("rmat:scale=7,ef=4,seed=9")
        expected = rmat(7, 4, seed=9)
        assert np.array_equal(src, expected[0]) and np.array_equal(dst, expected[1])

    def test_every_generator_has_help_and_a_title(self):
        for g in GENERATORS.values():
            assert g.summary and g.title and all(p.help for p in g.params)


def test_a_power_of_ten_is_read_exactly():
    """float('1e23') is 99999999999999991611392: the seed a spec named was not its own."""
    assert parse_spec("rmat:scale=4,seed=1e23")[1]["seed"] == 10**23
    assert parse_spec("er:n=2.5e3,m=1e3")[1]["n"] == 2500
    with pytest.raises(InvalidArgumentError, match="is not a valid int"):
        parse_spec("rmat:scale=4,seed=1.5")
