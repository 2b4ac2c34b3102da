"""The zoo of published results: `zoo` lists them, `zoo fetch` brings their files to this machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import app, say
from .options import FormatOption, OutputFormat, download_bar, render, repeated

zoo = typer.Typer(
    name="zoo",
    help="Published KAIST results, pinned in their repositories: list them with both protocols' numbers, fetch "
    "their files. `zoo:NAME` then works wherever a result file does (eval, compare, diagnose, leaderboard, submit).",
    invoke_without_command=True,
    rich_markup_mode=None,
)
app.add_typer(zoo, name="zoo")


EntryOption = repeated(str, "--entry", metavar="NAME", help="Only this entry; repeatable. Default: every entry.")


@zoo.callback(invoke_without_command=True)
def zoo_command(
    ctx: typer.Context,
    entry: EntryOption = None,
    details: Annotated[
        bool,
        typer.Option(
            "--details/--brief",
            help="With the table of numbers, each entry's files, quirks, quotes and why they differ.",
        ),
    ] = True,
    format: FormatOption = OutputFormat.table,
) -> None:
    """List every entry: method and venue, repository, commit and path, format and quirks, licence, the
    kit's reasonable miss rates under both protocols (all / day / night), the numbers its authors quote,
    and which protocol gives them."""
    if ctx.invoked_subcommand is not None:
        return
    from ..zoo.listing import ZooListing
    from ..zoo.resolve import all_entries, find_entry

    entries = tuple(find_entry(name) for name in entry) if entry else all_entries()
    render(ZooListing(entries, details), format)


@zoo.command("fetch")
def fetch_command(
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="NAME", help="The entries whose files to fetch."),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Every entry the kit reads.")] = False,
    source: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="FOLDER",
            help="Take the files from this folder instead of downloading them (a machine without network): any "
            "file under it whose git blob id is an entry's, whatever its name or place; a per-image folder by its "
            "tree id.",
        ),
    ] = None,
    gt: Annotated[
        Path | None,
        typer.Option(
            "--gt",
            metavar="FILE",
            help="The ground truth whose frames name a per-image folder's files. Default: the leaderboard's.",
        ),
    ] = None,
) -> None:
    """Download the entries' files from their repositories at the pinned commits, each checked by its git blob
    id, into the kit's data folder beside the ground truth; or take them from a local folder (--from)."""
    from ..zoo.store import fetch, take_from, zoo_folder

    chosen = _chosen_entries(names, every)
    if source is not None:
        taken = take_from(source, chosen)
        for done in taken:
            say(f"zoo:{done.entry.name}: taken from {source} into {done.path}")
        from ..zoo.store import is_kept

        missing = [e.name for e in chosen if not is_kept(e.file)]
        say(f"{len(chosen) - len(missing)} of {len(chosen)} entries on this machine, in {zoo_folder()}")
        if missing:
            raise typer.BadParameter(
                f"no file under {source} is the pinned file of {', '.join(missing)}; copy them there from clones at "
                "the pinned commits (`kaist-kit zoo` lists where each is)",
                param_hint="--from",
            )
        return

    def frames() -> list[str]:
        from .options import load_gt

        return [name.replace("/", "_") + ".txt" for name in load_gt(gt).image_names]

    for entry in chosen:
        with download_bar() as progress:
            done = fetch(entry, frames, echo=say, progress=progress)
        if done.how == "kept":
            say(f"zoo:{entry.name}: on this machine already, {done.path}")
    say(f"{len(chosen)} entries on this machine, in {zoo_folder()}")


def _chosen_entries(names: list[str] | None, every: bool) -> list:
    """The entries `zoo fetch` is asked for, each one the kit reads: those named, or with --all every
    readable one (the others said to be left out)."""
    from ..zoo.resolve import all_entries, find_entry

    if every == bool(names):
        raise typer.BadParameter("name the entries to fetch, or give --all", param_hint="NAME")
    if not every:
        chosen = [find_entry(n) for n in names]
        for entry in chosen:
            if not entry.readable:
                raise typer.BadParameter(f"zoo:{entry.name} is listed but not read: {entry.refused}", param_hint="NAME")
        return chosen
    for entry in all_entries():
        if not entry.readable:
            say(f"note: zoo:{entry.name} is left out: {entry.refused}")
    return [e for e in all_entries() if e.readable]
