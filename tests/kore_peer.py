"""A loopback stand-in of Kore.ai XO's batch-testing public APIs, written from Kore.ai's docs.

Written from the documentation only (never from nlu-tui's code); every path, body and state is
the documented one, with the few undocumented details marked *[inferred]*:

- JWT (``auth`` header, HS256 with the app's Client Secret, claim ``appId``):
  https://developer.kore.ai/docs/bots/api-guide/apis/#Generating_the_JWT_Token
  (Koredotcom/docs ``docs/xo/apis/automation/api-introduction.md``). Verified with PyJWT; the
  app's API scopes are the platform's setting for that app (here ``apps[client_id].scopes``).
- Upload File, ``POST /api/public/uploadfile`` (multipart ``file``, ``fileContext=bulkImport``,
  ``fileExtension``) -> ``{"fileId", "hash"}``; no scope:
  https://developer.kore.ai/docs/bots/api-guide/upload-file-api/
- Get Batch Test Suites, ``GET /api/public/bot/{botId}/testsuite?skip=&limit=`` ->
  ``{"count", "moreAvailable", <suiteId>: {testSuiteType, name, description, results[]}}``;
  scope Batch Tests Management:
  https://developer.kore.ai/docs/bots/api-guide/get-batch-test-suites-api/
- Export Batch Test Suite, ``POST …/testsuite/{testSuiteName}/export`` ->
  ``{"downloadUrl", "name", "description"}`` (custom suites only); scope Batch Tests
  Management: https://developer.kore.ai/docs/bots/api-guide/export-batch-test-suite-api/
- Import Batch Test Suite, ``POST …/testsuite/import`` with ``{fileName: <fileId>, fileType:
  "json", importType: "new"|"update", delimiter, description, name}`` -> the suite record;
  scope Batch Tests Management:
  https://developer.kore.ai/docs/bots/api-guide/import-batch-test-suite-api/
- Batch Test Execution, ``POST …/testsuite/{testSuiteName}/run`` with ``{"version":
  "inDevelopment"|"published"}`` -> ``{"status": "accepted", "requestId": "tr-…"}``; scope Batch
  Tests Execution: https://developer.kore.ai/docs/bots/api-guide/batch-test-execution-api/
- Batch Test Execution Status, ``GET …/testsuite/{testSuiteName}/{testRunId}/status`` ->
  ``running`` (``utterance_ran``, ``totalUtterances``, ``percentage``) then ``completed``
  (``result.fileUrl``, the per-utterance CSV; ``f1_score``/``precision``/``recall`` strings;
  ``results`` counts); scope Batch Tests Execution:
  https://developer.kore.ai/docs/bots/api-guide/batch-test-execution-status-api/ . A run that
  fails says ``failed`` *[inferred from the Batch Testing page's run outcomes]*.
- Delete Batch Test Suite Execution, ``DELETE …/testsuite/{testSuiteName}/{testRunId}`` ->
  ``{"message": "Test Result Removed Successfully"}``; scope Batch Tests Management:
  https://developer.kore.ai/docs/bots/api-guide/delete-batch-test-suite-execution-api/
- Get Analytics, ``POST /api/public/bot/{botId}/getAnalytics`` with ``{type: successintent|
  successtask|…, filters: {from, to}, skip, limit}`` -> ``{"moreAvailable", "result": [records
  with utterance, intent, sessionId, taskId, timestamp, NLAnalysis…]}``; scope Metrics:
  https://developer.kore.ai/docs/bots/api-guide/get-analytics-api/
- ML Utterances Export, ``POST /api/public/bot/{botId}/mlexport?state=configured|published&
  type=json`` -> ``{"status": "IN_PROGRESS", "jobType": "ML_UTTERANCE", "action": "EXPORT",
  ...}``; ML Utterances Export Status, ``GET …/mlexport/status`` -> ``{"status": "SUCCESS",
  "percentageComplete": 100, "downloadUrl": …}``; scope Utterances Export (Koredotcom/docs
  ``ml-utterances-export.md``, ``ml-utterances-export-status.md``). The file's entries are
  ``{"taskName", "sentence", "type", "language"}``, the shape Kore.ai's own bulk import takes
  (Koredotcom/NLP-Benchmark ``kore.py``) *[inferred: the docs do not list the file's fields]*.
- Rate limits, https://developer.kore.ai/docs/bots/api-guide/rate-limiting/ (Koredotcom/docs
  ``rate-limit.md``): 60 per minute per bot (definition APIs) and per request id (status APIs);
  the refusal says "Rate limit for this API has been reached. Please try again after some
  time." The docs give no status code and no header: the stand-in answers 429 with that message
  and a ``Retry-After`` *[inferred: HTTP's standard header, the only one sent]*.
- The result CSV's layout (header block, then one row per utterance with Result Type TP/TN/FP/FN
  by the documented rules, extra rows for extra entities): the Batch Testing page, Koredotcom/docs
  ``docs/xo/automation/testing/regression-testing/batch-testing.md`` (metric-semantics §1.3-1.5).

Both path spellings (``/api/public/bot/{botId}`` and ``/api/public/stream/{streamId}``) appear in
the docs and are served. The bot's NLU is the test's ``answers``: utterance -> (intent, entities,
score); an utterance it does not know matches no intent.
"""

