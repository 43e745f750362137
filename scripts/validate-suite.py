#!/usr/bin/env python3
"""Validates sonde suite files (YAML) against Reports/schema/sonde-suite.schema.json.
Usage: validate-suite.py [--schema SCHEMA] SUITE [SUITE...]   ("-" reads one suite from standard input)
Each suite is read as YAML (PyYAML), turned into JSON and validated (JSON Schema draft 2020-12).
Exit 0 when all are valid; 1 when one is not (every error printed, with its path); 2 when a file
cannot be read or parsed; 3 when python3's yaml or jsonschema module is missing (the reason is printed).
The schema checks the shape; the loader (sonde run) checks the rest: files, URLs, thresholds."""
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as error:
    print(f"validate-suite.py: missing Python module: {error.name} (pip install jsonschema pyyaml)", file=sys.stderr)
    sys.exit(3)

MAX_BYTES = 1 << 20  # as sonde: a suite file is at most 1 MiB


def load(path):
    """The YAML document at path as JSON-compatible values (dates and other YAML types as text)."""
    handle = sys.stdin if path == "-" else open(path, encoding="utf-8")
    with handle:
        text = handle.read(MAX_BYTES + 1)
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ValueError("larger than 1 MiB")
    document = yaml.safe_load(text)
    # JSON has no dates or binary: what PyYAML reads as those is text in a suite.
    return json.loads(json.dumps(document, default=str))


def explain_kind(error):
    """For a check that matches no kind: the errors against the kind it names (or, with no known
    kind, that the kind is unknown)."""
    kind = error.instance.get("kind") if isinstance(error.instance, dict) else None
    for index, branch in enumerate(error.validator_value):
        if branch.get("properties", {}).get("kind", {}).get("const") == kind:
            return [f"{'/'.join(str(p) for p in e.relative_path) or kind + ' check'}: {e.message}"
                    for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == index]
    kinds = ", ".join(branch.get("properties", {}).get("kind", {}).get("const", "?") for branch in error.validator_value)
    return [f"kind: {kind!r} is not one of {kinds}"]


def main() -> int:
    arguments = sys.argv[1:]
    schema_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Reports", "schema", "sonde-suite.schema.json")
    if len(arguments) >= 2 and arguments[0] == "--schema":
        schema_path, arguments = arguments[1], arguments[2:]
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    with open(schema_path, encoding="utf-8") as handle:
        schema = json.load(handle)
    validator = jsonschema.Draft202012Validator(schema)
    status = 0
    for path in arguments:
        try:
            document = load(path)
        except (OSError, ValueError, yaml.YAMLError) as error:
            print(f"{path}: cannot read: {error}", file=sys.stderr)
            status = max(status, 2)
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])
        for error in errors[:50]:
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            # A oneOf over the kinds says little by itself: name the best-matching kind's errors.
            detail = error.message
            if error.validator == "oneOf" and error.context:
                detail = "; ".join(explain_kind(error)) or detail
            print(f"{path}: {where}: {detail}", file=sys.stderr)
        if errors:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
