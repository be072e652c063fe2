"""The folds and comparison units of ``test nlu`` ask a model served elsewhere (a Rasa server)
through the run kernel: an answer that never comes is cut at the attempt deadline and kept as
that case's error, the other cases are answered; an in-process model answers in one batch."""

from __future__ import annotations

import asyncio
import time

from nlu_tui.engines.base import ParseContext, TrainedModel
from nlu_tui.evaluation.jobs import _parse
from nlu_tui.model import Prediction, TestCase
from nlu_tui.runner.options import RunOptions


class _Served(TrainedModel):
    """A served model: 'stall' never answers; the rest answer their own text as the intent."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        self.asked.append(text)
        if text == "stall":
            await asyncio.sleep(3600)
        return Prediction(intent=text, confidence=1.0)

    async def parse_many(self, texts: list[str]) -> list[Prediction]:
        raise AssertionError("a served model is asked through the kernel, not in a batch")


class _InProcess(_Served):
    in_process = True

    async def parse_many(self, texts: list[str]) -> list[Prediction]:
        return [Prediction(intent=f"batch:{t}") for t in texts]


def _cases(*texts: str) -> list[TestCase]:
    return [TestCase(t) for t in texts]


async def test_a_served_model_is_asked_through_the_kernel_with_its_deadline() -> None:
    model = _Served()
    options = RunOptions(concurrency=2, timeout=0.5, retries=1, backoff_base=0.01)
    began = time.monotonic()
    answers = await _parse(model, "fold-1", _cases("greet", "stall", "bye"), options)
    assert time.monotonic() - began < 3.0  # two attempts of 0.5 s, not an hour
    assert [a.intent for a in answers] == ["greet", None, "bye"]
    assert answers[1].error and "tim" in answers[1].error.lower()
    assert model.asked.count("stall") == 2  # retried once, as the run's retries say


async def test_an_in_process_model_answers_in_one_batch() -> None:
    answers = await _parse(_InProcess(), "fold-1", _cases("a", "b"))
    assert [a.intent for a in answers] == ["batch:a", "batch:b"]
