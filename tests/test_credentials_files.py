"""Service-account keys are checked at start: a corrupt ``private_key`` is refused before any
case (it used to fail every case with PyJWT's "Could not parse the provided public key"), and a
key file group or others can read gets a warning, or is refused with ``--strict-permissions``,
as OpenSSH refuses such a private key (``sshkey_perm_ok``: ``st_mode & 077``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from nlu_tui.engines.base import create_engine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY
from nlu_tui.errors import EngineError

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
CORRUPT = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
)


def _pem(key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def _key_file(folder: Path, private_key: str, mode: int = 0o600) -> Path:
    path = folder / "service-account.json"
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "demo-project",
                "private_key_id": "k1",
                "private_key": private_key,
                "client_email": "tests@demo-project.iam.gserviceaccount.com",
                "token_uri": "http://127.0.0.1:1/token",
            }
        ),
        encoding="utf-8",
    )
    path.chmod(mode)
    return path


def _engine(key: Path):  # type: ignore[no-untyped-def]
    settings = {"credentials_file": str(key), "url": "http://127.0.0.1:1", SECRET_VALUES_KEY: []}
    return create_engine("dialogflow-es", settings)


@pytest.mark.parametrize(
    ("private_key", "reason"),
    [
        (CORRUPT, "not a usable PEM private key"),
        ("not a key at all", "not a usable PEM private key"),
        (_pem(ec.generate_private_key(ec.SECP256R1())), "an RSA key is needed"),
    ],
    ids=["corrupt-pem", "no-pem", "ec-key"],
)
def test_a_key_that_cannot_sign_is_refused_when_the_engine_is_built(
    tmp_path: Path, private_key: str, reason: str
) -> None:
    key = _key_file(tmp_path, private_key)
    with pytest.raises(EngineError) as refused:
        _engine(key)  # built, not opened: no request (the token URI is not even listening)
    message = str(refused.value)
    assert f"credentials_file {key}, field 'private_key'" in message and reason in message
    assert private_key.strip() not in message


async def test_a_good_key_opens(tmp_path: Path) -> None:
    key = _key_file(tmp_path, _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048)))
    engine = _engine(key)
    await engine.open(None)
    await engine.close()


def _run(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  df:\n    type: dialogflow-es\n    url: http://127.0.0.1:1\n"
        "    credentials_file: service-account.json\n",
        encoding="utf-8",
    )
    suite = tmp_path / "banking_bot.suite.yaml"
    suite.write_bytes((SAMPLES / "banking_bot.suite.yaml").read_bytes())
    env = {**os.environ, "NLU_TUI_DATA_DIR": str(tmp_path / "data")}
    env.pop("NLU_TUI_STRICT_PERMISSIONS", None)
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", "run", str(suite), "--engine", "df", *extra],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )


def test_run_refuses_a_corrupt_key_before_any_case(tmp_path: Path) -> None:
    key = _key_file(tmp_path, CORRUPT)
    ran = _run(tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert f"credentials_file {key.resolve()}, field 'private_key'" in ran.stderr
    assert "connecting to the engine" not in ran.stdout
    assert "public key" not in ran.stderr + ran.stdout and "Traceback" not in ran.stderr


def test_a_key_file_others_can_read_gets_a_warning(tmp_path: Path) -> None:
    key = _key_file(tmp_path, CORRUPT, mode=0o644)
    ran = _run(tmp_path)
    warning = f"nlu-tui: warning: dialogflow-es engine: credentials_file {key.resolve()} is "
    assert warning + "accessible by group or others (mode 0644)" in ran.stderr
    assert "chmod 600" in ran.stderr and "--strict-permissions" in ran.stderr
    assert ran.stderr.count("nlu-tui: warning:") == 1
    for command in (["run"], ["test", "e2e"], ["test", "du"], ["test", "nlu"], ["coverage"]):
        helped = subprocess.run(
            [sys.executable, "-m", "nlu_tui", *command, "--help"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "--strict-permissions" in helped.stdout, command


def test_strict_permissions_refuses_it(tmp_path: Path) -> None:
    key = _key_file(tmp_path, CORRUPT, mode=0o640)
    ran = _run(tmp_path, "--strict-permissions")
    assert ran.returncode == 2, ran.stderr
    assert f"credentials_file {key.resolve()} is accessible by group or others (mode 0640)" in (
        ran.stderr
    )
    assert "refused: --strict-permissions" in ran.stderr and "warning" not in ran.stderr
    assert not (tmp_path / "data").exists()  # refused before the run store is opened
    key.chmod(0o600)
    again = _run(tmp_path, "--strict-permissions")
    assert "accessible by group or others" not in again.stderr
