"""Renames generate-manual's pages to git's scheme and drops the ones nobody should read.

swift-argument-parser's generate-manual names a subcommand's page `sonde.probe.1` (title SONDE.PROBE);
`man sonde-probe` is what users type (as `man git-commit`). Reads `sonde --experimental-dump-help` on
stdin (the same command definitions the pages came from): pages of hidden commands (`shouldDisplay`
false, e.g. the resume worker) and of the generated `help` command are removed, with their references.
Usage: sonde --experimental-dump-help | python3 dist-man-names.py MAN1_DIR
"""
import json
import os
import re
import sys

folder = sys.argv[1]
command = json.load(sys.stdin)["command"]
hidden = set()


def walk(node, path):
    name = ".".join(path + [node["commandName"]])
    if not node.get("shouldDisplay", True) or (path and node["commandName"] == "help"):
        hidden.add(name)
    for child in node.get("subcommands") or []:
        walk(child, path + [node["commandName"]])


walk(command, [])
for name in hidden:
    page = os.path.join(folder, name + ".1")
    if os.path.exists(page):
        os.remove(page)
for page in sorted(os.listdir(folder)):
    if not page.endswith(".1"):
        continue
    path = os.path.join(folder, page)
    lines = []
    in_name = False
    title = page[:-2].replace(".", " ")
    with open(path) as source:
        for line in source:
            # whatis reads the NAME section: the page's own name there (sonde-probe), the command as
            # typed (sonde probe) wherever a later bare .Nm repeats it.
            if line.startswith(".Sh "):
                in_name = line.strip() == ".Sh NAME"
            elif line.startswith(".Nm") and "." in page[:-2]:
                line = f".Nm {page[:-2].replace('.', '-')}\n" if in_name else line.replace(".Nm", f'.Nm "{title}"', 1) if line.strip() == ".Nm" else line
            # A reference to a removed page goes, with its trailing comma on the line before kept valid.
            match = re.match(r"^\.Xr (\S+) 1", line)
            if match and match.group(1) in hidden:
                continue
            if line.startswith(".Dt ") or line.startswith(".Xr "):
                head, _, rest = line.partition(" ")
                word, _, tail = rest.partition(" ")
                line = f"{head} {word.replace('.', '-')} {tail}"
            lines.append(line)
    # The last .Xr of a SEE ALSO list ends without a comma.
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith(".Xr "):
            lines[index] = lines[index].replace(" 1 ,", " 1")
            break
    os.remove(path)
    with open(os.path.join(folder, page[:-2].replace(".", "-") + ".1"), "w") as target:
        target.writelines(lines)
