#!/usr/bin/env python3
"""Report relative Markdown links whose target file does not exist.

Scans every *.md file git tracks, or would track once added (`git ls-files`), for
inline links and images `[text](target)` and reference definitions `[label]: target`,
skips links with a scheme (http:, https:, mailto:, ...) and pure anchors (`#section`),
strips any `#anchor` or `?query`, and checks that the target exists relative to the
linking file (or to the repository root for targets starting with `/`). Anchors are
not checked. Code spans and fenced code blocks are ignored.

Usage: python3 scripts/check_links.py   (exit status 1 if a link is broken)
Standard library only.
"""

import os
import re
import subprocess
import sys
from urllib.parse import unquote

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# [text](target) or ![alt](target); the target may be <...> and may carry a title.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+[\"'(][^)]*)?\)")
# [label]: target "title"   (a reference definition: alone on its line, the title optional)
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)\s*(?:\"[^\"]*\"|'[^']*'|\([^)]*\))?\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?\1")


def tracked_markdown():
    # tracked files, and new ones not yet added (but not ignored ones)
    cmd = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "*.md"]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True).stdout
    return sorted({p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(ROOT, p))})


def links(text):
    """(line number, target) of every link outside code."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * 3
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        line = CODE_SPAN.sub("", line)
        for m in INLINE.finditer(line):
            yield number, m.group(1)
        m = REFDEF.match(line)
        if m:
            yield number, m.group(1)


def broken(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    here = os.path.dirname(os.path.join(ROOT, path))
    for number, target in links(text):
        target = target.strip("<>")
        if not target or target.startswith("#") or SCHEME.match(target):
            continue
        file = unquote(re.split(r"[#?]", target, maxsplit=1)[0])
        if not file:
            continue
        full = os.path.join(ROOT, file.lstrip("/")) if file.startswith("/") else os.path.join(here, file)
        if not os.path.exists(full):
            yield number, target


def main():
    files = tracked_markdown()
    count = 0
    for path in files:
        for number, target in broken(path):
            print(f"{path}:{number}: broken link: {target}")
            count += 1
    print(f"{count} broken link{'s' if count != 1 else ''} in {len(files)} Markdown files")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
