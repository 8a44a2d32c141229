"""Performance scripts (not tests). Each runs from the repository root as
``python -m bench.NAME`` and takes ``--help``:

* ``app_latency``: key latency of the app while a solver streams, memory of a big run, time to
  the first frame and of ``ponder --help``.
* ``big_files``: time and peak memory to read big crossword and hand files (and ``--check``).
* ``claims``: how often an IO/CoT run shows a failed arithmetic check beside a solved answer.
* ``concurrency``: how well ToT and BoT overlap their model calls against the test server.
* ``crossword``: the crossword generator's time per grid and the clue index's top-1/top-10.

``concurrency`` and ``crossword`` borrow from ``tests`` (the test server, clue fixtures), which
is why they run from the repository root.
"""
