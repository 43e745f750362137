#!/usr/bin/env python3
"""Writes docs/options.md, the option reference of every command, from the two sources that
already know it: the command line as swift-argument-parser declares it (`sonde CMD
--experimental-dump-help`: names, value names, help) and the suite keys as the SpecKey table
declares them (Reports/schema/sonde-suite.schema.json, written by scripts/update-report-schema.sh:
key, type, bounds). Nothing in it is written by hand: edit the help text or the SpecKey, then run

    scripts/update-option-docs.py [--sonde .build/debug/sonde]          # rewrite docs/options.md
    scripts/update-option-docs.py --check [--sonde PATH]                # exit 1 when it differs

OptionDocsCLITests runs the check in `make test`.
"""
import argparse
import difflib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "options.md")
SCHEMA = os.path.join(ROOT, "Reports", "schema", "sonde-suite.schema.json")
# Repeatable options are written in the plural in suites (SpecProblem.optionName's inverse).
PLURAL_KEYS = {"header": "headers", "threshold": "thresholds", "subprotocol": "subprotocols"}


def dump_help(sonde):
    output = subprocess.run([sonde, "--experimental-dump-help"], check=True, capture_output=True, text=True,
                            env={**os.environ, "NO_COLOR": "1"}).stdout
    return json.loads(output)["command"]


def suite_keys():
    """Per kind (probe, soak, …): key -> its schema entry."""
    with open(SCHEMA) as handle:
        schema = json.load(handle)
    kinds = {}
    for variant in schema["properties"]["checks"]["items"]["oneOf"]:
        properties = variant["properties"]
        kind = properties["kind"]["const"]
        kinds[kind] = {key: value for key, value in properties.items() if key not in ("name", "kind")}
    return kinds


def bounds(entry):
    """`1–1024` from an integer's or a number's minimum and maximum, '' otherwise."""
    for option in entry.get("anyOf", [entry]):
        if option.get("type") in ("integer", "number") and ("minimum" in option or "maximum" in option):
            low, high = option.get("minimum"), option.get("maximum")
            if low is not None and high is not None:
                return f"{low}–{high}"
            return f"≥ {low}" if low is not None else f"≤ {high}"
    return ""


def cell(text):
    return (text or "").replace("|", "\\|").replace("\n", " ").strip()


def spelling(argument):
    names = argument.get("names") or []
    parts = []
    for name in sorted(names, key=lambda n: n["kind"] != "short"):
        prefix = "-" if name["kind"] == "short" else "--"
        parts.append(prefix + name["name"])
    if not parts:  # a positional argument
        return argument.get("valueName", "").upper()
    value = "" if argument["kind"] == "flag" else " " + argument.get("valueName", "value").upper()
    return ", ".join(parts) + value


def long_name(argument):
    for name in argument.get("names") or []:
        if name["kind"] == "long":
            return name["name"]
    return None


def render(root, kinds):
    lines = [
        "# Options",
        "",
        "Part of the [sonde](../README.md) reference. Every command's options, and for the commands whose",
        "checks a suite can declare, the suite key each option is written as (`sonde run`, `sonde serve`,",
        "`--print-suite`) with its bounds. **Generated** by `scripts/update-option-docs.py` from the",
        "command line's own declarations and the suite schema (the SpecKey table): do not edit by hand;",
        "`make test` fails when it is out of date.",
        "",
    ]
    for command in root.get("subcommands", []):
        if not command.get("shouldDisplay", True) or command["commandName"] == "help":
            continue
        name = command["commandName"]
        keys = kinds.get(name, {})
        lines += [f"## sonde {name}", "", cell(command.get("abstract")), ""]
        if keys:
            lines += ["| option | suite key | bounds | meaning |", "| --- | --- | --- | --- |"]
        else:
            lines += ["| option | meaning |", "| --- | --- |"]
        for argument in command.get("arguments", []):
            if argument.get("shouldDisplay") is False:
                continue
            names = [n["name"] for n in argument.get("names") or []]
            if "help" in names or "version" in names and name != "version":
                continue
            option = cell(f"`{spelling(argument)}`")
            meaning = cell(argument.get("abstract"))
            if argument.get("defaultValue") not in (None, ""):
                meaning += f" (default: `{cell(argument['defaultValue'])}`)"
            if keys:
                long = long_name(argument)
                key = None
                if argument["kind"] == "positional":
                    key = "urls" if "urls" in keys else ("url" if "url" in keys else None)
                elif long is not None:
                    key = PLURAL_KEYS.get(long, long)
                    if key not in keys:
                        key = None
                entry = keys.get(key, {}) if key else {}
                lines.append(f"| {option} | {'`' + key + '`' if key else '—'} | {bounds(entry)} | {meaning} |")
            else:
                lines.append(f"| {option} | {meaning} |")
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sonde", default=os.path.join(ROOT, ".build", "debug", "sonde"))
    parser.add_argument("--check", action="store_true", help="compare with docs/options.md instead of writing it")
    arguments = parser.parse_args()
    text = render(dump_help(arguments.sonde), suite_keys())
    if arguments.check:
        try:
            with open(DOC) as handle:
                current = handle.read()
        except FileNotFoundError:
            current = ""
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True), "docs/options.md", "generated"))
            print("docs/options.md is out of date: run scripts/update-option-docs.py", file=sys.stderr)
            return 1
        return 0
    with open(DOC, "w") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
