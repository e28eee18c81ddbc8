"""Root pytest configuration: doctests of modules that need CuPy run only where it imports."""

import importlib.util

collect_ignore_glob = ["benchmarks/*", "scripts/*"]
if importlib.util.find_spec("cupy") is None:
    collect_ignore_glob.append("src/tricount/gpu/*")
