#!/usr/bin/env bash
# Installs the PyPI packages given as arguments (module:package) when their module is missing.
set -euo pipefail
for spec in "$@"; do
  module=${spec%%:*}; package=${spec#*:}
  python3 -c "import $module" 2>/dev/null && continue
  echo "installing PyPI package: $package" >&2
  python3 -m pip install -q "$package"
done
