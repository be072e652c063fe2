"""Joining test stories through checkpoints: a story ending with ``checkpoint: X`` goes on
with every story that starts with ``checkpoint: X`` (Rasa's story graph, without augmentation).
Each complete path becomes one story to evaluate, named ``A > B`` as in Rasa's
``failed_test_stories.yml``; stories that start with a checkpoint are only reached through
another."""

from __future__ import annotations

from dataclasses import replace

from nlu_tui.conversation_model import Story, StoryStep, StoryStepKind

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
        paths: list[tuple[str, list[StoryStep]]] = []
        _follow(story, story.name, _body(story), by_start, paths, 0)
        for name, steps in paths:
            out.append(replace(story, name=name, steps=steps))
    return out


def _follow(
    story: Story,
    name: str,
    steps: list[StoryStep],
    by_start: dict[str, list[Story]],
    paths: list[tuple[str, list[StoryStep]]],
    depth: int,
) -> None:
    """Depth first; a joined story is named ``A > B`` as Rasa's story graph names it."""
    nexts = [n for cp in story.end_checkpoints() for n in by_start.get(cp, [])]
    if not nexts or depth >= MAX_JOINS:
        paths.append((name, steps))
        return
    for following in nexts:
        joined = f"{name} > {following.name}"
        _follow(following, joined, steps + _body(following), by_start, paths, depth + 1)
