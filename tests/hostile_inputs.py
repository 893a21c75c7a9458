"""The hostile inputs of issue 31, built from their description: one small file each, for every reader of
pull-request bytes. Shared by the unit tests of the budgets, the CLI tests and the doubling benchmark."""

from __future__ import annotations


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
