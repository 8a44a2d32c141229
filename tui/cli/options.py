"""The options ``solve`` and ``bench`` share: the methods' own, generated from the method
catalogue (:mod:`solver.methods`), and the model's.

A method's user-facing options are declared once, on its config dataclass; the flags, their
types, choices, help text and defaults all come from there, and the values are checked by the
method's spec. Adding a method module with a ``SPEC`` adds its flags here without touching
the command line.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tui.cli.usage import UsageError

if TYPE_CHECKING:
    from solver.methods import Method, MethodSpec, OptionInfo
    from solver.settings import Settings
    from tui.kinds import PuzzleKind

__all__ = [
    "Chosen",
    "add_method_flag",
    "add_method_options",
    "add_model_options",
    "check_published",
    "chosen_methods",
    "deadline",
    "method_names",
    "settings",
]

_DEST = "method_option_"
"""Prefix of the parsed values of method options, kept apart from the command's own."""

Chosen = tuple["MethodSpec", "Method"]
"""A method asked for: its spec and the method built with the options given."""


def method_names(kind: PuzzleKind | None = None) -> str:
    """The methods people can choose from (those ``kind`` can run), in the catalogue's order."""
    from solver.methods import METHODS

    if kind is not None and kind.methods():
        return ", ".join(s.name for s in kind.methods())
    return ", ".join(METHODS)


def add_method_flag(
    p: argparse.ArgumentParser, *, default: str, several: bool, kind: PuzzleKind | None = None
) -> None:
    """``--method``: one method, or (``several``) a comma-separated list of them; the help
    lists the methods ``kind`` can run."""
    names = method_names(kind)
    if several:
        text = f"comma-separated methods from {names} ({default})"
    else:
        text = f"one of {names} ({default})"
    p.add_argument("--method", default=default, metavar="NAMES" if several else "NAME", help=text)


def add_method_options(
    p: argparse.ArgumentParser, methods: Sequence[MethodSpec] | None = None
) -> None:
    """A flag for every user-facing option of ``methods`` (every method when None; a puzzle
    kind's parser passes the methods that play it), e.g. ``--breadth N  ToT: states kept per
    step (5)``."""
    from solver.methods import all_options

    g = p.add_argument_group("method options (defaults are the papers')")
    if methods is not None:
        # An option of a method that does not play this kind is named as such when given.
        own = all_options(methods)
        hints = dict(p.get_default("flag_hints") or {})
        for name, (info, owners) in all_options().items():
            if name not in own:
                labels = " / ".join(spec.label for spec in owners)
                hints[info.flag] = (
                    f"{info.flag} is an option of {labels}, which do not play this kind of puzzle"
                )
        p.set_defaults(flag_hints=hints)
    for name, (info, owners) in all_options(methods).items():
        kwargs: dict[str, Any] = {"dest": _DEST + name, "default": None}
        if info.type is bool:
            # --x and --no-x: an option that is on by default can be switched off too.
            kwargs["action"] = argparse.BooleanOptionalAction
        elif info.option.choices:
            kwargs["choices"] = info.option.choices
        else:
            kwargs["type"] = info.type
            kwargs["metavar"] = {int: "N", float: "NUMBER"}.get(info.type, "TEXT")
        try:
            g.add_argument(info.flag, help=_option_help(name, info, owners), **kwargs)
        except argparse.ArgumentError as exc:
            # A method's option named like one of ponder's own flags (--seed, --json): the
            # catalogue must rename it; failing here makes every CLI test say so.
            raise RuntimeError(f"method option {info.flag} clashes with a ponder flag") from exc


def _option_help(name: str, info: OptionInfo, owners: Sequence[MethodSpec]) -> str:
    """``ToT / BoT: help (default)``; the default per method where they differ."""
    helps: dict[str, list[str]] = {}  # methods sharing a flag may mean different things by it
    for spec in owners:
        (own,) = [o for o in spec.options() if o.name == name]
        helps.setdefault(own.help, []).append(spec.label)
    text = "; ".join(f"{' / '.join(labels)}: {help}" for help, labels in helps.items())
    text = text.replace("%", "%%")  # argparse formats help with %
    if info.type is bool:
        return text
    defaults = [(spec.label, _default(spec, name)) for spec in owners]
    if len({value for _, value in defaults}) == 1:
        return f"{text} ({defaults[0][1]})"
    return f"{text} ({', '.join(f'{label} {value}' for label, value in defaults)})"


def _default(spec: MethodSpec, name: str) -> str:
    """The option's default, and its value under ``--paper`` where that differs."""
    (info,) = [o for o in spec.options() if o.name == name]

    def shown(value: object) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    paper = info.option.paper
    if paper is None or paper == info.default:
        return shown(info.default)
    return f"{shown(info.default)}; --paper: {shown(paper)}"


