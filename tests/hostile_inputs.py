"""The hostile inputs of issue 31, built from their description: one small file each, for every reader of
pull-request bytes. Shared by the unit tests of the budgets, the CLI tests and the doubling benchmark."""

from __future__ import annotations

# The time bound the tests hold every reader to on hostile input of a few KiB (each input of issue 31, and what the
# hypothesis strategies of tests/e2e/test_hostile_structure.py build): before the budgets of harness/gates/budget.py
# some took minutes.
HOSTILE_SECONDS = 5.0


def class_lattice(levels: int) -> str:
    """Each level's class inherits from two classes that both inherit from the level below (`Model` on top)."""
    lines = ["class L0:\n    def __init__(self, width=1):\n        pass"]
    for level in range(1, levels + 1):
        lines.append(
            f"class A{level}(L{level - 1}):\n    pass\nclass B{level}(L{level - 1}):\n    pass\n"
            f"class L{level}(A{level}, B{level}):\n    pass"
        )
    return "\n".join(lines) + f"\nModel = L{levels}\n"


def inheritance_chain(length: int) -> str:
    lines = ["class C0:\n    def __init__(self, width=1):\n        pass"]
    lines += [f"class C{i}(C{i - 1}):\n    pass" for i in range(1, length)]
    return "\n".join(lines) + f"\nModel = C{length - 1}\n"


def alias_chain(length: int) -> str:
    lines = ["class C0:\n    def __init__(self, width=1):\n        pass"]
    lines += [f"C{i} = C{i - 1}" for i in range(1, length)]
    return "\n".join(lines) + f"\nModel = C{length - 1}\n"


def long_expression(terms: int) -> str:
    """A class whose default is a `terms`-term sum: a left-leaning tree as deep as it is long."""
    return "class Model:\n    def __init__(self, width=" + "+".join(["1"] * terms) + "):\n        pass\n"


def attribute_chain(steps: int) -> str:
    """An entry module with a `steps`-long attribute chain before its `@hydra.main`."""
    return (
        "import hydra\nx = a" + ".b" * steps + "\n"
        "@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"
    )


def doubling_script(times: int) -> str:
    """`a=x`, then `a=$a$a` `times` times, then a launch using `$a`."""
    return "a=x\n" + "a=$a$a\n" * times + "python -m app.main model.width=$a\n"


def refused_sources(count: int) -> str:
    """`count` sources of a file whose path is not known (each refused, so remembered), then a launch."""
    return '. "$H"\n' * count + "python -m app.main $W\n"


def sourced_lines(count: int) -> dict[str, str]:
    """A script sourcing one file of `count` assignments, then a launch reading the last: {path: text}."""
    return {
        "run.sh": f". ./env.sh\npython -m app.main model.width=$v{count - 1}\n",
        "env.sh": "".join(f"v{i}={i}\n" for i in range(count)),
    }


def assignments_and_sources(count: int) -> dict[str, str]:
    """`count` assignments, each followed by a source of a 4-byte file, then a launch: every variable is held while
    every file is read."""
    return {
        "run.sh": "".join(f"v{i}=x\n. ./a.sh\n" for i in range(count)) + "python -m app.main model.width=$v0 m.a=$A\n",
        "a.sh": "A=1\n",
    }


def function_calls(count: int) -> str:
    """A function holding a launch, called `count` times with arguments: each call runs its body."""
    return 'f() {\n    python -m app.main model.width=$1 "$@"\n}\n' + "".join(f"f {i} k{i}=1\n" for i in range(count))


def nested_defaults(depth: int) -> str:
    return "python -m app.main model.width=" + "${a:-" * depth + "1" + "}" * depth + "\n"


def nested_ifs(depth: int) -> str:
    return "if true; then\n" * depth + "python -m app.main model.width=1\n" + "fi\n" * depth


def nested_toml_array(depth: int) -> str:
    return "x = " + "[" * depth + "]" * depth + "\n"


def doubled_all_chain(length: int, uses: int = 2) -> dict[str, str]:
    """Issue 41: `__all__ = m.__all__ + m.__all__` chained through `length` modules (each names the next `uses`
    times), the last declaring `Model`; a package whose `__init__` star-imports the first. File name -> text."""
    files = {"__init__.py": "from .m0 import *\n"}
    for i in range(length):
        summed = " + ".join([f"m{i + 1}.__all__"] * uses)
        files[f"m{i}.py"] = f"from . import m{i + 1}\nfrom .m{i + 1} import *\n__all__ = {summed}\n"
    files[f"m{length}.py"] = "class Model:\n    pass\n__all__ = ['Model']\n"
    return files


def config_writes(functions: int, writes: int) -> str:
    """Issue 43: an entry point that calls `functions` helpers by name, each writing `writes` keys of the config
    and calling the next one and itself (a circle the reader must not follow twice)."""
    lines = ["import hydra", ""]
    for i in range(functions):
        lines.append(f"def f{i}(cfg):")
        lines += [f"    cfg.k{i}.v{j} = {j}" for j in range(writes)]
        lines += [f"    f{(i + 1) % functions}(cfg)", f"    f{i}(cfg.k{i})", ""]
    lines += ["@hydra.main(config_path='conf', config_name='c', version_base=None)", "def main(cfg):"]
    lines += [f"    f{i}(cfg)" for i in range(functions)] or ["    pass"]
    return "\n".join(lines) + "\n"
