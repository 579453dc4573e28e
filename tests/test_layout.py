"""The package's structure: its layers and import graph, what it installs, and the size of its functions."""
import ast
import pathlib

import pytest

import yyenvs


def import_graph() -> dict[str, set[str]]:
    """{module: the package modules it imports} over every module of ``yyenvs`` (imports inside
    functions included; ``from a.b import c`` counts as a.b.c where that is a module, else a.b)."""
    root = pathlib.Path(yyenvs.__file__).parent
    paths = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {m: set() for m in paths}
    for m, path in paths.items():
        package = m if path.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                while name and name not in paths:
                    name = name.rpartition(".")[0]
                if name and name != m and not m.startswith(name + "."):
                    graph[m].add(name)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_imports_never_run_up_the_layers_and_form_no_circle():
    """core < games < search < networks < agents < evaluation < envs < web < integrations < training <
    commands: no module imports a layer above its own, and no modules import each other in a circle
    (imports inside functions too)."""
    graph = import_graph()
    layers = ["core", "games", "search", "networks", "agents", "evaluation", "envs", "web", "integrations", "training",
              "commands"]
    rank = {f"yyenvs.{layer}": k for k, layer in enumerate(layers)}

    def layer_of(m):
        return next((r for name, r in rank.items() if m == name or m.startswith(name + ".")), None)
    up = [f"{m} -> {t}" for m, targets in graph.items() for t in targets
          if layer_of(m) is not None and layer_of(t) is not None and layer_of(t) > layer_of(m)]
    assert not up, up
    assert import_cycles(graph) == []
    # the check finds a circle where there is one
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({**graph, "yyenvs.core.errors": graph["yyenvs.core.errors"] | {"yyenvs.core.spec"}})


def test_the_package_installs_one_top_level_package():
    """What ``pip install .`` installs: setuptools finds packages by pyproject's include patterns;
    every one is ``yyenvs`` or inside it (a top-level ``training`` could shadow another project's)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    import setuptools
    root = pathlib.Path(yyenvs.__file__).parent.parent
    find = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    found = setuptools.find_packages(where=str(root), include=find["include"], exclude=find.get("exclude", ()))
    assert "yyenvs" in found and "yyenvs.training" in found
    assert {p.split(".")[0] for p in found} == {"yyenvs"}, found


def long_functions(root: pathlib.Path, most_lines: int = 80, most_params: int = 10) -> list[str]:
    """``path:line name (lines, parameters)`` of every function over either limit."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                params = len(node.args.posonlyargs) + len(node.args.args) + len(node.args.kwonlyargs)
                if lines > most_lines or params > most_params:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines, {params} parameters)")
    return found


def test_no_function_is_longer_than_a_screen_or_takes_more_than_ten_parameters(tmp_path):
    root = pathlib.Path(yyenvs.__file__).parent
    assert long_functions(root) == []
    # the search's kernels stay below the limit, with room to grow (their arguments are named tuples)
    assert long_functions(root / "search", most_params=9) == []
    # the check finds both
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    (tmp_path / "m.py").write_text(f"def long():\n{body}\n\ndef wide(a, b, c, d, e, f, g, h, i, j, *, k):\n    pass\n")
    assert [f.split()[1] for f in long_functions(tmp_path)] == ["long", "wide"]
