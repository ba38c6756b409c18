"""Real pages for the single-hop check of the `kg` ranker (#28): this machine's manual pages.

`load(n)` takes `n` pages of section 1 from /usr/share/man (in a seeded shuffle of the sorted list,
so the choice is the same on one machine), turns their troff into plain text (macros and font escapes
dropped, the NAME line taken out) and asks, for each, its NAME line's description ("copy files and
directories"): the page it came from is the one relevant answer. Real text, real names (commands,
options, authors, projects), no labelled multi-hop structure: the kind of store where a graph must
not make ranking worse or slower. Empty when the machine has no manual pages.
"""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

from bench.multihop_corpus import Doc

MAN = Path("/usr/share/man/man1")
_ESCAPE = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\[(][a-z]{2}|\\\*\(..|\\[&/,|^%]|\\s[-+]?\d")
_NAME = re.compile(r"^\.SH\s+\"?NAME\"?\s*$", re.MULTILINE)
MAX_CHARS = 6000


def _text(troff: str) -> tuple[str, str] | None:
    """(description, body) of one page, or None when it has no usable NAME line."""
    m = _NAME.search(troff)
    if m is None:
        return None
    rest = troff[m.end() :].lstrip().split("\n", 1)
    name_line = _ESCAPE.sub("", rest[0]).replace("\\-", "-").replace("\\", "")
    if " - " not in name_line:
        return None
    description = name_line.split(" - ", 1)[1].strip()
    if len(description.split()) < 3:
        return None
    lines = []
    for line in (rest[1] if len(rest) > 1 else "").splitlines():
        if line.startswith(('.\\"', "'\\\"")):
            continue
        if line.startswith("."):
            parts = line.split(None, 1)
            if parts[0] in (".SH", ".SS") and len(parts) > 1:
                lines.append("\n" + parts[1].strip('"') + "\n")
            elif parts[0] in (".B", ".I", ".BR", ".IR", ".BI", ".IB", ".RB", ".RI") and len(parts) > 1:
                lines.append(parts[1].replace('"', ""))
            continue
        lines.append(line)
    body = _ESCAPE.sub("", "\n".join(lines)).replace("\\-", "-").replace("\\e", "\\").replace("\\", "")
    return description, re.sub(r"\n{3,}", "\n\n", body).strip()[:MAX_CHARS]


def load(n: int = 200) -> tuple[list[Doc], list[tuple[str, str]]]:
    """(documents, [(question, answer file name)]) from `n` manual pages (fewer if the machine has fewer)."""
    if n <= 0 or not MAN.is_dir():
        return [], []
    pages = sorted(p for p in MAN.iterdir() if p.name.endswith(".gz") and p.stat().st_size < 30_000)
    docs: list[Doc] = []
    questions: list[tuple[str, str]] = []
    seen: set[str] = set()
    for page in random.Random(28).sample(pages, len(pages)):
        if len(docs) >= n:
            break
        try:
            parsed = _text(gzip.decompress(page.read_bytes()).decode("utf-8", "replace"))
        except (OSError, EOFError):
            continue
        if parsed is None or parsed[0].lower() in seen or len(parsed[1]) < 200:
            continue
        seen.add(parsed[0].lower())
        name = page.name.removesuffix(".gz")
        docs.append(Doc(f"{name}.md", f"# {name.rsplit('.', 1)[0]}\n\n{parsed[1]}"))
        questions.append((parsed[0], f"{name}.md"))
    return docs, questions
