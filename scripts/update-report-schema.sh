#!/usr/bin/env bash
# Writes the field models' derived schema definitions (FieldModel.schemaDefinition) into
# Reports/schema/sonde-report.schema.json, keeping each definition's and property's description.
# Usage: scripts/update-report-schema.sh   (after swift build --build-tests)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
derived=$(mktemp)
trap 'rm -f "$derived"' EXIT
cd "$here"
SONDE_DERIVED_SCHEMA_OUT="$derived" swift test --skip-build --filter 'ReportSchemaTests/theSchemaHoldsTheDerivedDefinitions' >/dev/null || true
python3 - "$derived" Reports/schema/sonde-report.schema.json <<'PY'
import json, sys
derived = json.load(open(sys.argv[1]))
path = sys.argv[2]
schema = json.load(open(path))
defs = schema["$defs"]
def keep_descriptions(old, new):
    if isinstance(old, dict) and isinstance(new, dict):
        if "description" in old and "description" not in new:
            new = {"description": old["description"], **new}
        for key, value in new.items():
            if key in old and key != "description":
                new[key] = keep_descriptions(old[key], value)
    return new
for name, definition in derived.items():
    defs[name] = keep_descriptions(defs.get(name, {}), definition)
open(path, "w").write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
print("updated", ", ".join(sorted(derived)), "in", path)
PY
