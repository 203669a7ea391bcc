#!/usr/bin/env bash
# Installs what is missing, builds, and runs tierlab's main job on its
# embedded default, printing the result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
build/tierlab run
