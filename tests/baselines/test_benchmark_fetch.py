"""``pypddl benchmark``: the paper's 102 IPC-2000 Blocksworld tasks from
potassco/pddl-instances at a pinned commit, every file checked against the
SHA-256 list shipped in pypddl_experiments (issue 34 item 9). No network:
the local copy of the corpus (../shared/benchmarks, byte-for-byte copies of
the pinned commit's files) stands in for the download."""

from __future__ import annotations

import urllib.error
from pathlib import Path

import pytest
from click.testing import CliRunner

from pypddl_experiments.planners import benchmark as bm
from pypddl_experiments.planners.cli import benchmark
from pypddl_experiments.runs.tasks import discover

FOLDER_IN_CORPUS = Path("potassco-pddl-instances") / "ipc2000-blocks-strips-typed"


@pytest.fixture
def copy(corpus: Path) -> Path:
    return corpus / FOLDER_IN_CORPUS


def test_the_list_names_the_source_and_the_benchmark_order(corpus: Path) -> None:
    import json

    assert bm.REPOSITORY == "potassco/pddl-instances" and len(bm.COMMIT) == 40
    assert bm.FOLDER == "ipc-2000/domains/blocks-strips-typed"
    assert len(bm.FILES) == 103 and len(bm.ORDER) == 102
    assert bm.ORDER == tuple(f"instance-{k}" for k in range(1, 103))
    entry = next(e for e in json.loads((corpus / "index.json").read_text())
                 if e["domain"] == "ipc2000-blocks-strips-typed")
    assert entry["source_commit"] == bm.COMMIT  # the commit the corpus copy was made from
    assert [Path(p).stem for p in entry["problems"]] == list(bm.ORDER)
    assert bm.ORIGINAL_NAMES == entry["original_names"]
    assert bm.source_url("instance-7.pddl") == ("https://raw.githubusercontent.com/potassco/pddl-instances/"
                                                f"{bm.COMMIT}/ipc-2000/domains/blocks-strips-typed/instances/"
                                                "instance-7.pddl")


def test_fetch_from_a_local_copy_checks_every_file_and_keeps_good_ones(copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "bw"
    result = CliRunner().invoke(benchmark, ["--from", str(copy), str(out)])
    assert result.exit_code == 0, result.output
    assert "all 103 files check" in result.output and "103 written" in result.output
    assert sorted(p.name for p in out.iterdir()) == sorted(bm.FILES)
    assert [t.instance_id for t in discover(out)] == list(bm.ORDER)  # what pypddl reference reads, in order
    assert bm.check_benchmark(out) == []
    again = CliRunner().invoke(benchmark, ["--from", str(copy), str(out)])
    assert again.exit_code == 0 and "0 written, 103 already there" in again.output
    (out / "instance-7.pddl").write_text("(define (problem x))")
    (out / "instance-9.pddl").unlink()
    checked = CliRunner().invoke(benchmark, ["--check", str(out)])
    assert checked.exit_code == 1
    assert "instance-7.pddl: SHA-256 differs" in checked.output and "instance-9.pddl: missing" in checked.output
    repaired = bm.fetch_benchmark(out, source=copy)
    assert (repaired.fetched, repaired.present) == (2, 101) and bm.check_benchmark(out) == []


def test_a_clone_layout_is_read_and_an_altered_file_is_refused(copy: Path, tmp_path: Path) -> None:
    clone = tmp_path / "pddl-instances"
    instances = clone / bm.FOLDER / "instances"
    instances.mkdir(parents=True)
    (clone / bm.FOLDER / "domain.pddl").symlink_to(copy / "domain.pddl")
    for name in bm.ORDER:
        (instances / f"{name}.pddl").symlink_to(copy / f"{name}.pddl")
    assert bm.fetch_benchmark(tmp_path / "a", source=clone).fetched == 103
    (instances / "instance-50.pddl").unlink()
    (instances / "instance-50.pddl").write_bytes((copy / "instance-50.pddl").read_bytes() + b"\n")
    out = tmp_path / "b"
    result = CliRunner().invoke(benchmark, ["--from", str(clone), str(out)])
    assert result.exit_code == 2 and "instance-50.pddl from" in result.output and "has SHA-256" in result.output
    assert not (out / "instance-50.pddl").exists()


def test_offline_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(url: str, timeout: float) -> None:
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(bm.urllib.request, "urlopen", offline)
    result = CliRunner().invoke(benchmark, [str(tmp_path / "bw")])
    assert result.exit_code == 2
    message = result.output
    assert "cannot download https://raw.githubusercontent.com/potassco/pddl-instances/" in message
    assert "Are you offline?" in message and "--from" in message and bm.COMMIT in message
    assert "Traceback" not in message
