"""Import Tree of Thoughts' published GPT-4 Game of 24 runs as ponder recordings.

Reads, from princeton-nlp/tree-of-thought-llm (MIT), ``src/tot/data/24/24.csv`` and the three
logs under ``logs/game24/`` (IO and CoT with 100 samples a hand, and ToT's propose / value /
greedy-5 run, all on rows 900-999), and writes into ``solver/published/data/``:

* ``tot-gpt4-io.jsonl.gz``, ``tot-gpt4-cot.jsonl.gz``, ``tot-gpt4-bfs.jsonl.gz``: the
  recordings (see :mod:`solver.published.tot_game24` for what is recorded and how);
* ``tot-24-rows-900-999.txt``: the 100 hands, one a line, in 24.csv's order;
* ``LICENSE-tree-of-thought-llm``: ToT's MIT notice, which travels with the data.

Give either a checkout of that repository or a bare git copy of it (and a commit)::

    python scripts/import_tot_runs.py --checkout PATH
    python scripts/import_tot_runs.py --git PATH/TO/repo.git [--commit ab40034]

Only this script reads the logs; the app and the tests read its committed output, which is
byte for byte the same on every run. Rerun it after a change to the Game of 24 readers
(step, answer): the records are keyed with what those readers read, and a test
(``tests/solver/test_published_runs.py``) says when the bundle no longer matches them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzles.files import FileError, decode_text, parse_json, read_file  # noqa: E402
from puzzles.game24 import Hand  # noqa: E402
from puzzles.game24.loaders import PuzzleFileError, load_hands  # noqa: E402
from solver.published import BUNDLED, DATA, HANDS_FILE  # noqa: E402
from solver.published.tot_game24 import (  # noqa: E402
    Imported,
    LogError,
    header,
    import_samples,
    import_search,
    recording_bytes,
)
from solver.roles import Purpose  # noqa: E402

REPO = "https://github.com/princeton-nlp/tree-of-thought-llm"
CSV = "src/tot/data/24/24.csv"
LOGS = {
    "tot-gpt4-io": "logs/game24/gpt-4_0.7_naive_standard_sample_100_start900_end1000.json",
    "tot-gpt4-cot": "logs/game24/gpt-4_0.7_naive_cot_sample_100_start900_end1000.json",
    "tot-gpt4-bfs": "logs/game24/gpt-4_0.7_propose1_value3_greedy5_start900_end1000.json",
}
MAX_LOG_BYTES = 20 * 1024 * 1024
LOGS_COMMITTED = "2023-05-23T22:34:41Z"
NOTICE = """The files tot-gpt4-io.jsonl.gz, tot-gpt4-cot.jsonl.gz and tot-gpt4-bfs.jsonl.gz in
this folder are Tree of Thoughts' published GPT-4 runs on the Game of 24, converted into
ponder's recording format by scripts/import_tot_runs.py: the model replies (and the values
rebuilt from the logged sums) of
{logs}
and tot-24-rows-900-999.txt holds the Puzzles column of rows 900-999 of
  {csv}
all from {repo}
(commit {commit}).
Only that data is bundled, none of that project's code. It is distributed under the
following licence, which applies to those files.

