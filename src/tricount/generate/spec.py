"""Generator specs: ``name:key=value,...`` strings that name a generated graph.

``tricount bench rmat:scale=18,ef=16,seed=1`` and ``tricount generate`` both read
the table :data:`GENERATORS`: one :class:`Generator` per graph family, with its
parameters, their types, defaults and help. A spec with the same parameters
always means the same graph (every generator is seeded and deterministic).

>>> src, dst, name = generate_spec("complete:n=5")
>>> name, src.shape[0]
('complete-n5', 10)
>>> parse_spec("rmat:scale=10,ef=8")[1]
{'scale': 10, 'edge_factor': 8, 'seed': 1, 'a': 0.57, 'b': 0.19, 'c': 0.19, 'permute': True}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from tricount.errors import InvalidArgumentError
from tricount.generate.barabasi_albert import barabasi_albert, barabasi_albert_name
from tricount.generate.complete import complete, complete_name
from tricount.generate.erdos_renyi import erdos_renyi, erdos_renyi_name
from tricount.generate.grid import grid, grid_name
from tricount.generate.rmat import GRAPH500_A, GRAPH500_B, GRAPH500_C, rmat, rmat_name
from tricount.generate.star import star, star_name
from tricount.generate.watts_strogatz import watts_strogatz, watts_strogatz_name

__all__ = ["Generator", "Param", "GENERATORS", "parse_spec", "generate_spec", "is_spec",
           "find_generator", "call_generator"]

REQUIRED = object()


@dataclass(frozen=True)
class Param:
    """One generator parameter: its keyword, type, default and help text."""

    name: str
    kind: type
    default: object = REQUIRED
    help: str = ""
    aliases: tuple = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class Generator:
    """A graph family: the function, how to name a member, and its parameters."""

    name: str
    function: Callable
    namer: Callable
    params: tuple
    summary: str
    title: str
    aliases: tuple = field(default=())

    def graph_name(self, kwargs: dict) -> str:
        return self.namer(**kwargs)

    def param(self, key: str) -> Param | None:
        for p in self.params:
            if key == p.name or key in p.aliases or key.replace("-", "_") == p.name:
                return p
        return None


def _rmat_name(scale, edge_factor, seed, a, b, c, permute):
    name = rmat_name(scale, edge_factor, seed)
    if (a, b, c) != (GRAPH500_A, GRAPH500_B, GRAPH500_C):
        name += f"-a{a:g}-b{b:g}-c{c:g}"
    return name if permute else name + "-unpermuted"


_SEED = Param("seed", int, 1, "random seed; same seed, same graph on CPU and GPU")

GENERATORS = {
    g.name: g
    for g in (
        Generator("rmat", rmat, _rmat_name, (
            Param("scale", int, REQUIRED, "2**SCALE vertex ids"),
            Param("edge_factor", int, 16, "edges drawn per vertex id", ("ef",)),
            _SEED,
            Param("a", float, GRAPH500_A, "top-left quadrant probability"),
            Param("b", float, GRAPH500_B, "top-right quadrant probability"),
            Param("c", float, GRAPH500_C, "bottom-left quadrant probability (d = 1 - a - b - c)"),
            Param("permute", bool, True, "randomly permute vertex ids, as graph500 does"),
        ), "R-MAT / Kronecker with graph500 parameters (a=.57, b=c=.19)", "R-MAT", ("kronecker",)),
        Generator("er", erdos_renyi, erdos_renyi_name, (
            Param("n", int, REQUIRED, "vertices"),
            Param("m", int, REQUIRED, "distinct edges (exactly)"),
            _SEED,
        ), "Erdős–Rényi G(n, m): exactly m distinct uniform random edges", "G(n, m)",
            ("erdos_renyi", "erdos-renyi", "gnm")),
        Generator("ba", barabasi_albert, barabasi_albert_name, (
            Param("n", int, REQUIRED, "vertices"),
            Param("m", int, REQUIRED, "edges added by each new vertex"),
            _SEED,
        ), "Barabási–Albert preferential attachment (Batagelj–Brandes)", "Barabási–Albert",
            ("barabasi_albert", "barabasi-albert")),
        Generator("ws", watts_strogatz, watts_strogatz_name, (
            Param("n", int, REQUIRED, "vertices on the ring"),
            Param("k", int, REQUIRED, "lattice degree (even)"),
            Param("p", float, REQUIRED, "rewiring probability per edge"),
            _SEED,
        ), "Watts–Strogatz ring lattice with rewiring", "Watts–Strogatz",
            ("watts_strogatz", "watts-strogatz")),
        Generator("complete", complete, complete_name, (
            Param("n", int, REQUIRED, "vertices"),
        ), "complete graph K_n: C(n, 3) triangles", "complete"),
        Generator("star", star, star_name, (
            Param("n_leaves", int, REQUIRED, "leaves (the hub is vertex 0)", ("n",)),
        ), "star: a hub and n leaves, no triangle", "star"),
        Generator("grid", grid, grid_name, (
            Param("rows", int, REQUIRED, "grid rows"),
            Param("cols", int, REQUIRED, "grid columns"),
            Param("periodic", bool, False, "wrap into a torus"),
        ), "2-D grid (or torus): no triangle", "grid"),
    )
}


def find_generator(name: str) -> Generator | None:
    """The generator called ``name`` or one of its aliases, else None."""
    if name in GENERATORS:
        return GENERATORS[name]
    for g in GENERATORS.values():
        if name in g.aliases:
            return g
    return None


def is_spec(text: str) -> bool:
    """Whether ``text`` looks like a generator spec (``name:...`` with a known name)."""
    head = str(text).split(":", 1)[0]
    return ":" in str(text) and find_generator(head) is not None


def _to_int(text: str) -> int:
    text = text.replace("_", "")
    try:
        return int(text, 0)  # 42, 0x2a, 0b101010
    except ValueError:
        value = float(text)  # 1e6, 018
        if not value.is_integer():
            raise
        return int(value)


def _convert(param: Param, raw: str, spec: str):
    try:
        if param.kind is bool:
            lowered = raw.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if param.kind is int:
            return _to_int(raw)
        return param.kind(raw)
    except ValueError:
        raise InvalidArgumentError(
            f"generator spec {spec!r}: {param.name}={raw!r} is not a valid {param.kind.__name__}"
        ) from None


def parse_spec(spec: str) -> tuple[Generator, dict]:
    """Split ``name:key=value,...`` into the generator and its full keyword arguments.

    Integers accept ``_`` separators and exact powers written like ``1e6``;
    booleans accept true/false, yes/no, on/off, 1/0. Unknown or missing keys
    raise :class:`~tricount.InvalidArgumentError` naming the generator's keys.
    """
    name, _, body = str(spec).partition(":")
    generator = find_generator(name.strip())
    if generator is None:
        raise InvalidArgumentError(
            f"unknown generator {name!r} in {spec!r}; generators: {', '.join(GENERATORS)}")
    keys = ", ".join(p.name for p in generator.params)
    kwargs = {}
    for item in filter(None, (part.strip() for part in body.split(","))):
        key, sep, raw = item.partition("=")
        param = generator.param(key.strip())
        if not sep or param is None:
            raise InvalidArgumentError(
                f"generator spec {spec!r}: expected key=value with a key among {keys}, "
                f"got {item!r}")
        kwargs[param.name] = _convert(param, raw.strip(), spec)
    missing = [p.name for p in generator.params if p.required and p.name not in kwargs]
    if missing:
        raise InvalidArgumentError(
            f"generator spec {spec!r} lacks {', '.join(missing)} "
            f"(e.g. {generator.name}:{','.join(f'{m}=...' for m in missing)})")
    full = {p.name: kwargs.get(p.name, p.default) for p in generator.params}
    return generator, full


def call_generator(generator: Generator, kwargs: dict, xp=np):
    """Run a generator with the full keyword arguments of :func:`parse_spec`."""
    return generator.function(**kwargs, xp=xp)


def generate_spec(spec: str, xp=np):
    """Generate the graph a spec names: ``(src, dst, name)``, arrays in ``xp``."""
    generator, kwargs = parse_spec(spec)
    src, dst = call_generator(generator, kwargs, xp)
    return src, dst, generator.graph_name(kwargs)
