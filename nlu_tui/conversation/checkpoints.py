"""Joining test stories through checkpoints: a story ending with ``checkpoint: X`` goes on
with every story that starts with ``checkpoint: X`` (Rasa's story graph, without augmentation).
Each complete path becomes one story to evaluate; stories that start with a checkpoint are only
reached through another."""

from __future__ import annotations

from dataclasses import replace

from nlu_tui.conversation.model import Story, StoryStep, StoryStepKind

MAX_JOINS = 20
"""Longest chain of joined stories followed (a cycle of checkpoints stops there)."""


def _body(story: Story) -> list[StoryStep]:
    return [s for s in story.steps if s.kind is not StoryStepKind.CHECKPOINT]


def expand(stories: list[Story]) -> list[Story]:
    """The stories as evaluated: unchanged when no checkpoint is used."""
    if not any(s.kind is StoryStepKind.CHECKPOINT for story in stories for s in story.steps):
        return list(stories)
    by_start: dict[str, list[Story]] = {}
    for story in stories:
        for name in story.start_checkpoints():
            by_start.setdefault(name, []).append(story)
    out: list[Story] = []
    for story in stories:
        if story.start_checkpoints():
            continue
        paths: list[list[StoryStep]] = []
        _follow(story, _body(story), by_start, paths, 0)
        for index, steps in enumerate(paths):
            name = story.name if len(paths) == 1 else f"{story.name} #{index + 1}"
            out.append(replace(story, name=name, steps=steps))
    return out


def _follow(
    story: Story,
    steps: list[StoryStep],
    by_start: dict[str, list[Story]],
    paths: list[list[StoryStep]],
    depth: int,
) -> None:
    nexts = [n for cp in story.end_checkpoints() for n in by_start.get(cp, [])]
    if not nexts or depth >= MAX_JOINS:
        paths.append(steps)
        return
    for following in nexts:
        _follow(following, steps + _body(following), by_start, paths, depth + 1)
