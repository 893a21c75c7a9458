"""Every example of README.md and docs/ that runs on a scratch folder, run against the real program (the quick
tier); the examples that need verl's repository run in tests/e2e/test_docs_examples_verl.py."""

from __future__ import annotations

import textwrap

import pytest

from tests.docs_examples import QUICK, ROOT, documents, run_document


@pytest.mark.parametrize("document", documents(), ids=lambda path: str(path.relative_to(ROOT)))
def test_the_examples_of(document, tmp_path):
    outcome = run_document(document, QUICK, tmp_path)
    for where, why in outcome.skipped:
        print(f"opted out: {where}: {why}")
    assert not outcome.failed, outcome.report()


def _sample(tmp_path, text: str):
    tmp_path.mkdir(parents=True, exist_ok=True)
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent(text), encoding="utf-8")
    return run_document(page, QUICK, tmp_path / "scratch")


SAMPLE = """
    ```text title="conf/a.yaml"
    x: 1
    ```

    ```console
    $ config-harness --version    # exit 0
    config-harness ... (hydra-core ..., omegaconf ..., Python ...)
    $ cat conf/a.yaml
    x: 1
    ```
    """


def test_a_sample_that_shows_what_the_program_prints_passes(tmp_path):
    outcome = _sample(tmp_path, SAMPLE)
    assert outcome.failed == [] and outcome.commands == 2 and len(outcome.ran) == 2


def test_a_changed_sample_fails_naming_its_line_and_both_outputs(tmp_path):
    outcome = _sample(tmp_path, SAMPLE.replace("$ cat conf/a.yaml\n    x: 1", "$ cat conf/a.yaml\n    x: 2"))
    assert [where for where, _ in outcome.failed] == ["page.md:6"]
    why = outcome.failed[0][1]
    assert "line 9: $ cat conf/a.yaml" in why and "--- the docs show\nx: 2\n--- it printed (exit 0)\nx: 1" in why


def test_a_wrong_exit_code_fails(tmp_path):
    outcome = _sample(tmp_path, SAMPLE.replace("# exit 0", "# exit 1"))
    assert len(outcome.failed) == 1 and "exit 0, the docs say 1" in outcome.failed[0][1]


def test_an_opt_out_needs_a_reason_and_is_reported(tmp_path):
    changed = SAMPLE.replace("x: 1\n    ```\n\n    ```console", 'x: 1\n    ```\n\n    <!-- skip: next "not yet" -->\n\n    ```console')
    assert changed != SAMPLE
    outcome = _sample(tmp_path, changed.replace("x: 1\n    $", "x: 9\n    $"))
    assert outcome.failed == [] and [why for _, why in outcome.skipped] == ["not yet"] and outcome.commands == 0
    outcome = _sample(tmp_path / "again", changed.replace('next "not yet"', "next"))
    assert len(outcome.failed) == 1 and "without a reason" in outcome.failed[0][1]


def test_python_and_toml_blocks_are_parsed(tmp_path):
    outcome = _sample(
        tmp_path,
        """
        ```toml
        [tool.config-harness
        ```

        ```python
        def f(:
        ```
        """,
    )
    assert [why.split(":")[0] for _, why in outcome.failed] == ["a toml block that does not parse", "a python block that does not parse"]