"""


class SourceError(Exception):
    """A source file that cannot be had, with why."""


class Source:
    """Files of ToT's repository: from a checkout, or from a bare git copy at a commit."""

    def __init__(self, checkout: Path | None, git: Path | None, commit: str) -> None:
        self.checkout, self.git, self.commit = checkout, git, commit

    def resolved_commit(self) -> str:
        """The commit read, or ``unknown`` for a checkout that is no git work tree."""
        if self.git is None:
            assert self.checkout is not None
            try:
                done = subprocess.run(
                    ["git", "-C", str(self.checkout), "rev-parse", "HEAD"],
                    capture_output=True,
                    check=False,
                    timeout=60,
                )
            except (OSError, subprocess.TimeoutExpired):
                return "unknown"
            return done.stdout.decode().strip() if done.returncode == 0 else "unknown"
        return self._git("rev-parse", self.commit).decode().strip()

    def date(self, path: str) -> str:
        """When ``path`` was first committed, as ISO-8601 UTC (the runs themselves are not
        dated); from a checkout, the date ToT's logs were committed (commit 4bc4c1b)."""
        if self.git is None:
            return LOGS_COMMITTED
        out = self._git("log", "--reverse", "--format=%cI", self.commit, "--", path)
        lines = out.decode().splitlines()
        if not lines:
            raise SourceError(f"{path} is not in the history of {self.commit}")
        when = dt.datetime.fromisoformat(lines[0]).astimezone(dt.UTC)
        return when.strftime("%Y-%m-%dT%H:%M:%SZ")

    def read(self, path: str) -> bytes:
        if self.git is None:
            assert self.checkout is not None
            try:
                return read_file(self.checkout / path, what="log", max_bytes=MAX_LOG_BYTES)
            except FileError as exc:
                raise SourceError(str(exc)) from None
        return self._git("show", f"{self.commit}:{path}")

    def _git(self, *args: str) -> bytes:
        assert self.git is not None
        try:
            done = subprocess.run(
                ["git", "-C", str(self.git), *args], capture_output=True, check=False, timeout=120
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SourceError(f"git failed: {exc}") from None
        if done.returncode != 0:
            raise SourceError(f"git {args[0]} in {self.git}: {done.stderr.decode().strip()}")
        if len(done.stdout) > MAX_LOG_BYTES:
            raise SourceError(f"{args[-1]} is larger than {MAX_LOG_BYTES} bytes")
        return done.stdout


def load_json(source: Source, path: str) -> object:
    data = source.read(path)
    try:
        return parse_json(decode_text(data, path), path)
    except FileError as exc:
        raise SourceError(str(exc)) from None


def load_rows(source: Source) -> list[Hand]:
    """The hands of 24.csv, in file order, read by ponder's own loader."""
    data = source.read(CSV)
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "24.csv"
        copy.write_bytes(data)
        try:
            return load_hands(copy)
        except PuzzleFileError as exc:
            raise SourceError(f"{CSV}: {exc.problem}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--checkout", type=Path, help="a checkout of tree-of-thought-llm")
    where.add_argument("--git", type=Path, help="a (bare) git copy of tree-of-thought-llm")
    parser.add_argument("--commit", default="HEAD", help="commit to read with --git (HEAD)")
    parser.add_argument("--out", type=Path, default=DATA, help="output folder")
    args = parser.parse_args(argv)
    source = Source(args.checkout, args.git, args.commit)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        commit = source.resolved_commit()
        rows = load_rows(source)
        imported: dict[str, Imported] = {}
        for name, path in LOGS.items():
            log = load_json(source, path)
            if name == "tot-gpt4-bfs":
                imported[name] = import_search(log, rows, path)
            else:
                purpose = Purpose.IO if name == "tot-gpt4-io" else Purpose.COT
                imported[name] = import_samples(log, rows, purpose, path)
        licence = decode_text(source.read("LICENSE"), "LICENSE")
    except (SourceError, LogError, FileError, OSError) as exc:
        print(f"import_tot_runs: {exc}", file=sys.stderr)
        return 2
    hands = imported["tot-gpt4-bfs"].hands
    for name, result in imported.items():
        if [sorted(h.numbers) for h in result.hands] != [sorted(h.numbers) for h in hands]:
            print(
                f"import_tot_runs: {name} is not on the same hands as the ToT run", file=sys.stderr
            )
            return 2
    for name, result in imported.items():
        note = (
            f"{REPO} {LOGS[name]} at commit {commit[:12]}, MIT licence (see "
            "LICENSE-tree-of-thought-llm); imported by scripts/import_tot_runs.py. Per-call "
            "token usage, finish reasons and timing are not in the log"
            + ("; values rebuilt from the logged sums" if name == "tot-gpt4-bfs" else "")
        )
        data = recording_bytes(header(note, source.date(LOGS[name])), result.records)
        target = args.out / BUNDLED[name].file
        target.write_bytes(data)
        print(f"{target}: {len(data) / 1024:.0f} KiB")
        for line in result.stats.lines():
            print(f"  {line}")
    (args.out / HANDS_FILE.name).write_text(
        "".join(" ".join(str(n) for n in h.numbers) + "\n" for h in hands), encoding="utf-8"
    )
    logs = "\n".join(f"  {p}" for p in LOGS.values())
    text = NOTICE.format(logs=logs, csv=CSV, repo=REPO, commit=commit) + licence
    (args.out / "LICENSE-tree-of-thought-llm").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
