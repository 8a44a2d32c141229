"""``python -m tui.cli``: the same as ``ponder``."""

from __future__ import annotations

from tui.cli.main import main

raise SystemExit(main())
