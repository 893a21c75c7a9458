"""`diff --base REF`: the review report, the working tree against git REF: its goldens, or its tree composed where
it has none, under REF's rules."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from harness.baselines import gitrepo, kinds
from harness.baselines.kept_trees import same_python_sources
from harness.commands import common, shard_results
from harness.composition.parallel import review_budget, within_budget
from harness.composition.session import current
from harness.gates.budget import UNREADABLE, ProcessBudgetExceeded
from harness.gates.escape import code_span, markdown_text
from harness.gates.reader import recording
from harness.model.findings import ERROR, Finding, Kind, MatrixResult, Origin
from harness.model.grouping import plural
from harness.model.settings import Settings, settings_table
from harness.reporters.base import NextSteps
from harness.rules.contract_changes import read_contract_files
from harness.rules.review_rules import rules_for_review
from harness.runner.around import around_review
from harness.runner.kept_runs import KeptRun, kept_review
from harness.runner.run import HeadGoldens, RuleSet, Run, Runner, base_rules_key
from harness.runner.targets import case_rules, program_view
from harness.runner.unverified import DiffAccounting


def run(args: argparse.Namespace) -> int:
    # Everything that reads the pull request runs in a process of its own under the OS's limits (gates.budget's
    # ProcessBudget): past them the review is one blocking finding. The report is printed here, from what it sent back.
    try:
        result, shard, steps, reuse = within_budget(lambda: _reviewed(args), review_budget())
    except ProcessBudgetExceeded as error:
        result, shard, steps, reuse = over_budget(args.base, str(error)), None, None, {}
    code = review_report(args, steps)(result, shard)
    line = reuse_line(args.base, reuse)
    if line and not args.quiet:  # after the report: its verdict stays the first line a terminal shows
        common.say(line, sys.stderr)
    return code


def _reviewed(args: argparse.Namespace) -> tuple[MatrixResult, dict[str, Any] | None, NextSteps, dict[str, tuple[int, int]]]:
    """The review's result, its shard's part (when sharded), what its report tells the reader to run, and what it
    took from the cache: everything the report needs that reading the pull request gives."""
    kept = _kept(args)
    taken = kept.taken() if kept is not None else None
    if taken is not None:  # nothing it read changed: the last review's result, everything taken from the cache
        result, shard, steps, reuse = taken
        return result, shard, steps, {what: (reused + composed, 0) for what, (reused, composed) in reuse.items()}
    with recording() as asked:
        engine, settings, _ = merged(args)
        result = common.run_with_progress(engine)
        shard = shard_results.shard_document(args, "review", engine, settings)
        steps = common.next_steps_for(args, settings)
    if kept is not None:
        kept.keep((result, shard, steps, dict(current().reuse)), asked)
    return result, shard, steps, current().reuse


def _kept(args: argparse.Namespace) -> KeptRun | None:
    """Where this review's result is kept (harness.runner.kept_runs), or None: not kept."""
    head = common.settings_from(args)
    if head.cache_dir is None:  # `--no-cache`: nothing kept, nothing to look up
        return None
    top = gitrepo.toplevel(head.origin)
    commit = gitrepo.verify_ref(top, args.base)
    try:
        _, base = kinds.settings_at(head, commit)
    except gitrepo.GitError:
        return None
    arguments = {k: v for k, v in vars(args).items() if v is None or isinstance(v, (str, int, float, bool, list, tuple))}
    return kept_review(arguments, head, base, commit)


def over_budget(ref: str, why: str) -> MatrixResult:
    """A review whose reading went past the process budget: one error finding, nothing judged."""
    message = f"{UNREADABLE} {why}; nothing of the pull request was judged, so it cannot pass"
    return MatrixResult(
        baseline=f"git ref {ref}", findings=(Finding(Kind.ERROR, "", severity=ERROR, message=message, origin=Origin.INTRODUCED),)
    )


