"""Take the README's screenshot: the app at 120x40 on the offline engine, a Game of 24 dealt by
a fixed seed, one step of the player's, and BoT solving beside it. Textual draws the SVG.

    python scripts/screenshot.py docs/assets/screenshot.svg
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


async def shoot(path: Path, seed: int, keys: list[str], wait: float) -> None:
    from solver.settings import Settings
    from tui.app import make_app

    with tempfile.TemporaryDirectory() as data:
        os.environ["PONDER_DATA_DIR"] = data
        app = make_app(Settings(), store_path=Path(data) / "results.db", seed=seed)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.5)
            await pilot.press("enter")
            await pilot.pause(0.5)
            await pilot.press(*keys)
            await pilot.pause(0.3)
            await pilot.press("s")
            await pilot.pause(wait)
            await pilot.press("s")  # stop the solver, so the picture holds still
            await pilot.pause(0.3)
            svg = app.export_screenshot(title="ponder")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(svg, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keys", default="2 * 3", help="keys the player presses first")
    parser.add_argument("--wait", type=float, default=3.0, help="seconds the solver runs")
    args = parser.parse_args(argv)
    keys = ["asterisk" if k == "*" else k for k in args.keys.split()]
    asyncio.run(shoot(args.path, args.seed, keys, args.wait))
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
