"""Google service-account authentication for the Dialogflow engines: key file → OAuth token.

The OAuth 2.0 "JWT bearer" grant Google documents for service accounts: a JWT signed RS256
with the key file's ``private_key`` (header ``kid`` = ``private_key_id``; claims ``iss`` =
``client_email``, ``scope``, ``aud`` = the key file's ``token_uri``, ``iat``, ``exp`` one hour
later) is posted to ``token_uri`` as ``grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer``
and exchanged for an access token (``access_token``, ``expires_in``). The token is reused
until five minutes before it expires, fetched again then (one fetch however many requests
wait for it), and at once when the API says it is no longer valid (HTTP 401). PyJWT (with
``cryptography``) signs; the exchange goes over the run's own HTTP client.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.errors import EngineError
from nlu_tui.extras import need

if TYPE_CHECKING:
    from nlu_tui.engines.httpcall import HttpEngine

SCOPE = "https://www.googleapis.com/auth/cloud-platform"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token"
ASSERTION_LIFETIME = 3600
REFRESH_MARGIN = 300.0
"""Seconds before its expiry a token is replaced."""
_KEY_FIELDS = ("client_email", "private_key")


class ServiceAccount:
    """A service account read from its JSON key file, and the access token it holds."""

    def __init__(self, path: str, engine: str, token_url: str | None = None) -> None:
        need("jwt", f"the {engine} engine")
        from nlu_tui.engines.credential_files import check_permissions

        self.engine = engine
        self.path = path
        check_permissions(path, engine)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise EngineError(
                f"{engine} engine: cannot read credentials_file {path}: {reason}"
            ) from None
        if not isinstance(data, dict) or data.get("type", "service_account") != "service_account":
            raise EngineError(
                f"{engine} engine: credentials_file is not a service account key "
                '(a JSON file with "type": "service_account")'
            )
        for key in _KEY_FIELDS:
            if not isinstance(data.get(key), str) or not data[key].strip():
                raise EngineError(f"{engine} engine: credentials_file has no {key!r}")
        self.client_email: str = data["client_email"]
        self.private_key: str = data["private_key"]
        self.key_id = str(data.get("private_key_id") or "") or None
        self.project_id = str(data.get("project_id") or "") or None
        self.token_uri = str(token_url or data.get("token_uri") or DEFAULT_TOKEN_URI)
        if not self.token_uri.startswith(("http://", "https://")):
            raise EngineError(
                f"{engine} engine: the token URI must be http(s), not {self.token_uri!r}"
            )
        self._token: tuple[str, float] | None = None
        self._lock: asyncio.Lock | None = None
        self.issued: list[str] = []
        """Every access token fetched (to be scrubbed from messages like the key itself)."""

    def check_key(self) -> None:
        """Refuse (:class:`EngineError`, naming the file and ``private_key``) a key that is
        not an unencrypted PEM RSA private key, before any request: PyJWT would otherwise fail
        on every case, saying it "Could not parse the provided public key"."""
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.hazmat.primitives.serialization import load_pem_private_key

        where = f"{self.engine} engine: credentials_file {self.path}, field 'private_key'"
        try:
            key = load_pem_private_key(self.private_key.encode("utf-8"), password=None)
        except (ValueError, TypeError, UnicodeEncodeError) as exc:
            reason = str(exc).split("\n")[0].split(".")[0] or type(exc).__name__
            raise EngineError(f"{where}: not a usable PEM private key ({reason})") from None
        except Exception as exc:  # cryptography's UnsupportedAlgorithm and the like
            raise EngineError(
                f"{where}: not a usable PEM private key ({type(exc).__name__})"
            ) from None
        if not isinstance(key, rsa.RSAPrivateKey):
            raise EngineError(f"{where}: an RSA key is needed (RS256), not {type(key).__name__}")

    @property
    def secrets(self) -> list[str]:
        return [self.private_key, *self.issued]

    def assertion(self, now: float | None = None) -> str:
        """The signed JWT exchanged for an access token."""
        import jwt

        issued = int(time.time() if now is None else now)
        claims = {
            "iss": self.client_email,
            "scope": SCOPE,
            "aud": self.token_uri,
            "iat": issued,
            "exp": issued + ASSERTION_LIFETIME,
        }
        headers = {"kid": self.key_id} if self.key_id else None
        try:
            return jwt.encode(claims, self.private_key, algorithm="RS256", headers=headers)
        except (ValueError, TypeError, jwt.PyJWTError) as exc:  # not a PEM RSA key
            raise EngineError(
                f"{self.engine} engine: the private_key of credentials_file is not usable: "
                f"{type(exc).__name__}"
            ) from None

    def forget(self, token: str) -> None:
        """The API refused ``token`` (expired or revoked): the next call fetches another."""
        if self._token is not None and self._token[0] == token:
            self._token = None

    async def token(self, engine: HttpEngine) -> str:
        """A valid access token, fetched through ``engine``'s client when none is at hand."""
        current = self._token
        if current is not None and current[1] - REFRESH_MARGIN > time.time():
            return current[0]
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            current = self._token
            if current is not None and current[1] - REFRESH_MARGIN > time.time():
                return current[0]
            token, expires_in = await self._fetch(engine)
            self._token = (token, time.time() + expires_in)
            return token

    async def _fetch(self, engine: HttpEngine) -> tuple[str, float]:
        import httpx

        from nlu_tui.engines.httpcall import BadResponseError, vendor_message

        form = {"grant_type": GRANT_TYPE, "assertion": self.assertion()}
        try:
            body, _latency = await engine.request_json(
                "POST",
                self.token_uri,
                headers={"Content-Type": "application/x-www-form-urlencoded"},
                content=_form(form),
            )
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            if status == 429 or status >= 500:
                raise  # transient: the runner retries the case
            said = engine._redact(_oauth_error(exc.response) or vendor_message(exc.response))
            raise EngineError(
                f"Google refused the service account (HTTP {status}) at {self.token_uri}: "
                f"{said or 'no reason given'}; check credentials_file (the key may be deleted "
                "or disabled)"
            ) from None
        if not isinstance(body, dict) or not isinstance(body.get("access_token"), str):
            raise BadResponseError("Google token answer has no 'access_token'")
        expires = body.get("expires_in")
        expires_in = float(expires) if isinstance(expires, int | float) else 3600.0
        self.issued.append(body["access_token"])
        engine.secrets.append(body["access_token"])
        return body["access_token"], expires_in


def _form(fields: Mapping[str, str]) -> bytes:
    from urllib.parse import urlencode

    return urlencode(fields).encode("ascii")


def _oauth_error(response: Any) -> str:
    """``error: error_description`` of an OAuth error answer, or ''."""
    try:
        body = json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        return ""
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        desc = body.get("error_description")
        return f"{body['error']}: {desc}" if isinstance(desc, str) else body["error"]
    return ""