def reuse_line(ref: str, reuse: dict[str, tuple[int, int]]) -> str:
    """What the review took from the cache at the base (cases and launches whose every recorded read gets the same
    answer there) and what it composed there: said on stderr, never in the report, whose bytes do not depend on the
    cache."""
    if not reuse:
        return ""

    counts = sorted(reuse.items())
    taken = " and ".join(
        f"{reused} of {plural(reused + composed, what, what + 'es' if what.endswith('ch') else None)}"
        for what, (reused, composed) in counts
    )
    composed = " and ".join(plural(fresh, what, what + "es" if what.endswith("ch") else None) for what, (_, fresh) in counts)
    return f"config-harness: at {ref}, {taken} taken from the cache (every file they read unchanged); {composed} composed there"


def merged(args: argparse.Namespace) -> tuple[Runner, Settings, Callable[..., int]]:
    """The review `diff --base REF` makes of its arguments, and how it reports a result (`merge` rebuilds a sharded
    one)."""
    head = common.settings_from(args)
    top = gitrepo.toplevel(head.origin)  # a ref or a repository git refuses: GitError, bad input
    commit = gitrepo.verify_ref(top, args.base)
    base_table, base_settings = kinds.settings_at(head, commit)
    if base_settings is not None:
        base_settings = replace(base_settings, cache_dir=head.cache_dir, jobs=head.jobs)
    review = rules_for_review(head, base_settings, settings_table(head), base_table, args.base)
    if not review.first_adoption:  # what runs the review and what it reads are reviewed too
        review = replace(review, changes=review.changes + tuple(around_review(top, commit, base_settings)))
    # The base's search path and Python sources as they are at the base, never the working tree's: for its tree and
    # its errors (found once: each extraction checks every file of a kept tree).
    try:
        folders: Settings | None = kinds.folders_at(review.settings, top, commit)
    except gitrepo.GitError:
        if review.settings.python_sources:
            raise
        folders = None  # the base's tree says so where it needs them (its goldens may do without)
    same = (base_settings or review.settings) == review.settings
    baseline = kinds.at_ref(
        review.settings, args.base, compose_base=args.compose_base, base_settings=base_settings, folders=folders if same else None
    )
    base_texts = baseline.contract_texts()
    base_folders = folders if folders is not None and review.settings.python_sources else review.settings
    base_contracts = read_contract_files(base_texts) if base_texts is not None else None
    # A Python default is a value: both sides' classes, so a default the pull request changes is a changed value. One
    # view per side, shared by its rules and the comparison (each reads and parses the sources once); one for both
    # sides when the pull request left the sources as they were at the base.
    view = program_view(review.settings)
    base_view = view if view is not None and same_python_sources(base_folders.python_sources, review.settings.python_sources) else None
    base_view = base_view or program_view(base_folders)
    base_rules = case_rules(base_folders, base_contracts, view=base_view).checks if base_contracts is not None else ()
    run = Run.review_of(
        review,
        baseline,
        RuleSet.of(review.settings, strict_waivers=args.strict_waivers, base=base_contracts, view=view),
        base_rules,
        program_views=(base_view, view) if view is not None and base_view is not None else None,
        base_rules_digest=base_rules_key(review.settings, base_texts, base_view) if base_contracts is not None else None,
        # What `check` on the merged head reads (its matrix and goldens): the review fails where it would. Never
        # with the pull request's own modules or a wider confinement: what the review imports and reads is the base's.
        head=HeadGoldens.of(replace(head, schemas=review.settings.schemas, read_outside=review.settings.read_outside)),
    )
    # Every file the pull request changes is accounted for; the base's settings decide whether a change not verified
    # blocks (at a first adoption the pull request's own value never does).
    block = base_settings is not None and not review.first_adoption and base_settings.unverified == "block"
    run = replace(run, accounting=DiffAccounting(top, commit, review.settings, block, view))
    return Runner(run, args.case, shard=args.shard), review.settings, review_report(args, common.next_steps_for(args, review.settings))


def review_report(args: argparse.Namespace, steps: NextSteps | None) -> Callable[..., int]:
    """How a review's result is printed (in `--format` and each `--report`) and what it exits with."""
    title = markdown_text(args.title) if args.title else f"config-harness review against {code_span(args.base, False)}"

    def report(result: MatrixResult, shard: dict[str, Any] | None = None) -> int:
        common.print_result(
            result,
            args.format,
            verbose=args.verbose,
            quiet=args.quiet,
            title=title,
            base=args.base,
            steps=steps,
            reports=args.report,
            shard=shard,
        )
        return common.review_exit(result)

    return report
