#!/usr/bin/python3
"""tests/docs/run_doc.py BUILD_DIR [DOC]: runs a page of docs/ (default docs/tutorial.md) as written (issue 15).

Every ```sh block runs, in order, in one fresh directory that looks like the repository root
(build/ is BUILD_DIR; configs/, scripts/ and python/ are the repository's), each under
`bash -euo pipefail`. A ```sh block followed directly by a ```text block must print exactly
that text (trailing spaces aside). ```bash blocks (set-up: the build) are not run. Prints
each block's verdict; exits 1 at the first that fails."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks(text):
    """(language, body, followed by) for each fenced block; `followed by` is the next block's
    (language, body) when only blank lines separate them."""
    found = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(text)]
    out = []
    for i, (lang, body, _, end) in enumerate(found):
        nxt = None
        if i + 1 < len(found) and text[end:found[i + 1][2]].strip() == "":
            nxt = found[i + 1][:2]
        out.append((lang, body, nxt))
    return out


def normalise(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def main():
    build = os.path.abspath(sys.argv[1])
    doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "tutorial.md")
    with open(doc) as f:
        text = f.read()
    work = tempfile.mkdtemp(prefix="arbsim_tutorial_")
    try:
        os.symlink(build, os.path.join(work, "build"))
        for d in ("configs", "scripts", "python"):
            os.symlink(os.path.join(ROOT, d), os.path.join(work, d))
        ran = 0
        for lang, body, nxt in blocks(text):
            if lang != "sh":
                continue
            ran += 1
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=work, capture_output=True, text=True)
            first = body.strip().split("\n")[0]
            if done.returncode != 0:
                print(f"FAIL block {ran} ({first}): exit {done.returncode}\n{done.stdout}{done.stderr}")
                return 1
            if nxt and nxt[0] == "text" and normalise(done.stdout) != normalise(nxt[1]):
                print(f"FAIL block {ran} ({first}): printed\n{done.stdout}\nwhere the tutorial shows\n{nxt[1]}")
                return 1
            print(f"ok   block {ran}: {first}" + (" (output as shown)" if nxt and nxt[0] == "text" else ""))
        if ran == 0:
            print(f"FAIL: no ```sh block in {doc}")
            return 1
        print(f"{doc}: {ran} blocks ran as written")
        return 0
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
