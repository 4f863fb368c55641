#!/usr/bin/env python3
"""The docs hold together: README.md stays a front door (at most 200 lines), every relative link in
README.md and docs/*.md names a file that exists (and, into a Markdown file, a heading it has), and
every alert's `runbook` annotation names a section of the docs.

  docs_links_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

import yaml

README_MAX_LINES = 200
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")  # [text](target "title")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")  # [label]: target
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def prose_lines(text):
    """The lines outside fenced code blocks, with inline code spans blanked out."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`+[^`]*`+", "``", line)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its text
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        for _, line in prose_lines(path.read_text()):
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                base = slug(heading.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(HTML_ANCHOR.findall(line))
        cache[path] = found
    return cache[path]


def broken(path, target, root):
    """What is wrong with the link `target` in `path`, or None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
        return None
    file_part, _, anchor = target.partition("#")
    destination = (path.parent / file_part).resolve() if file_part else path
    if not destination.exists():
        return f"{target}: no such file"
    if root not in destination.parents and destination != root:
        return f"{target}: outside the repository"
    if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
        return f"{target}: {destination.relative_to(root)} has no heading #{anchor}"
    return None


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    failures = []
    readme = root / "README.md"
    lines = len(readme.read_text().splitlines())
    if lines > README_MAX_LINES:
        failures.append(f"README.md: {lines} lines, at most {README_MAX_LINES}: move the detail into a guide under docs/")
    documents = [readme, *sorted((root / "docs").glob("*.md"))]
    checked = 0
    for path in documents:
        for number, line in prose_lines(path.read_text()):
            targets = LINK.findall(line) + REFERENCE.findall(line)
            for target in targets:
                checked += 1
                problem = broken(path, target, root)
                if problem:
                    failures.append(f"{path.relative_to(root)}:{number}: {problem}")
    rules = root / "manifests" / "monitoring" / "fedhpa-alerts.rules.yml"
    runbooks = 0
    for group in yaml.safe_load(rules.read_text())["groups"]:
        for rule in group["rules"]:
            if "alert" not in rule:
                continue
            runbook = rule.get("annotations", {}).get("runbook")
            runbooks += 1
            if not runbook:
                failures.append(f"{rules.relative_to(root)}: {rule['alert']} has no runbook annotation")
            elif problem := broken(root / "README.md", runbook, root):
                failures.append(f"{rules.relative_to(root)}: {rule['alert']}'s runbook {problem}")
    print(f"README.md: {lines} lines; {checked} links in {len(documents)} documents; {runbooks} alert runbooks")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
