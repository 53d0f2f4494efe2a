"""``pypddl play``: checkpoints (save, restore, checkpoints, delete), undo n, and --observe."""

from __future__ import annotations

from click.testing import CliRunner

from pypddlengine.cli import main


def play(script: str, *extra: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["play", "--task", "blocksworld/p01", *extra], input=script)


def test_save_restore_delete_and_undo_n() -> None:
    r = play("unstack c a\nput-down c\nsave down\npick-up b\nstack b c\ncheckpoints\nrestore down\nhistory\n"
             "undo 5\nhistory\nrestore nope\ndelete down\ncheckpoints\nsave\nquit\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "saved 'down' at step 2" in out and "down  (step 2)" in out
    assert "restored 'down': back at step 2" in out
    after_restore = out.split("restored 'down'")[1]
    assert "1. (unstack c a)\n2. (put-down c)\n" in after_restore.split("undid")[0]
    assert "undid 2 steps: only 2 steps had been executed" in out and "(no steps yet)" in out
    assert "x no checkpoint 'nope' [UNKNOWN_CHECKPOINT]" in out and "deleted 'down'" in out
    assert "(no checkpoints)" in out and "x save takes a checkpoint name" in out


def test_observe_hides_atoms_and_bad_rules_exit_2() -> None:
    r = play("state\nquit\n", "--observe", "hide ontable")
    assert r.exit_code == 0 and "(ontable" not in r.output and "(on c a)" in r.output
    r = play("quit\n", "--observe", "hide nothing")
    assert r.exit_code == 2 and "BAD_OBSERVATION_RULE" in r.output
