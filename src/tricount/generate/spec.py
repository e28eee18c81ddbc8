"""Generator specs: ``name:key=value,...`` strings that name a generated graph.

``tricount bench rmat:scale=18,ef=16,seed=1`` and ``tricount generate`` both read
the table :data:`GENERATORS`: one :class:`Generator` per graph family. A family's
parameters, their order, types and defaults are its function's signature, read
once (:func:`inspect.signature`); the table adds what a signature cannot say: each
parameter's help, its short name (``ef`` for ``edge_factor``: accepted in specs and
as an option, and written in graph names), the family's aliases, and a namer for a
family whose graph names do not follow the common rule, the family's name and then
each parameter as short name and value (``er-n100-m300-seed4``). A spec with the
same parameters always means the same graph (every generator is seeded and
deterministic).

>>> src, dst, name = generate_spec("complete:n=5")
>>> name, src.shape[0]
('complete-n5', 10)
>>> parse_spec("rmat:scale=10,ef=8")[1]
{'scale': 10, 'edge_factor': 8, 'seed': 1, 'a': 0.57, 'b': 0.19, 'c': 0.19, 'permute': True}
"""

from __future__ import annotations

from fractions import Fraction

import inspect
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from tricount.errors import InvalidArgumentError
from tricount.generate.barabasi_albert import barabasi_albert
from tricount.generate.complete import complete
from tricount.generate.erdos_renyi import erdos_renyi
from tricount.generate.grid import grid, grid_name
from tricount.generate.rmat import GRAPH500_A, GRAPH500_B, GRAPH500_C, rmat, rmat_name
from tricount.generate.star import star
from tricount.generate.watts_strogatz import watts_strogatz

__all__ = ["Generator", "Param", "GENERATORS", "parse_spec", "generate_spec", "is_spec",
           "find_generator", "call_generator"]

REQUIRED = object()

#: The help of a parameter that several families share.
SHARED_HELP = {"seed": "random seed; same seed, same graph on CPU and GPU"}


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


def _params(function: Callable, helps: dict, short: dict) -> tuple:
    """The :class:`Param` of each argument of ``function`` but ``xp``, in order: its kind
    (the annotation) and default from the signature, its help from ``helps`` (else
    :data:`SHARED_HELP`), its short name, if any, from ``short``."""
    helps = {**SHARED_HELP, **helps}
    return tuple(
        Param(arg.name, arg.annotation,
              REQUIRED if arg.default is inspect.Parameter.empty else arg.default,
              helps[arg.name], (short[arg.name],) if arg.name in short else ())
        for arg in inspect.signature(function, eval_str=True).parameters.values()
        if arg.name != "xp")


def _in_name(value) -> str:
    """A value as graph names write it: ``0.25`` (floats by ``:g``), ``100``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Generator:
    """A graph family: the function, its help, its aliases, how to name a member (``namer``,
    else the common rule of the module doc); ``params`` come from the function's signature."""

    name: str
    function: Callable
    summary: str
    title: str
    helps: dict = field(compare=False)  # read into params; dicts would make it unhashable
    short: dict = field(default_factory=dict, compare=False)
    aliases: tuple = ()
    namer: Callable | None = None
    params: tuple = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "params", _params(self.function, self.helps, self.short))

    def graph_name(self, kwargs: dict) -> str:
        if self.namer is not None:
            return self.namer(**kwargs)
        # Each parameter by its short name when it has one (star-n9 for n_leaves=9).
        return "-".join([self.name, *((p.aliases or (p.name,))[0] + _in_name(kwargs[p.name])
                                      for p in self.params)])

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


GENERATORS = {
    g.name: g
    for g in (
        Generator("rmat", rmat, "R-MAT / Kronecker (graph500's a=.57, b=c=.19 by default)",
                  "R-MAT", {"scale": "2**SCALE vertex ids",
                            "edge_factor": "edges drawn per vertex id",
                            "a": "top-left quadrant probability",
                            "b": "top-right quadrant probability",
                            "c": "bottom-left quadrant probability (d = 1 - a - b - c)",
                            "permute": "randomly permute vertex ids, as graph500 does"},
                  short={"edge_factor": "ef"}, aliases=("kronecker",), namer=_rmat_name),
        Generator("er", erdos_renyi,
                  "Erdős–Rényi G(n, m): exactly m distinct uniform random edges", "G(n, m)",
                  {"n": "vertices", "m": "distinct edges (exactly)"},
                  aliases=("erdos_renyi", "erdos-renyi", "gnm")),
        Generator("ba", barabasi_albert,
                  "Barabási–Albert preferential attachment (Batagelj–Brandes)", "Barabási–Albert",
                  {"n": "vertices", "m": "edges added by each new vertex"},
                  aliases=("barabasi_albert", "barabasi-albert")),
        Generator("ws", watts_strogatz, "Watts–Strogatz ring lattice with rewiring",
                  "Watts–Strogatz", {"n": "vertices on the ring", "k": "lattice degree (even)",
                                     "p": "rewiring probability per edge"},
                  aliases=("watts_strogatz", "watts-strogatz")),
        Generator("complete", complete, "complete graph K_n: C(n, 3) triangles", "complete",
                  {"n": "vertices"}),
        Generator("star", star, "star: a hub and n leaves, no triangle", "star",
                  {"n_leaves": "leaves (the hub is vertex 0)"}, short={"n_leaves": "n"}),
        Generator("grid", grid, "2-D grid (or torus): no triangle (a torus side of 3: one a ring)",
                  "grid",
                  {"rows": "grid rows", "cols": "grid columns", "periodic": "wrap into a torus"},
                  namer=grid_name),
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
        value = Fraction(text)  # 1e6, 018, 2.5e3: exactly (float(1e23) is not 10**23)
        if value.denominator != 1:
            raise ValueError(text) from None
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
        if param.name in kwargs:
            raise InvalidArgumentError(f"generator spec {spec!r} gives {param.name} twice")
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
