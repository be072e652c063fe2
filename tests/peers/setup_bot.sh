#!/usr/bin/env bash
# Train the sample bot (tests/peers/bot) with the Rasa peer of setup_rasa.sh, once per content.
#
# The model is cached under ${NLU_TUI_PEERS_DIR:-$HOME/.cache/nlu-tui-peers}/bot-models/, named by
# the SHA-256 of the bot's config, domain and data: re-running with nothing changed is instant,
# and any edit of the bot trains a new model. Prints the model's path on its last line.
# Without the Rasa peer it explains and exits 0 (the Rasa tests then skip themselves).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
BOT="$HERE/bot"
PEERS_DIR="${NLU_TUI_PEERS_DIR:-$HOME/.cache/nlu-tui-peers}"
RASA="$PEERS_DIR/rasa310/bin/rasa"
MODELS="$PEERS_DIR/bot-models"

if [ ! -x "$RASA" ]; then
    echo "setup_bot: skipping: no Rasa peer at $RASA (run tests/peers/setup_rasa.sh first)"
    exit 0
fi

# The content hash: every training input, in a fixed order, names included.
HASH="$(cd "$BOT" && find config.yml domain.yml data -type f -name '*.yml' | LC_ALL=C sort \
        | while read -r f; do printf '%s\n' "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
MODEL="$MODELS/bot-$HASH.tar.gz"

if [ -f "$MODEL" ]; then
    echo "setup_bot: model up to date"
    echo "$MODEL"
    exit 0
fi

mkdir -p "$MODELS"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$BOT/config.yml" "$BOT/domain.yml" "$BOT/data" "$WORK/"
echo "setup_bot: training the sample bot ($HASH), about a minute on two cores"
(
    cd "$WORK"
    export RASA_TELEMETRY_ENABLED=false SQLALCHEMY_SILENCE_UBER_WARNING=1 HOME="$WORK"
    "$RASA" train --data data --config config.yml --domain domain.yml \
        --out "$WORK/models" --fixed-model-name bot >"$WORK/train.log" 2>&1 \
        || { tail -30 "$WORK/train.log"; exit 1; }
)
mv "$WORK/models/bot.tar.gz" "$MODEL.part"
mv "$MODEL.part" "$MODEL"
echo "setup_bot: trained"
echo "$MODEL"
