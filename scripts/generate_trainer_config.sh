#!/usr/bin/env bash
# Drop-in for verl's scripts/generate_trainer_config.sh: the goldens come from config-harness.
#   scripts/generate_trainer_config.sh          regenerate every golden
#   scripts/generate_trainer_config.sh --check  exit 1 and name each golden that would change (no git needed)
set -euo pipefail
cd "$(dirname "$0")/.."
harness=(python3 -m harness)
[ -x .venv/bin/config-harness ] && harness=(.venv/bin/config-harness)
case "${1:-}" in
  "") exec "${harness[@]}" generate ;;
  --check) exec "${harness[@]}" generate --check ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
