"""Kore.ai XO's batch-testing public APIs, for a ``kore`` profile (its bot, JWT app and host).

The calls, as Kore.ai documents them (developer.kore.ai/docs/bots/api-guide/…):

| API | Request | Scope |
|---|---|---|
| Upload File | ``POST /api/public/uploadfile`` (multipart, ``fileContext=bulkImport``) | none |
| Get Batch Test Suites | ``GET /api/public/bot/{botId}/testsuite?skip=&limit=`` | Batch Tests Management |
| Export Batch Test Suite | ``POST …/testsuite/{name}/export`` -> ``downloadUrl`` | Batch Tests Management |
| Import Batch Test Suite | ``POST …/testsuite/import`` (``fileName`` = the uploaded file id) | Batch Tests Management |
| Batch Test Execution | ``POST …/testsuite/{name}/run`` ``{"version"}`` -> ``requestId`` | Batch Tests Execution |
| Batch Test Execution Status | ``GET …/testsuite/{name}/{requestId}/status`` | Batch Tests Execution |
| Delete Batch Test Suite Execution | ``DELETE …/testsuite/{name}/{requestId}`` | Batch Tests Management |
| Get Analytics | ``POST /api/public/bot/{botId}/getAnalytics`` (``type``, ``filters.from/to``, ``skip``, ``limit``) | Metrics |
| ML Utterances Export | ``POST /api/public/bot/{botId}/mlexport?state=&type=json`` | Utterances Export |
| ML Utterances Export Status | ``GET /api/public/bot/{botId}/mlexport/status`` -> ``downloadUrl`` | Utterances Export |

Every call carries the profile's JWT (``auth``) and ``bot-language``. A rate-limit refusal
("Rate limit for this API has been reached", 429 or not) waits ``Retry-After`` (capped) and
tries again; a 401/403 is a :class:`KoreApiError` naming the profile field or the scope to
grant; anything else unexpected names the API. Secrets never appear in a message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import orjson

from nlu_tui.engines.httpcall import redact, vendor_message
from nlu_tui.engines.kore import KoreEngine
from nlu_tui.errors import EngineError

EXECUTION_SCOPE = "Batch Tests Execution"
METRICS_SCOPE = "Metrics"
MANAGEMENT_SCOPE = "Batch Tests Management"
UTTERANCES_SCOPE = "Utterances Export"
EXPORT_STATES = {"development": "configured", "published": "published"}
RUN_VERSIONS = {"development": "inDevelopment", "published": "published"}
PAGE = 50
ANALYTICS_PAGE = 100
MAX_ANSWER = 64 * 1024 * 1024


class KoreApiError(EngineError):
    """A Kore.ai API refused or failed; ``bad_input`` when the profile is at fault (exit 2)."""

    def __init__(self, message: str, *, bad_input: bool = False) -> None:
        super().__init__(message)
        self.bad_input = bad_input


@dataclass
class RemoteSuite:
    """One suite of Get Batch Test Suites."""

    id: str
    name: str
    description: str
    kind: str
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def last_run(self) -> dict[str, Any] | None:
        return self.runs[-1] if self.runs else None


@dataclass
class ExecutionStatus:
    """One answer of Batch Test Execution Status."""

    status: str
    ran: int
    total: int
    file_url: str | None
    summary: dict[str, Any]


class KorePlatform:
    """The batch-testing APIs of the bot a ``kore`` engine names."""

    def __init__(self, engine: KoreEngine, profile: str, *, retry_after_max: float = 60.0) -> None:
        self.engine = engine
        self.profile = profile
        self.retry_after_max = retry_after_max
        self.rate_retries = 5
        self.calls: dict[str, int] = {}

    @property
    def base(self) -> str:
        return f"{self.engine.url}/api/public/bot/{quote(self.engine.bot_id, safe='')}/testsuite"

    def _redact(self, text: str) -> str:
        return redact(text, self.engine.secrets)

    async def _call(
        self,
        api: str,
        method: str,
        url: str,
        *,
        scope: str | None,
        json_body: Any = None,
        files: Mapping[str, Any] | None = None,
        data: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
        raw: bool = False,
    ) -> Any:
        import httpx

        client = await self.engine._client()
        headers = {"auth": self.engine.token(), "bot-language": self.engine.language}
        content = None
        if json_body is not None:
            headers["Content-Type"] = "application/json"
            content = orjson.dumps(json_body)
        for attempt in range(self.rate_retries + 1):
            self.calls[api] = self.calls.get(api, 0) + 1
            try:
                response = await client.request(
                    method,
                    url,
                    headers=headers,
                    content=content,
                    files=files,
                    data=data,
                    params=params,
                )
            except httpx.HTTPError as exc:
                raise KoreApiError(
                    f"Kore.ai {api} API: {self._redact(type(exc).__name__ + ': ' + str(exc))}"
                ) from None
            said = self._redact(vendor_message(response) or "")
            if response.status_code == 429 or "rate limit" in said.lower():
                if attempt < self.rate_retries:
                    await asyncio.sleep(_retry_after(response, self.retry_after_max))
                    continue
                raise KoreApiError(f"Kore.ai {api} API: rate limit reached ({said})")
            if response.status_code in (401, 403):
                raise KoreApiError(
                    self._refusal(api, response.status_code, scope, said), bad_input=True
                )
            if response.status_code >= 400:
                detail = f": {said}" if said else ""
                raise KoreApiError(
                    f"Kore.ai {api} API answered HTTP {response.status_code}{detail}",
                    bad_input=response.status_code in (400, 404, 409),
                )
            if len(response.content) > MAX_ANSWER:
                raise KoreApiError(f"Kore.ai {api} API: answer too large")
            if raw:
                return response.content
            try:
                return orjson.loads(response.content)
            except orjson.JSONDecodeError:
                raise KoreApiError(f"Kore.ai {api} API: the answer is not JSON") from None
        raise AssertionError("unreachable")

    def _refusal(self, api: str, status: int, scope: str | None, said: str) -> str:
        where = f"profile '{self.profile}'"
        if status == 401:
            hint = f"{where}: client_id/client_secret refused (the JWT app's credentials)"
        else:
            need = f" '{scope}'" if scope else ""
            hint = (
                f"{where}: the JWT app (client_id) lacks the API scope{need}; grant and publish it"
            )
        return f"Kore.ai {api} API refused the request (HTTP {status}): {hint}" + (
            f"; the service said: {said}" if said else ""
        )

    # --- suites ---------------------------------------------------------------------------

    async def list_suites(self) -> list[RemoteSuite]:
        """Every suite, page after page (``skip``/``limit``, ``moreAvailable``)."""
        found: list[RemoteSuite] = []
        skip = 0
        while True:
            page = await self._call(
                "Get Batch Test Suites",
                "GET",
                self.base,
                scope=MANAGEMENT_SCOPE,
                params={"skip": str(skip), "limit": str(PAGE)},
            )
            if not isinstance(page, dict):
                raise KoreApiError("Kore.ai Get Batch Test Suites API: the answer is not an object")
            items = [(k, v) for k, v in page.items() if isinstance(v, dict)]
            for key, value in items:
                runs = value.get("results")
                found.append(
                    RemoteSuite(
                        id=key,
                        name=str(value.get("name") or key),
                        description=str(value.get("description") or ""),
                        kind=str(value.get("testSuiteType") or ""),
                        runs=[r for r in runs if isinstance(r, dict)]
                        if isinstance(runs, list)
                        else [],
                    )
                )
            if not page.get("moreAvailable") or not items:
                return found
            skip += len(items)

    async def export_suite(self, name: str) -> bytes:
        """The suite's test-case file as Kore.ai gives it (Export, then its ``downloadUrl``)."""
        api = "Export Batch Test Suite"
        answer = await self._call(
            api, "POST", f"{self.base}/{quote(name, safe='')}/export", scope=MANAGEMENT_SCOPE
        )
        url = answer.get("downloadUrl") if isinstance(answer, dict) else None
        if not isinstance(url, str) or not url:
            raise KoreApiError(f"Kore.ai {api} API: the answer has no downloadUrl")
        data: bytes = await self._call(api + " download", "GET", url, scope=None, raw=True)
        return data

    async def upload(self, data: bytes, extension: str = "json") -> str:
        answer = await self._call(
            "Upload File",
            "POST",
            f"{self.engine.url}/api/public/uploadfile",
            scope=None,
            files={"file": (f"suite.{extension}", data, "application/json")},
            data={"fileContext": "bulkImport", "fileExtension": extension},
        )
        file_id = answer.get("fileId") if isinstance(answer, dict) else None
        if not isinstance(file_id, str) or not file_id:
            raise KoreApiError("Kore.ai Upload File API: the answer has no fileId")
        return file_id

    async def import_suite(
        self, name: str, data: bytes, *, update: bool, description: str = ""
    ) -> None:
        file_id = await self.upload(data)
        await self._call(
            "Import Batch Test Suite",
            "POST",
            f"{self.base}/import",
            scope=MANAGEMENT_SCOPE,
            json_body={
                "fileName": file_id,
                "fileType": "json",
                "importType": "update" if update else "new",
                "delimiter": ",",
                "description": description or name,
                "name": name,
            },
        )

    # --- executions -----------------------------------------------------------------------

    async def start(self, name: str, stage: str) -> str:
        api = "Batch Test Execution"
        answer = await self._call(
            api,
            "POST",
            f"{self.base}/{quote(name, safe='')}/run",
            scope=EXECUTION_SCOPE,
            json_body={"version": RUN_VERSIONS.get(stage, "inDevelopment")},
        )
        request_id = answer.get("requestId") if isinstance(answer, dict) else None
        if not isinstance(request_id, str) or not request_id:
            raise KoreApiError(f"Kore.ai {api} API: the answer has no requestId")
        return request_id

    async def status(self, name: str, request_id: str) -> ExecutionStatus:
        api = "Batch Test Execution Status"
        answer = await self._call(
            api,
            "GET",
            f"{self.base}/{quote(name, safe='')}/{quote(request_id, safe='')}/status",
            scope=EXECUTION_SCOPE,
        )
        if not isinstance(answer, dict) or not isinstance(answer.get("status"), str):
            raise KoreApiError(f"Kore.ai {api} API: the answer has no status")
        found = answer.get("result")
        result: dict[str, Any] = found if isinstance(found, dict) else {}
        total = _int(answer.get("totalUtterances") or answer.get("utterance_count"))
        ran = _int(answer.get("utterance_ran"))
        url = result.get("fileUrl")
        return ExecutionStatus(
            status=str(answer["status"]).lower(),
            ran=ran if answer["status"] == "running" else total,
            total=total,
            file_url=url if isinstance(url, str) and url else None,
            summary={
                k: result[k] for k in ("results", "precision", "recall", "f1_score") if k in result
            },
        )

    async def download(self, url: str) -> bytes:
        data: bytes = await self._call(
            "Batch Test result download", "GET", url, scope=None, raw=True
        )
        return data

    async def delete_execution(self, name: str, request_id: str) -> None:
        await self._call(
            "Delete Batch Test Suite Execution",
            "DELETE",
            f"{self.base}/{quote(name, safe='')}/{quote(request_id, safe='')}",
            scope=MANAGEMENT_SCOPE,
        )

    async def analytics(self, kind: str, start: str, end: str) -> list[dict[str, Any]]:
        """Every answer page of Get Analytics for ``kind`` (``successintent``,
        ``successtask``, ...) between ``start`` and ``end`` (ISO timestamps), ``skip``/
        ``limit`` paging until ``moreAvailable`` is false."""
        api = "Get Analytics"
        url = f"{self.engine.url}/api/public/bot/{quote(self.engine.bot_id, safe='')}/getAnalytics"
        pages: list[dict[str, Any]] = []
        skip = 0
        while True:
            page = await self._call(
                api,
                "POST",
                url,
                scope=METRICS_SCOPE,
                json_body={
                    "type": kind,
                    "filters": {"from": start, "to": end},
                    "skip": skip,
                    "limit": ANALYTICS_PAGE,
                },
            )
            records = page.get("result") if isinstance(page, dict) else None
            if not isinstance(records, list):
                raise KoreApiError(f"Kore.ai {api} API: the answer has no 'result' list")
            pages.append(page)
            if not page.get("moreAvailable") or not records:
                return pages
            skip += len(records)

    async def ml_utterances(
        self, stage: str, *, poll: float = 2.0, deadline: float = 600.0
    ) -> bytes:
        """The bot's ML utterances in Kore.ai's JSON export (ML Utterances Export, then its
        status polled until ``SUCCESS`` gives the ``downloadUrl``, then the file).

        ``stage`` ``development`` exports the latest copy of every task (``state=configured``),
        ``published`` only the published tasks. A ``FAILED`` export, or none done by
        ``deadline`` seconds, is a :class:`KoreApiError` naming the API."""
        bot = quote(self.engine.bot_id, safe="")
        url = f"{self.engine.url}/api/public/bot/{bot}/mlexport"
        api = "ML Utterances Export"
        await self._call(
            api,
            "POST",
            url,
            scope=UTTERANCES_SCOPE,
            params={"state": EXPORT_STATES.get(stage, "configured"), "type": "json"},
        )
        loop = asyncio.get_running_loop()
        give_up = loop.time() + deadline
        status_api = "ML Utterances Export Status"
        while True:
            answer = await self._call(status_api, "GET", f"{url}/status", scope=UTTERANCES_SCOPE)
            state = str(answer.get("status") or "").upper() if isinstance(answer, dict) else ""
            if not state:
                raise KoreApiError(f"Kore.ai {status_api} API: the answer has no status")
            if state in ("FAILED", "FAILURE", "ERROR"):
                raise KoreApiError(f"Kore.ai {api} API: the export failed ({state})")
            link = answer.get("downloadUrl") if isinstance(answer, dict) else None
            if state in ("SUCCESS", "COMPLETED") and isinstance(link, str) and link:
                data: bytes = await self._call(
                    "ML Utterances download", "GET", link, scope=None, raw=True
                )
                return data
            if loop.time() >= give_up:
                raise KoreApiError(
                    f"Kore.ai {api} API: the export was not done after {deadline:g} s ({state})"
                )
            await asyncio.sleep(poll)


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _retry_after(response: Any, cap: float) -> float:
    try:
        wait = float(response.headers.get("Retry-After") or 1.0)
    except ValueError:
        wait = 1.0
    return max(0.0, min(wait, cap))
