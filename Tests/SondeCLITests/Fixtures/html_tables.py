#!/usr/bin/env python3
"""The tables of an HTML page as a browser's DOM has them (Python's html.parser, entities
decoded): usage html_tables.py FILE. Prints one JSON object mapping each table's class to its
rows (a list of cell texts, th and td alike; the header row included)."""
import json
import sys
from html.parser import HTMLParser


class Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.stack, self.row, self.cell = {}, [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.stack.append(dict(attrs).get("class") or f"table{len(self.tables)}")
            self.tables.setdefault(self.stack[-1], [])
        elif tag == "tr" and self.stack:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "br" and self.cell is not None:
            self.cell += "\n"

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None and self.stack:
            self.tables[self.stack[-1]].append(self.row)
            self.row = None
        elif tag == "table" and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


parser = Tables()
parser.feed(open(sys.argv[1], encoding="utf-8").read())
print(json.dumps(parser.tables))
