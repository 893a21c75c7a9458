"""The ast index: dotted `_target_` paths resolved to classes and their constructors, from source files only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.readers.pysource import Missing, Outside, Signature, SourceIndex
from tests.conftest import write_tree

PACKAGE = {
    "pkg/__init__.py": """
        from . import models
        from .models import *
        from .base import Base as RenamedBase
        Alias = models.Model
        """,
    "pkg/base.py": """
        import collections
        from dataclasses import dataclass, field
        from omegaconf import MISSING

        @dataclass
        class Base(collections.abc.Mapping):
            _target_: str = ""
            name: str = MISSING
            seed: int = 1
        """,
    "pkg/models.py": """
        from dataclasses import dataclass, field
        from typing import ClassVar
        from .base import Base

        __all__ = ["Model", "Plain"]

        def make():
            return 3

        @dataclass
        class Model(Base):
            kinds: ClassVar[int] = 3
            name: str = "model"
            width: int = field(default=8)
            layers: dict = field(default_factory=dict)
            pairs: list = field(default_factory=lambda: [1, (2, 3)])
            inner: Base = field(default_factory=Base)
            computed: int = make()
            hidden: int = field(default=0, init=False)
            depth: int

        class Plain:
            def __init__(self, a, b=2, *, c=None, **kwargs):
                pass

        class Hidden:
            pass
        """,
    "pkg/broken.py": "def (:\n",
    "pkg/torchy.py": """
        import torch

        class Net(torch.nn.Module):
            def __init__(self, width=1):
                pass
        """,
}


@pytest.fixture
def index(tmp_path: Path) -> SourceIndex:
    write_tree(tmp_path, PACKAGE)
    return SourceIndex([tmp_path / "pkg"], (tmp_path,))


def params(signature: Signature | Missing | Outside) -> dict[str, object]:
    assert isinstance(signature, Signature), signature
    return {p.name: (p.default.describe() if p.default is not None else "required") for p in signature.params}


def test_a_dataclass_collects_fields_across_its_bases_with_literal_and_factory_defaults(index):
    found = params(index.signature("pkg.models.Model"))
    assert found == {
        "_target_": "''",
        "name": "'model'",
        "seed": "1",
        "width": "8",
        "layers": "{}",
        "pairs": "[1, [2, 3]]",
        "inner": "not literal: Base()",
        "computed": "not literal: make()",
        "depth": "required",
    }


def test_omegaconf_missing_is_required_and_a_subclass_default_replaces_it(index):
    assert params(index.signature("pkg.base.Base"))["name"] == "required"
    signature = index.signature("pkg.models.Model")
    assert isinstance(signature, Signature)
    name = signature.param("name")
    assert name is not None and name.owner == "pkg.models.Model" and name.file.endswith("models.py")
    seed = signature.param("seed")
    assert seed is not None and seed.owner == "pkg.base.Base" and seed.line == 9


def test_re_exports_star_imports_and_aliases_lead_to_the_same_class(index):
    expected = index.signature("pkg.models.Model")
    assert index.signature("pkg.Model") == expected  # from .models import * (listed in __all__)
    assert index.signature("pkg.Alias") == expected  # Alias = models.Model
    assert isinstance(index.signature("pkg.RenamedBase"), Signature)  # from .base import Base as RenamedBase
    missing = index.signature("pkg.Hidden")  # not in models.__all__, so the star import does not bind it
    assert isinstance(missing, Missing) and "pkg has no attribute or submodule Hidden" in missing.reason


def test_a_plain_class_takes_its_init_keywords_and_kwargs_takes_the_rest(index):
    signature = index.signature("pkg.models.Plain")
    assert params(signature) == {"a": "required", "b": "2", "c": "None"}
    assert isinstance(signature, Signature) and signature.var_kwargs and signature.complete


def test_a_base_outside_the_sources_makes_the_signature_incomplete(index):
    signature = index.signature("pkg.torchy.Net")
    assert isinstance(signature, Signature) and not signature.complete
    # collections.abc.Mapping, as verl's BaseConfig uses it, adds no field: that class stays complete.
    base = index.signature("pkg.base.Base")
    assert isinstance(base, Signature) and base.complete


def test_what_does_not_exist_says_why(index):
    assert index.signature("pkg.nothing.Model") == Missing("pkg has no attribute or submodule nothing")
    assert index.signature("pkg.models.Nope") == Missing("pkg.models has no attribute or submodule Nope")
    assert isinstance(index.signature("pkg.models"), Missing)  # a module is not a class
    broken = index.signature("pkg.broken.Anything")
    assert isinstance(broken, Missing) and "broken.py:1: not valid Python" in broken.reason
    assert index.signature("torch.optim.AdamW") == Outside("torch.optim.AdamW")
    assert isinstance(index.signature("pkg..x"), Missing)


def test_a_file_that_links_outside_the_scope_is_not_read(tmp_path: Path):
    write_tree(tmp_path / "outside", {"secret.py": "class Leak:\n    pass\n"})
    write_tree(tmp_path / "project", {"pkg/__init__.py": ""})
    (tmp_path / "project/pkg/leak.py").symlink_to(tmp_path / "outside/secret.py")
    index = SourceIndex([tmp_path / "project/pkg"], (tmp_path / "project",))
    found = index.signature("pkg.leak.Leak")
    assert isinstance(found, Missing) and "leads outside the project" in found.reason


def test_reading_never_imports(index):
    index.signature("pkg.models.Model")
    index.signature("pkg.torchy.Net")
    assert "pkg" not in sys.modules and "pkg.models" not in sys.modules


def test_a_nested_dataclass_default_is_its_fields_defaults_and_a_cycle_stays_an_expression(tmp_path):
    (tmp_path / "nest").mkdir()
    (tmp_path / "nest/__init__.py").write_text("")
    (tmp_path / "nest/m.py").write_text(
        "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Server:\n    timeout: int = 60\n\n\n"
        "@dataclass\nclass Config:\n    server: Server = field(default_factory=Server)\n\n\n"
        "@dataclass\nclass Loop:\n    again: 'Loop' = field(default_factory=lambda: None)\n    me: object = field(default_factory=lambda: 1)\n"
        "    self_made: 'Loop2' = None\n\n\n@dataclass\nclass Loop2:\n    inner: 'Loop2' = field(default_factory=Loop2)\n"
    )
    index = SourceIndex([tmp_path / "nest"], (tmp_path,))
    signature = index.signature("nest.m.Config")
    assert isinstance(signature, Signature)
    (server,) = signature.params
    assert server.default is not None and (server.default.value, server.default.leaves) == (
        {"timeout": 60},
        (("timeout", "nest.m.Server.timeout", str(tmp_path / "nest/m.py"), 6),),
    )
    assert params(index.signature("nest.m.Loop2")) == {"inner": "not literal: Loop2()"}


def test_a_classmethod_a_base_defines_is_found_through_the_subclass(tmp_path):
    """classy's `_target_: ...HFQADataset.from_file`: `from_file` is a classmethod of the base, which Python finds
    along the bases; one no class defines is missing, one a base outside the sources may define is not known."""
    write_tree(
        tmp_path,
        {
            "ds/__init__.py": "",
            "ds/base.py": "class BaseDataset:\n    @classmethod\n    def from_file(cls, path, vocabulary=None):\n        return cls()\n",
            "ds/hf.py": (
                "import torch\n\nfrom ds.base import BaseDataset\n\n\nclass HFDataset(BaseDataset):\n    pass\n\n\n"
                "class QADataset(HFDataset):\n    pass\n\n\nclass TorchDataset(torch.utils.data.Dataset):\n    pass\n"
            ),
        },
    )
    index = SourceIndex([tmp_path / "ds"], (tmp_path,))
    assert params(index.signature("ds.hf.QADataset.from_file")) == {"path": "required", "vocabulary": "None"}
    assert index.signature("ds.hf.QADataset.to_file") == Missing("ds.hf.QADataset has no attribute or submodule to_file")
    assert isinstance(index.signature("ds.hf.TorchDataset.from_file"), Outside)