def chosen_methods(args: argparse.Namespace, names: Sequence[str]) -> list[Chosen]:
    """The methods ``names`` asks for, each built with the options given that it has.

    Unknown names and values a method refuses (out of bounds) are usage errors. An option
    given that none of these methods has is pointed out on stderr, not refused: a script may
    pass one set of options to every method.
    """
    from solver.methods import all_options, find_spec

    given = {
        name: value
        for name in all_options()
        if (value := getattr(args, _DEST + name, None)) is not None
    }
    chosen: list[Chosen] = []
    for raw in names:
        try:
            spec = find_spec(raw)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        own = {o.name for o in spec.options()}
        options = {name: value for name, value in given.items() if name in own}
        try:
            chosen.append((spec, spec.make(**options)))
        except (ValueError, TypeError) as exc:
            raise UsageError(_as_flags(str(exc), options)) from exc
    used = {spec.name for spec, _ in chosen}
    for name, (info, owners) in all_options().items():
        if name in given and not used & {spec.name for spec in owners}:
            print(
                f"ponder: note: {info.flag} does not apply to {', '.join(sorted(used))}",
                file=sys.stderr,
            )
    return chosen


def _as_flags(message: str, options: dict[str, Any]) -> str:
    """A spec's message about an option (``breadth must be ...``) as the flag people typed."""
    for name in options:
        if message.startswith(f"{name} "):
            return "--" + name.replace("_", "-") + message[len(name) :]
    return message


# ------------------------------------------------------------------ the model


def add_model_options(p: argparse.ArgumentParser) -> None:
    """The engine, server, recording and run limits."""
    from solver.published import BUNDLED
    from solver.settings import ENGINES

    g = p.add_argument_group("model")
    g.add_argument(
        "--engine",
        choices=ENGINES,
        help="offline (embedded engine, default), openai (any compatible server) or replay "
        "(the replies of a recording, see --replay)",
    )
    g.add_argument(
        "--model", metavar="NAME", help="model name on the server (implies --engine openai)"
    )
    g.add_argument(
        "--base-url",
        metavar="URL",
        help="server URL, e.g. http://localhost:11434/v1 (implies --engine openai)",
    )
    g.add_argument("--concurrency", type=int, metavar="N", help="most requests in flight at once")
    g.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="seconds to wait for the server to connect or send more of a reply (60); a call "
        "gives up after (retries + 1) times this, retries and waits included",
    )
    g.add_argument(
        "--deadline",
        type=float,
        metavar="SECONDS",
        help="stop a run still going after this many seconds (bench: each hand's run); "
        "default: no limit",
    )
    g.add_argument(
        "--guide-model",
        metavar="NAME",
        help="IoT: another model on the same server to play the inner guide (default: the "
        "same model)",
    )
    g.add_argument("--no-cache", action="store_true", help="do not reuse cached replies")
    g.add_argument(
        "--record",
        metavar="FILE",
        help="write every model call and its reply to FILE as it finishes (JSON lines; never "
        "the API key), to replay with --replay",
    )
    g.add_argument(
        "--replay",
        metavar="FILE",
        help="answer every call from a recording (implies --engine replay); a call it does not "
        "hold is an error naming the call. FILE may be a bundled run of ToT's published GPT-4 "
        f"runs on the Game of 24: {', '.join(BUNDLED)} (the last only with --method tot "
        "--paper; their hands: --file tot-24-rows-900-999)",
    )
    g.add_argument(
        "--replay-speed",
        type=float,
        metavar="X",
        help="replay timing: 0 at once (default), 1 as recorded, 2 twice as fast",
    )
    g.add_argument(
        "--seed", type=int, default=None, metavar="N", help="seed for the run (default 0)"
    )


