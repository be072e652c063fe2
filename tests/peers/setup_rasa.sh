#!/usr/bin/env bash
# Set up a real Rasa Open Source 3.6.21 peer for the integration tests (tests/test_rasa_real.py).
#
# Rasa 3.6 needs Python < 3.11; these machines have a pyenv-built CPython 3.10.13. The venv goes
# outside the repository (about 2.7 GB):  ${NLU_TUI_PEERS_DIR:-$HOME/.cache/nlu-tui-peers}/rasa310.
# Idempotent: an existing, working install is left alone. Without Python 3.10 it explains and exits 0,
# so CI without the interpreter simply skips the Rasa tests.
set -euo pipefail

PY310="${NLU_TUI_PY310:-/root/.pyenv/versions/3.10.13/bin/python}"
PEERS_DIR="${NLU_TUI_PEERS_DIR:-$HOME/.cache/nlu-tui-peers}"
VENV="$PEERS_DIR/rasa310"
RASA_VERSION="3.6.21"

if [ ! -x "$PY310" ]; then
    echo "setup_rasa: skipping: no Python 3.10 interpreter at $PY310 (Rasa $RASA_VERSION needs Python < 3.11)"
    exit 0
fi

if [ -x "$VENV/bin/rasa" ] && "$VENV/bin/python" -c "import rasa, sys; sys.exit(rasa.__version__ != '$RASA_VERSION')" 2>/dev/null; then
    echo "setup_rasa: Rasa $RASA_VERSION already installed in $VENV"
    exit 0
fi

mkdir -p "$PEERS_DIR"
if [ ! -x "$VENV/bin/python" ]; then
    echo "setup_rasa: creating venv $VENV"
    "$PY310" -m venv "$VENV"
fi
export RASA_TELEMETRY_ENABLED=false
echo "setup_rasa: installing rasa==$RASA_VERSION (about 1.5 minutes, 2.7 GB)"
"$VENV/bin/pip" install --disable-pip-version-check -q "rasa==$RASA_VERSION"
"$VENV/bin/python" -c "import rasa; print('setup_rasa: installed Rasa', rasa.__version__)"
