#!/usr/bin/env python3
"""Validates sonde report.json files against Reports/schema/sonde-report.schema.json.
Usage: validate-report.py SCHEMA REPORT [REPORT...]   Exit 0 when all are valid; prints every error."""
import json
import sys

import jsonschema


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    with open(sys.argv[1]) as handle:
        schema = json.load(handle)
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in sys.argv[2:]:
        with open(path) as handle:
            document = json.load(handle)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        for error in errors[:20]:
            print(f"{path}: {'/'.join(str(p) for p in error.path)}: {error.message}", file=sys.stderr)
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