def settings(args: argparse.Namespace) -> Settings:
    """The settings file and ``PONDER_*`` variables, with the model flags over them."""
    from solver.settings import SettingsError, load_settings, mask_url

    try:
        loaded = load_settings()
    except SettingsError as exc:
        raise UsageError(str(exc)) from exc
    changes: dict[str, Any] = {}
    if args.model or args.base_url:
        changes["engine"] = "openai"
    if args.engine:
        changes["engine"] = args.engine
    if args.model:
        changes["model"] = args.model
    if args.base_url:
        changes["base_url"] = args.base_url
    if args.concurrency is not None:
        if args.concurrency < 1:
            raise UsageError("--concurrency must be at least 1")
        changes["concurrency"] = args.concurrency
    if args.timeout is not None:
        if args.timeout <= 0:
            raise UsageError("--timeout must be positive")
        changes["timeout"] = args.timeout
    if args.no_cache:
        changes["cache"] = False
    changes.update(_recording_changes(args, loaded))
    if args.seed is not None:
        changes["seed"] = args.seed
    try:
        result = loaded.replace(**changes)
    except (SettingsError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    _check_recordings(result)
    if result.engine == "openai" and result.base_url:
        from solver.model.openai import base_url_problem

        problem = base_url_problem(result.base_url)
        if problem is not None:
            shown = mask_url(result.base_url)
            raise UsageError(f"the base URL {shown!r} is not usable: {problem}")
    return result


def _recording_changes(args: argparse.Namespace, loaded: Settings) -> dict[str, Any]:
    """The settings ``--replay``, ``--engine replay``, ``--replay-speed`` and ``--record``
    ask for, checked against the other model flags."""
    changes: dict[str, Any] = {}
    if args.replay:
        if args.engine not in (None, "replay"):
            raise UsageError(f"--replay answers from a recording: leave out --engine {args.engine}")
        if args.model or args.base_url:
            raise UsageError("--replay answers from a recording: leave out --model and --base-url")
        changes.update(engine="replay", replay_file=args.replay)
    engine = changes.get("engine") or args.engine or loaded.engine
    if args.engine == "replay" and not (args.replay or loaded.replay_file):
        raise UsageError("--engine replay needs --replay FILE, the recording to answer from")
    if args.replay_speed is not None:
        if engine != "replay" or args.model or args.base_url:
            raise UsageError("--replay-speed is for the replay engine: give --replay FILE too")
        if not 0 <= args.replay_speed < math.inf:
            raise UsageError(
                "--replay-speed must be 0 (at once) or a positive number (1: as recorded)"
            )
        changes["replay_speed"] = float(args.replay_speed)
    if args.record:
        changes["record_file"] = args.record
    return changes


def _check_recordings(chosen: Settings) -> None:
    """A usage error for a recording that cannot be replayed or a file that cannot be
    recorded to, before the run starts."""
    from solver.factory import recording_path
    from solver.model.recording import RecordingError, load_recording, record_problem

    replay_file = chosen.replay_file if chosen.engine == "replay" else None
    replaying = recording_path(replay_file) if replay_file else None
    if replaying:
        try:
            load_recording(replaying)
        except RecordingError as exc:
            raise UsageError(f"cannot replay {exc}") from exc
    if chosen.record_file:
        problem = record_problem(chosen.record_file)
        if problem is not None:
            raise UsageError(f"cannot record to {chosen.record_file}: {problem}")
        if replaying and _same_file(chosen.record_file, replaying):
            raise UsageError(
                "--record names the recording being replayed: recording would overwrite it"
            )


def check_published(
    chosen: Settings, methods: Sequence[Chosen], kind: str, puzzles: Sequence[Any]
) -> None:
    """A usage error, before the run, when the recording replayed is one of ToT's published
    runs (:mod:`solver.published`) and cannot answer this run: another kind, a method it
    does not hold, ToT without ``--paper``, hands GPT-4 never saw. Without it every call of
    such a run would end in a not-recorded error."""
    from puzzles.game24 import Hand
    from solver.published import HANDS_NAME, problem, which

    run = which(chosen.replay_file) if chosen.engine == "replay" else None
    if run is None:
        return
    said = problem(run, kind=kind)
    if said is not None:
        raise UsageError(f"{said}: replay it with ponder solve 24 or ponder bench 24")
    for spec, method in methods:
        paper = bool(method.config_dict().get("paper", False))
        said = problem(run, method=spec.name, paper=paper)
        if said is not None and spec.name in run.methods:
            raise UsageError(f"{said}; add --paper")
        if said is not None:
            raise UsageError(f"{said}; use --method {','.join(run.methods)}")
    hands = [h for h in puzzles if isinstance(h, Hand)]
    outside = [h for h in hands if problem(run, hand=h) is not None]
    if not outside:
        return
    if len(hands) == 1:
        said = problem(run, hand=outside[0])
        raise UsageError(f"{said}; its hands are in --file {HANDS_NAME} of ponder bench 24")
    first = ", ".join(str(h) for h in outside[:3])
    more = f" and {len(outside) - 3} more" if len(outside) > 3 else ""
    if len(outside) == len(hands):
        said = f"none of the {len(hands)} hands ({first}{more}) is among"
    else:
        said = f"{len(outside)} of the {len(hands)} hands ({first}{more}) are not among"
    raise UsageError(
        f"{said} the 100 of ToT's published run (rows 900-999 of its 24.csv), which GPT-4 "
        f"played: bench those with --file {HANDS_NAME}"
    )


def _same_file(a: str, b: str) -> bool:
    import os

    return os.path.realpath(os.path.expanduser(a)) == os.path.realpath(os.path.expanduser(b))


def deadline(args: argparse.Namespace, chosen: Settings) -> float | None:
    """The run deadline asked for with ``--deadline`` (else the settings' ``deadline``),
    checked."""
    if args.deadline is None:
        return chosen.deadline
    if not 0 < args.deadline < math.inf:
        raise UsageError("--deadline must be a positive number of seconds")
    return float(args.deadline)


def guide_settings(args: argparse.Namespace, base: Settings) -> Settings | None:
    """The settings of the guide model ``--guide-model`` names (None when not asked for)."""
    import dataclasses

    name = getattr(args, "guide_model", None)
    if not name:
        return None
    if base.engine != "openai":
        raise UsageError(
            "--guide-model names a model on a server: use it with --model or --engine openai"
        )
    return dataclasses.replace(base, model=name)
