#!/usr/bin/env bash
# Writes the field models' derived schema definitions (FieldModel.schemaDefinition) into
# Reports/schema/sonde-report.schema.json, keeping each definition's and property's description;
# and the check kinds' keys (SuiteSchema, from each spec's visitKeys) into
# Reports/schema/sonde-suite.schema.json: each registered kind's branch of checks.items.oneOf (CheckKinds.sonde)
# and defaults.
# Usage: scripts/update-report-schema.sh   (after swift build --build-tests)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
derived=$(mktemp)
parts=$(mktemp)
audit=$(mktemp)
suite=$(mktemp)
trap 'rm -f "$derived" "$parts" "$audit" "$suite"' EXIT
cd "$here"
SONDE_DERIVED_SCHEMA_OUT="$derived" swift test --skip-build --filter 'ReportSchemaTests/theSchemaHoldsTheDerivedDefinitions' >/dev/null || true
# The soak's and its attempts' definitions hold the registered kind extensions' parts (SondeGraphQL's).
SONDE_DERIVED_PART_SCHEMA_OUT="$parts" swift test --skip-build --filter 'SoakPartSchemaTests/theSchemaHoldsTheSoakDefinitionsWithTheirParts' >/dev/null || true
# The audit's models are SondeAudit's.
SONDE_DERIVED_AUDIT_SCHEMA_OUT="$audit" swift test --skip-build --filter 'AuditSchemaTests/theSchemaHoldsTheAuditDefinitions' >/dev/null || true
SONDE_DERIVED_SUITE_SCHEMA_OUT="$suite" swift test --skip-build --filter 'SuiteLoaderSchemaTests/theSchemaHoldsTheKeyTables' >/dev/null || true
python3 - "$derived" Reports/schema/sonde-report.schema.json "$parts" "$audit" <<'PY'
import json, sys
derived = json.load(open(sys.argv[1]))
derived.update(json.load(open(sys.argv[3])))
derived.update(json.load(open(sys.argv[4])))
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
python3 - "$suite" Reports/schema/sonde-suite.schema.json <<'PY'
import json, sys
derived = json.load(open(sys.argv[1]))
path = sys.argv[2]
schema = json.load(open(path))
def ordered(new, old):
    """new's members in old's order (new ones after), at every depth: the file keeps its layout."""
    if isinstance(new, dict):
        old = old if isinstance(old, dict) else {}
        keys = [k for k in old if k in new] + [k for k in new if k not in old]
        return {k: ordered(new[k], old.get(k)) for k in keys}
    if isinstance(new, list):
        old = old if isinstance(old, list) else []
        return [ordered(item, old[i] if i < len(old) else None) for i, item in enumerate(new)]
    return new
def properties_in_order(properties, old, order):
    return {k: ordered(properties[k], (old or {}).get(k)) for k in order}
branches = schema["properties"]["checks"]["items"]["oneOf"]
held = {branch["properties"]["kind"]["const"]: branch for branch in branches}
# One branch per registered kind (CheckKinds.sonde), in its order: a new kind's is added.
for index, kind in enumerate(derived["kinds"]):
    branch = held.get(kind, {})
    new = ordered(derived[kind], branch)
    new["properties"] = properties_in_order(derived[kind]["properties"], branch.get("properties"), derived[kind + "Order"])
    if index < len(branches): branches[index] = new
    else: branches.append(new)
del branches[len(derived["kinds"]):]
defaults = schema["properties"]["defaults"]
defaults["properties"] = properties_in_order(derived["defaults"], defaults.get("properties"), derived["defaultsOrder"])
open(path, "w").write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
print("updated the check kinds and defaults in", path)
PY

# The option reference derives from the suite schema just written and the commands' declarations.
"$(dirname "$0")/update-option-docs.py" --sonde "${SONDE:-.build/debug/sonde}"
echo "updated docs/options.md"
