#!/usr/bin/env python3
"""Reads a Markdown summary as GitHub renders a step summary: CommonMark with the table extension
(markdown-it-py, MarkdownIt("commonmark").enable("table")). Usage: check_markdown.py FILE
Prints one JSON object: the headings, each table (its header cells and body rows, as text), the
list items, whether any raw HTML got through (html_block / html_inline tokens), and the HTML."""
import json
import sys

from markdown_it import MarkdownIt


def inline_text(token):
    """The text a renderer shows for an inline token (escapes resolved, code spans' content)."""
    return "".join(child.content for child in (token.children or []) if child.type in ("text", "code_inline", "softbreak"))


def main() -> int:
    source = open(sys.argv[1], encoding="utf-8").read()
    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(source)
    facts = {"headings": [], "tables": [], "items": [], "rawHTML": False, "paragraphs": []}
    table = None
    row = None
    in_heading = in_item = in_paragraph = False
    for index, token in enumerate(tokens):
        if token.type in ("html_block", "html_inline") or any(c.type == "html_inline" for c in (token.children or [])):
            facts["rawHTML"] = True
        if token.type == "heading_open":
            in_heading = True
        elif token.type == "heading_close":
            in_heading = False
        elif token.type == "table_open":
            table = {"header": [], "rows": []}
        elif token.type == "table_close":
            facts["tables"].append(table)
            table = None
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            if table is not None:
                if not table["header"] and not table["rows"] and tokens[index - 1].type == "th_close":
                    table["header"] = row
                else:
                    table["rows"].append(row)
            row = None
        elif token.type == "list_item_open":
            in_item = True
        elif token.type == "list_item_close":
            in_item = False
        elif token.type == "paragraph_open":
            in_paragraph = True
        elif token.type == "paragraph_close":
            in_paragraph = False
        elif token.type == "inline":
            text = inline_text(token)
            if row is not None:
                row.append(text)
            elif in_heading:
                facts["headings"].append(text)
            elif in_item:
                facts["items"].append(text)
            elif in_paragraph:
                facts["paragraphs"].append(text)
    facts["html"] = md.render(source)
    print(json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
