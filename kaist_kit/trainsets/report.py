"""What `kaist-kit trainset` prints: the list of sets, what it built, and a comparison of two sets."""

from __future__ import annotations

from .specs import SETS, SOURCE_KINDS


def sets_lines() -> list[str]:
    """Every named set: its size and who published it, where its list comes from, what its boxes are and
    the sources it accepts; then what each kind of source is."""
    lines = ["Named training sets: kaist-kit trainset NAME --annotations SOURCE --out FILE.json", ""]
    for spec in SETS.values():
        lines += [
            f"{spec.name:<16}{spec.size}: {spec.citation}",
            f"{'':<16}list: {spec.list_from}",
            f"{'':<16}boxes: {spec.boxes}",
            f"{'':<16}sources: {', '.join(spec.sources)}",
        ]
    lines += ["", "Sources (found from the files; --format KIND to say):"]
    lines += [f"  {kind:<12}{what}" for kind, what in SOURCE_KINDS.items()]
    return lines


def built_lines(built) -> list[str]:
    """What `build_training_set` wrote, in a few lines."""
    labels = ", ".join(f"{n:,} {label}" for label, n in built.labels.items()) or "no boxes"
    lines = [
        f"wrote {built.out}: {built.set.name} ({built.set.citation})",
        f"  {built.images:,} frames ({built.day:,} day, {built.night:,} night), {built.with_pedestrians:,} of them "
        f"with a pedestrian; {built.pedestrians:,} pedestrians and {built.ignore_regions:,} ignore regions "
        f"({labels})",
        f"  boxes from {SOURCE_KINDS[built.source_kind]}: {built.source}",
        f"  frame list sha256 {built.frames_sha256}",
        "  every frame found, nothing left out"
        if built.problems == "no problems found"
        else f"  not found or not used in the source: {built.problems}",
    ]
    return lines + [f"  note: {note}" for note in built.notes]


def comparison_lines(found) -> list[str]:
    """A comparison of two sets (`compare.compare_sets`), in a few lines."""
    boxes = found.boxes
    lines = [
        f"A: {found.a}",
        f"B: {found.b}",
        f"frames: {found.both:,} in both, {len(found.only_a):,} only in A, {len(found.only_b):,} only in B",
    ]
    for label, frames in (("only in A", found.only_a), ("only in B", found.only_b)):
        if frames:
            lines.append(f"  {label}: {', '.join(frames[:3])}{', ...' if len(frames) > 3 else ''}")
    if found.both:
        lines += [
            f"on the {found.both:,} frames of both: {found.same_frames:,} with the same boxes, "
            f"{found.both - found.same_frames:,} with boxes that changed",
            f"  pedestrians there: {found.pedestrians_a:,} in A, {found.pedestrians_b:,} in B",
            f"  boxes: {boxes['same']:,} the same, {boxes['moved']:,} moved (overlap 0.5 or more), "
            f"{boxes['relabelled']:,} relabelled (pedestrian <-> ignore region), {boxes['only_a']:,} only in A, "
            f"{boxes['only_b']:,} only in B",
        ]
        if found.examples:
            lines.append(f"  frames whose boxes changed, first: {', '.join(found.examples)}")
    return lines
