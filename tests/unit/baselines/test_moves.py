"""Moved keys: a removed subtree that reappears whole under one other prefix is one move; a leaf moves when its
value turns up once under the same or a similar name; a flag or a small number only as a rename in its parent.
(Renames confirmed by the config's own interpolations: tests/unit/runner/test_launches_static.py.)"""

from harness.baselines.moves import find_moves, fold_moves, moved_paths
from harness.model.findings import Finding, Kind


def moves(removed, added, present=()):
    return {(m.old, m.new) for m in find_moves(removed, added, present)}


def test_a_whole_subtree_is_one_move_where_its_relative_paths_match():
    removed = {"old.opt.lr": 0.1, "old.opt.betas": [0.9, 0.99]}
    added = {"new.optim.lr": 0.1, "new.optim.betas": [0.9, 0.99]}
    (move,) = find_moves(removed, added)
    # The relative paths must match: `opt` -> `optim` makes the move one level down, not at `old` -> `new`.
    assert (move.old, move.new) == ("old.opt", "new.optim") and move.value == {"lr": 0.1, "betas": [0.9, 0.99]}
    assert sorted(move.leaves) == [("old.opt.betas", "new.optim.betas"), ("old.opt.lr", "new.optim.lr")]
    # Where the new prefix holds other keys too, the subtree did not move whole: its leaves moved one by one.
    assert moves(removed, added, present={"new.optim.eps"}) == {("old.opt.lr", "new.optim.lr"), ("old.opt.betas", "new.optim.betas")}


def test_a_leaf_moves_by_its_value_and_name():
    assert moves({"a.path": "/data/train"}, {"b.path": "/data/train"}) == {("a.path", "b.path")}
    assert moves({"a.lr": 3e-4}, {"a.learning_rate": 3e-4}) == set()  # too unlike a name: two changes
    assert moves({"a.path": "/data"}, {"b.path": "/data", "c.path": "/data"}) == set()  # two candidates: no guess
    assert moves({"a.path": "/data"}, {"b.path": "/data/"}) == set()


def test_a_subtree_found_whole_under_two_prefixes_is_no_move():
    # Either could be where it went: no guess, at the subtree or at its leaves (each leaf has two candidates too).
    removed = {"old.opt.lr": 0.1, "old.opt.name": "adamw"}
    added = {f"{side}.opt.{key}": value for side in ("left", "right") for key, value in (("lr", 0.1), ("name", "adamw"))}
    assert moves(removed, added) == set()
    findings = [Finding(Kind.REMOVED, path, value, None, message=f"REMOVED {path}") for path, value in removed.items()]
    findings += [Finding(Kind.ADDED, path, None, value, message=f"ADDED {path}") for path, value in added.items()]
    assert fold_moves(findings) == findings
    # Under one prefix only, the same subtree is one move.
    assert moves(removed, {k: v for k, v in added.items() if k.startswith("left.")}) == {("old", "left")}


def test_a_flag_moves_only_as_a_rename_within_its_parent():
    assert moves({"t.val_before_train": True}, {"t.validate_before_train": True}) == {("t.val_before_train", "t.validate_before_train")}
    assert moves({"t.flag": True}, {"u.flag": True}) == set()
    assert moves({"t.count": 1}, {"t.count_": 1.0}) == set()  # 1 and 1.0 are different values


def test_a_pair_folds_into_one_moved_finding():
    findings = [
        Finding(Kind.REMOVED, "a.path", "/data/x", None, message="REMOVED a.path"),
        Finding(Kind.ADDED, "b.path", None, "/data/x", message="ADDED b.path"),
        Finding(Kind.CHANGED, "c", 1, 2, message="CHANGED c"),
    ]
    folded = fold_moves(findings)
    assert [(f.kind, f.path) for f in folded] == [(Kind.CHANGED, "c"), (Kind.MOVED, "a.path")]
    assert folded[-1].message == "MOVED a.path -> b.path (key with its value unchanged)"
    assert moved_paths(folded) == {"a.path": "b.path"}
    assert fold_moves(findings[2:]) == findings[2:]