from __future__ import annotations

import contextlib
import csv
import email.parser
import email.policy
import hashlib
import io
import json
import re
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import jwt

EXECUTION = "Batch Tests Execution"
MANAGEMENT = "Batch Tests Management"
METRICS = "Metrics"
UTTERANCES = "Utterances Export"
RATE_MESSAGE = "Rate limit for this API has been reached. Please try again after some time."
COLUMNS = (
    "Utterance",
    "Expected Intent",
    "Matched Intent",
    "Parent Intent",
    "Task State",
    "Result Type",
    "Entity Name",
    "Expected EntityValue",
    "Matched EntityValue",
    "Entity Result",
    "Expected Entity Order",
    "Actual Entity Order",
    "Matched Intent's Score",
    "Expected Intent's Score",
    "Elimination Info",
)


@dataclass
class App:
    secret: str
    scopes: set[str]


@dataclass
class Answer:
    intent: str | None
    entities: dict[str, str] = field(default_factory=dict)
    score: float = 0.0


@dataclass
class RemoteSuite:
    id: str
    name: str
    description: str
    file: bytes
    modified: str
    results: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Execution:
    id: str
    suite: str
    version: str
    cases: list[dict[str, Any]]
    ran: int = 0
    status: str = "running"
    file_id: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass
class KorePeer:
    """The platform's state; tests read ``calls`` (per API) and edit ``answers``/``suites``."""

    bot_id: str = "st-7c1f4767-416c-5c6c-af6d-928b28978312"
    bot_name: str = "Travel Bot"
    language: str = "en"
    apps: dict[str, App] = field(default_factory=dict)
    answers: dict[str, Answer] = field(default_factory=dict)
    suites: dict[str, RemoteSuite] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    executions: dict[str, Execution] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    step: int = 400
    """Utterances a run advances per status poll."""
    fail_runs: bool = False
    never_finish: bool = False
    per_minute: int = 60
    retry_after: int = 1
    thresholds: list[list[tuple[str, str]]] = field(
        default_factory=lambda: [
            [("mode", "ml"), ("minThreshold", "0.3"), ("exactMatchThreshold", "95"),
             ("isActive", "true")],
            [("mode", "faq"), ("minThreshold", "60"), ("maxThreshold", "80"),
             ("isActive", "true"), ("suggestionsCount", "3"), ("pathCoverage", "50")],
            [("mode", "cs"), ("minThreshold", "0.5"), ("isActive", "false")],
        ]
    )  # fmt: skip
    """The bot's NLP settings as its batch test report lists them (Threshold Setting block of
    the report's summary; Batch Testing page, "Download a CSV Report", post 7.3)."""
    ml_utterances: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """The bot's ML utterances per state (``configured``, ``published``): (task, sentence)."""
    ml_export: dict[str, Any] | None = None
    """The ML utterances export in progress (its status advances one step per status call)."""
    ml_export_fails: bool = False
    analytics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Get Analytics records per type (each with a ``timestamp``)."""
    misjudge: dict[str, str] = field(default_factory=dict)
    """Utterance -> a Result Type the stand-in reports against the rules (a bug on its side,
    for the tests of the side-by-side report)."""
    throttle_next: int = 0
    """The next N calls are refused as over the limit (a window already full elsewhere)."""
    window: dict[str, list[float]] = field(default_factory=dict)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    # --- seeding -------------------------------------------------------------------------

    def seed_suite(self, name: str, file: bytes, description: str = "") -> RemoteSuite:
        suite = RemoteSuite(_id("ts"), name, description, file, _now())
        self.suites[name] = suite
        return suite

    # --- checks --------------------------------------------------------------------------

    def auth(self, token: str | None, scope: str | None) -> tuple[int, str] | None:
        if not token:
            return 401, "auth header missing"
        try:
            app_id = jwt.decode(token, options={"verify_signature": False}).get("appId")
        except jwt.PyJWTError:
            return 401, "Invalid JWT"
        app = self.apps.get(str(app_id))
        if app is None:
            return 401, "Invalid SDK credentials"
        try:
            jwt.decode(token, app.secret, algorithms=["HS256"])
        except jwt.PyJWTError:
            return 401, "Invalid SDK credentials"
        if scope is not None and scope not in app.scopes:
            return 403, f"App does not have the scope: {scope}"
        return None

    def limited(self, key: str) -> bool:
        now = time.monotonic()
        with self.lock:
            if self.throttle_next > 0:
                self.throttle_next -= 1
                return True
            hits = [t for t in self.window.get(key, []) if now - t < 60]
            if len(hits) >= self.per_minute:
                self.window[key] = hits
                return True
            hits.append(now)
            self.window[key] = hits
            return False

    # --- batch runs ----------------------------------------------------------------------

    def start(self, suite: RemoteSuite, version: str) -> Execution:
        doc = json.loads(suite.file)
        ex = Execution(_id("tr"), suite.name, version, list(doc.get("testCases") or []))
        self.executions[ex.id] = ex
        return ex

    def advance(self, ex: Execution) -> None:
        if ex.status != "running" or self.never_finish:
            return
        ex.ran = min(len(ex.cases), ex.ran + self.step)
        if ex.ran < len(ex.cases):
            return
        if self.fail_runs:
            ex.status = "failed"
            return
        text, summary = self.result_csv(ex)
        ex.file_id = _id("f")
        self.files[ex.file_id] = text.encode("utf-8")
        ex.summary = summary
        ex.status = "completed"
        suite = self.suites.get(ex.suite)
        if suite is not None:
            suite.results.append({"_id": ex.id, "version": ex.version, **summary})

    def result_csv(self, ex: Execution) -> tuple[str, dict[str, Any]]:
        counts: Counter[str] = Counter()
        rows: list[list[str]] = []
        for case in ex.cases:
            utterance = str(case.get("input", ""))
            expected = [p.strip() for p in str(case.get("intent") or "").split("|") if p.strip()]
            answer = self.answers.get(utterance, Answer(None))
            matched = answer.intent
            if not expected:
                verdict = "TN" if matched is None else "FP"
            elif matched is None:
                verdict = "FN"
            elif matched in expected:
                verdict = "TP"
            else:
                verdict = "FP"
            verdict = self.misjudge.get(utterance, verdict)
            counts[verdict] += 1
            entities = list(case.get("entities") or []) or [{}]
            score = f"ML: {answer.score}" if matched else ""
            for i, ent in enumerate(entities):
                name = str(ent.get("entityName", ""))
                want = str(ent.get("entityValue", ""))
                got = answer.entities.get(name, "") if name else ""
                result = "" if not name else str(_entity_ok(want, got))
                head = i == 0
                rows.append(
                    [
                        utterance if head else "",
                        str(case.get("intent") or "") if head else "",
                        (matched or "") if head else "",
                        str(case.get("parentIntent") or "") if head else "",
                        ("Configured" if ex.version == "inDevelopment" else "Published")
                        if head and matched
                        else "",
                        verdict if head else "",
                        name,
                        want,
                        got,
                        result,
                        "",
                        "",
                        score if head else "",
                        "",
                        "",
                    ]
                )
        n = len(ex.cases) or 1
        tp, fp, fn = counts["TP"], counts["FP"], counts["FN"]
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        summary = {
            "results": {
                "TP": tp,
                "TN": counts["TN"],
                "FP": fp,
                "FN": fn,
                "success": tp + counts["TN"],
                "failure": fp + fn,
            },
            "precision": f"{precision:.2f}",
            "recall": f"{recall:.2f}",
            "f1_score": f"{f1:.2f}",
        }
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\r\n")
        w.writerow(["Bot Name", self.bot_name])
        w.writerow(["Report Name", ex.suite])
        w.writerow(["Bot Language", self.language])
        w.writerow(["Run Type", ex.version])
        w.writerow(["Threshold Setting"])
        for block in self.thresholds:
            w.writerows([key, value] for key, value in block)
        w.writerow(["Last Tested", _now()])
        w.writerow(["Utterance Count", str(len(ex.cases))])
        ratio = 100 * (tp + counts["TN"]) / n
        w.writerow(["Success/Failure Ratio", f"{ratio:.2f}%"])
        for key, title in (
            ("TP", "True Positive (TP)"),
            ("TN", "True Negative (TN)"),
            ("FP", "False Positive (FP)"),
            ("FN", "False Negative (FN)"),
        ):
            w.writerow([title, f"{100 * counts[key] / n:.2f}%"])
        w.writerow([])
        w.writerow(COLUMNS)
        w.writerows(rows)
        return buf.getvalue(), summary


def _entity_ok(want: str, got: str) -> bool:
    if want == got:
        return True
    try:
        return re.fullmatch(want, got) is not None
    except re.error:
        return False


def _id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4()}"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


_BOT = re.compile(r"^/api/public/(?:bot|stream)/(?P<bot>[^/]+)/testsuite(?P<rest>/.*)?$")


def _handler(peer: KorePeer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, msg: str) -> None:
            self._send(status, {"errors": [{"msg": msg, "code": status}]})

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _gate(self, api: str, scope: str | None, limit_key: str) -> bool:
            peer.calls[api] += 1
            refused = peer.auth(self.headers.get("auth"), scope)
            if refused is not None:
                self._error(*refused)
                return False
            if peer.limited(limit_key):
                peer.calls["429"] += 1
                self._send(
                    429,
                    {"errors": [{"msg": RATE_MESSAGE, "code": 429}]},
                    {"Retry-After": str(peer.retry_after)},
                )
                return False
            return True

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path.startswith("/api/getMediaStream/"):
                peer.calls["download"] += 1
                file_id = parts.path.rsplit("/", 1)[-1]
                data = peer.files.get(file_id)
                if data is None:
                    self._error(404, "file not found")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            if parts.path == f"/api/public/bot/{peer.bot_id}/mlexport/status":
                if not self._gate("mlexport_status", UTTERANCES, "bot"):
                    return
                job = peer.ml_export
                if job is None:
                    self._error(404, "No export found")
                    return
                body = {k: v for k, v in job.items() if k != "file"}
                if job["status"] == "IN_PROGRESS":  # the first poll sees it running
                    job["status"] = "FAILED" if peer.ml_export_fails else "SUCCESS"
                    job["percentageComplete"] = 100
                elif job["status"] == "SUCCESS":
                    body["downloadUrl"] = f"{peer.url}/api/getMediaStream/{job['file']}"
                self._send(200, body)
                return
            m = _BOT.match(parts.path)
            if not m or m["bot"] != peer.bot_id:
                self._error(404, "bot not found")
                return
            rest = m["rest"] or ""
            if rest in ("", "/"):
                if not self._gate("list", MANAGEMENT, "bot"):
                    return
                q = parse_qs(parts.query)
                skip = int(q.get("skip", ["0"])[0])
                limit = int(q.get("limit", ["10"])[0])
                names = list(peer.suites)
                page = names[skip : skip + limit]
                out: dict[str, Any] = {
                    "count": len(names),
                    "moreAvailable": skip + limit < len(names),
                }
                for name in page:
                    s = peer.suites[name]
                    out[s.id] = {
                        "testSuiteType": "custom",
                        "name": s.name,
                        "description": s.description,
                        "results": s.results,
                    }
                self._send(200, out)
                return
            segs = [unquote(p) for p in rest.strip("/").split("/")]
            if len(segs) == 3 and segs[2] == "status":
                if not self._gate("status", EXECUTION, "request:" + segs[1]):
                    return
                ex = peer.executions.get(segs[1])
                if ex is None or ex.suite != segs[0]:
                    self._error(404, "Test run not found")
                    return
                peer.advance(ex)
                result: dict[str, Any] = {
                    "_id": ex.id,
                    "status": ex.status,
                    "streamId": peer.bot_id,
                    "botLanguage": peer.language,
                    "runType": ex.version,
                    "utterance_count": len(ex.cases),
                }
                body: dict[str, Any] = {
                    "_id": ex.id,
                    "streamId": peer.bot_id,
                    "status": ex.status,
                    "utterance_count": len(ex.cases),
                    "result": result,
                }
                if ex.status == "running":
                    body["totalUtterances"] = len(ex.cases)
                    body["utterance_ran"] = ex.ran
                    body["percentage"] = round(100 * ex.ran / max(1, len(ex.cases)))
                elif ex.status == "completed":
                    result.update(ex.summary)
                    result["isAvailable"] = True
                    result["fileId"] = ex.file_id
                    result["fileUrl"] = (
                        f"{peer.url}/api/getMediaStream/media/{ex.file_id}"
                        "?clientfilename=result.csv&batchtesting=true"
                    )
                self._send(200, body)
                return
            self._error(404, "no such API")

        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/api/public/uploadfile":
                if not self._gate("upload", None, "bot"):
                    return
                ctype = self.headers.get("Content-Type", "")
                raw = self._body()
                msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                    b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + raw
                )
                fields: dict[str, bytes] = {}
                for part in msg.iter_parts():
                    name = part.get_param("name", header="content-disposition")
                    fields[str(name)] = part.get_payload(decode=True) or b""
                if fields.get("fileContext") != b"bulkImport" or "file" not in fields:
                    self._error(400, "file and fileContext=bulkImport are required")
                    return
                file_id = uuid.uuid4().hex[:24]
                peer.files[file_id] = fields["file"]
                self._send(
                    200, {"fileId": file_id, "hash": hashlib.sha1(fields["file"]).hexdigest()}
                )
                return
            if parts.path == f"/api/public/bot/{peer.bot_id}/mlexport":
                if not self._gate("mlexport", UTTERANCES, "bot"):
                    return
                q = parse_qs(parts.query)
                state = q.get("state", ["configured"])[0]
                if q.get("type", ["csv"])[0] != "json" or state not in ("configured", "published"):
                    self._error(400, "Invalid state or type")
                    return
                entries = [
                    {"taskName": task, "sentence": text, "type": "DialogIntent", "language": "en"}
                    for task, text in peer.ml_utterances.get(state, [])
                ]
                file_id = _id("ml")
                peer.files[file_id] = json.dumps(entries, indent=2).encode()
                peer.ml_export = {
                    "_id": _id("dx"),
                    "status": "IN_PROGRESS",
                    "percentageComplete": 0,
                    "streamId": peer.bot_id,
                    "jobType": "ML_UTTERANCE",
                    "action": "EXPORT",
                    "fileType": "JSON",
                    "statusLogs": [],
                    "file": file_id,
                }
                self._send(200, {k: v for k, v in peer.ml_export.items() if k != "file"})
                return
            if parts.path == f"/api/public/bot/{peer.bot_id}/getAnalytics":
                if not self._gate("analytics", METRICS, "bot"):
                    return
                req = json.loads(self._body() or b"{}")
                filters = req.get("filters") or {}
                start, end = filters.get("from"), filters.get("to")
                if not start or not end or "limit" not in req or "skip" not in req:
                    self._error(400, "filters.from, filters.to, skip and limit are required")
                    return
                rows = [
                    r
                    for r in peer.analytics.get(str(req.get("type")), [])
                    if start <= r["timestamp"] <= end
                ]
                skip, limit = int(req["skip"]), int(req["limit"])
                self._send(
                    200,
                    {
                        "moreAvailable": skip + limit < len(rows),
                        "result": rows[skip : skip + limit],
                    },
                )
                return
            m = _BOT.match(parts.path)
            if not m or m["bot"] != peer.bot_id:
                self._error(404, "bot not found")
                return
            segs = [unquote(p) for p in (m["rest"] or "").strip("/").split("/")]
            raw = self._body()
            if segs == ["import"]:
                if not self._gate("import", MANAGEMENT, "bot"):
                    return
                req = json.loads(raw or b"{}")
                name = str(req.get("name") or "")
                if not name or len(name) > 100 or re.search(r"[/\\<>]", name):
                    self._error(400, "Invalid test suite name")
                    return
                data = peer.files.get(str(req.get("fileName")))
                if data is None:
                    self._error(400, "Invalid fileName")
                    return
                try:
                    json.loads(data)["testCases"]
                except (ValueError, KeyError, TypeError):
                    self._error(400, "Invalid test suite file")
                    return
                existing = peer.suites.get(name)
                if req.get("importType") == "update":
                    if existing is None:
                        self._error(404, "Test suite not found")
                        return
                    existing.file = data
                    existing.description = str(req.get("description") or "")
                    existing.modified = _now()
                    suite = existing
                else:
                    if existing is not None:
                        self._error(409, "Test suite with this name already exists")
                        return
                    suite = peer.seed_suite(name, data, str(req.get("description") or ""))
                self._send(
                    200,
                    {
                        "_id": suite.id,
                        "name": suite.name,
                        "description": suite.description,
                        "streamId": peer.bot_id,
                        "language": peer.language,
                        "fileId": req.get("fileName"),
                        "modifiedOn": suite.modified,
                    },
                )
                return
            if len(segs) == 2 and segs[1] in ("export", "run"):
                api = segs[1]
                scope = MANAGEMENT if api == "export" else EXECUTION
                if not self._gate(api, scope, "bot"):
                    return
                suite = peer.suites.get(segs[0])
                if suite is None:
                    self._error(404, "Test suite not found")
                    return
                if api == "export":
                    file_id = _id("f")
                    peer.files[file_id] = suite.file
                    self._send(
                        200,
                        {
                            "downloadUrl": f"{peer.url}/api/getMediaStream/media/{file_id}",
                            "name": suite.name,
                            "description": suite.description,
                        },
                    )
                    return
                req = json.loads(raw or b"{}")
                version = req.get("version")
                if version not in ("inDevelopment", "published"):
                    self._error(400, "version must be inDevelopment or published")
                    return
                ex = peer.start(suite, str(version))
                self._send(200, {"status": "accepted", "requestId": ex.id})
                return
            self._error(404, "no such API")

        def do_DELETE(self) -> None:
            parts = urlsplit(self.path)
            m = _BOT.match(parts.path)
            if not m or m["bot"] != peer.bot_id:
                self._error(404, "bot not found")
                return
            segs = [unquote(p) for p in (m["rest"] or "").strip("/").split("/")]
            if len(segs) != 2:
                self._error(404, "no such API")
                return
            if not self._gate("delete_execution", MANAGEMENT, "bot"):
                return
            ex = peer.executions.pop(segs[1], None)
            if ex is None or ex.suite != segs[0]:
                self._error(404, "Test run not found")
                return
            self._send(200, {"message": "Test Result Removed Successfully"})

    return Handler


@contextlib.contextmanager
def serving(peer: KorePeer) -> Iterator[KorePeer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(peer))
    server.daemon_threads = True
    peer.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield peer
    finally:
        server.shutdown()
        server.server_close()
