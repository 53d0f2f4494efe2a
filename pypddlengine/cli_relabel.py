"""``pypddl relabel``: write a relabelled copy of a domain and its problems, and map plans both ways.

\b
  pypddl relabel DOMAIN PROBLEM... --seed N --out DIR
  pypddl relabel map-plan DIR/mapping.json PLAN [--to-original] [--out FILE]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import PDDLError

OK, BAD_INPUT = 0, 2


class _DefaultGroup(click.Group):
    """A group that runs its ``copy`` command when the first argument names no subcommand."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["copy", *args]
        return super().parse_args(ctx, args)


@click.group("relabel", cls=_DefaultGroup)
def relabel() -> None:
    """Write a consistently renamed copy of a domain and its problems (and map plans between them).

    'pypddl relabel DOMAIN PROBLEM... --seed N --out DIR' writes DIR/domain.pddl,
    one DIR/<new name>.pddl per problem and DIR/mapping.json (original name ->
    new name, per kind); 'map-plan' maps a plan of the original onto the copy,
    or back with --to-original.

    \b
    Examples:
      pypddl relabel domain.pddl p01.pddl p02.pddl --seed 1 --out copy/
      pypddl relabel map-plan copy/mapping.json p01.plan --out copy/p01.plan
      pypddl relabel map-plan copy/mapping.json copy-solution.plan --to-original
    """


def _fail(err: PDDLError) -> None:
    click.echo(str(err), err=True)
    sys.exit(BAD_INPUT)


@relabel.command("copy")
@click.argument("domain", type=click.Path(dir_okay=False))
@click.argument("problems", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--seed", type=int, required=True, help="Seed of the new names (same seed, same names).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True, help="Folder to write into.")
def copy(domain: str, problems: tuple[str, ...], seed: int, out_dir: str) -> None:
    """Relabel DOMAIN and PROBLEMS into the folder --out (checked first; exit 2 on bad input)."""
    from .lifted import compile_task
    from .loading import load_domain, load_problem
    from .relabel import MAPPING_FILE, relabelled_files

    try:
        d = load_domain(domain)
        ps = [load_problem(p) for p in problems]
        for p in ps:
            compile_task(d, p)
    except PDDLError as err:
        _fail(err)
    files, _ = relabelled_files((Path(domain).name, d), [(Path(p).name, m) for p, m in zip(problems, ps,
                                                                                              strict=True)], seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)
    click.echo(f"wrote {out / 'domain.pddl'}, {len(ps)} problem(s) and {out / MAPPING_FILE}")
    sys.exit(OK)


@relabel.command("map-plan")
@click.argument("mapping_file", type=click.Path(dir_okay=False))
@click.argument("plan", type=click.Path(dir_okay=False))
@click.option("--to-original", is_flag=True, help="Map a plan of the copy back to the original names.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write the plan here (default: stdout).")
def map_plan(mapping_file: str, plan: str, to_original: bool, out_file: str | None) -> None:
    """Map PLAN (one action per line) with MAPPING_FILE onto the copy's names, or back with --to-original."""
    from .loading import load_plan
    from .relabel import Relabelling

    try:
        try:
            data = json.loads(Path(mapping_file).read_text())
        except (OSError, ValueError) as err:
            raise PDDLError(f"cannot read the mapping {mapping_file}: {err}",
                            hint="give the mapping.json that 'pypddl relabel' wrote") from None
        mapping = Relabelling.from_json(data)
        lines = mapping.map_plan(load_plan(plan).steps, reverse=to_original)
    except PDDLError as err:
        _fail(err)
    text = "".join(f"{line}\n" for line in lines)
    if out_file:
        Path(out_file).write_text(text)
    else:
        click.echo(text, nl=False)
    sys.exit(OK)
