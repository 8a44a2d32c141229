"""The seams a method is written against: the catalogue of MethodSpecs and the domain roles."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import pytest

import solver.methods as methods_pkg
from puzzles.game24 import Hand
from solver.domains.base import Domain, RolesMissing, require_roles
from solver.domains.game24 import Game24Domain
from solver.events import ErrorRaised, RunFinished
from solver.methods import METHODS, all_options, find_spec, make_method, solve
from solver.model import ScriptedModel
from solver.roles import Role


class WithoutRoles:
    """The Game of 24 with some roles taken away (a domain that has no prompt for them)."""

    def __init__(self, inner: Game24Domain, *missing: str) -> None:
        self._inner = inner
        self.roles = inner.roles - set(missing)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_every_method_module_is_in_the_catalogue_in_display_order() -> None:
    declared = []
    for info in pkgutil.iter_modules(methods_pkg.__path__):
        module = importlib.import_module(f"solver.methods.{info.name}")
        declared += [s.name for s in getattr(module, "SPECS", ())]
        if hasattr(module, "SPEC") and not hasattr(module, "SPECS"):
            declared.append(module.SPEC.name)
    assert sorted(declared) == sorted(METHODS)
    orders = [s.order for s in METHODS.values()]
    assert orders == sorted(orders)
    for spec in METHODS.values():
        assert spec.description and spec.label and spec.roles
        assert make_method(spec.name).name == spec.name


def test_options_come_from_the_config_fields_with_their_bounds() -> None:
    tot = find_spec("ToT")
    names = [o.name for o in tot.options()]
    assert names == ["breadth", "value_samples", "temperature", "paper", "stop_early"]
    breadth = tot.options()[0]
    assert (breadth.type, breadth.default, breadth.flag) == (int, 5, "--breadth")
    assert breadth.check("7") == 7
    for bad, message in (
        (0, "breadth must be between 1 and 10000"),
        ("x", "breadth must be a whole number"),
        (2.5, "breadth must be a whole number"),
    ):
        with pytest.raises(ValueError, match=message):
            breadth.check(bad)
    temperature = tot.options()[2]
    with pytest.raises(ValueError, match="finite"):
        temperature.check(float("nan"))
    owners = {name: [s.name for s in specs] for name, (_, specs) in all_options().items()}
    assert owners["temperature"] == [
        *("aiot", "giot", "tot", "tot-dfs", "react-cotsc", "cotsc-react", "cot-sc", "cot", "io")
    ]
    assert owners["stop_early"] == ["bot", "tot", "tot-dfs"]
    assert find_spec("cot_sc") is find_spec("COTSC") is METHODS["cot-sc"]


def test_the_game_of_24_is_a_domain_with_every_role_the_methods_need() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    assert isinstance(domain, Domain)
    for spec in METHODS.values():
        if spec.roles & {"act", "formalize", "revise"}:  # the tool methods (ReAct, DELI)
            continue
        if "clue_value" in spec.roles:  # ToT DFS plays crosswords only (test_tot_dfs.py)
            continue
        require_roles(spec.name, spec.roles, domain)
    with pytest.raises(RolesMissing) as info:
        domain.prompt(Role.ACT)
    assert "act" in str(info.value)


def test_a_missing_role_is_a_clear_error_before_any_call() -> None:
    domain = WithoutRoles(Game24Domain(Hand.parse("4 7 8 8")), "value", "judge")
    with pytest.raises(RolesMissing) as info:
        require_roles("tot", METHODS["tot"].roles, domain)
    assert str(info.value) == (
        "tot cannot solve game24 puzzles yet: the game24 domain has no judge, value prompts"
    )
    model = ScriptedModel(["3 + 5 = 8 (left: 7 8 8)"])
    fin, events = run(make_method("tot"), domain, model)
    errors = [e for e in events if isinstance(e, ErrorRaised)]
    assert [(e.kind, e.fatal) for e in errors] == [("unsupported", True)]
    assert errors[0].message == (
        "tot cannot solve game24 puzzles yet: the game24 domain has no judge, value prompts"
    )
    assert isinstance(fin, RunFinished) and fin.reason == "error" and not fin.solved
    assert model.calls == []  # refused before the first call


def run(method: Any, domain: Any, model: Any) -> tuple[RunFinished, list[Any]]:
    import asyncio

    return asyncio.run(solve(method, domain, model))


class Trickling:
    """A model that streams its reply one character every 5 ms."""

    name = "trickle"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls: list[Any] = []

    async def generate(self, call: Any, on_token: Any = None) -> Any:
        from solver.model import Generation, Usage

        self.calls.append(call)
        for ch in self.reply:
            await asyncio_sleep(0.005)
            if on_token is not None:
                on_token(0, ch)
        return Generation((self.reply,), Usage(1, 1), 0.0)

    async def aclose(self) -> None:
        return None


async def asyncio_sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def test_a_streaming_run_reports_the_text_so_far_at_most_twenty_times_a_second() -> None:
    import asyncio
    import time

    from solver.events import TokensStreamed
    from solver.methods import run_method

    reply = "4 * 6 = 24 (left: 24)\nAnswer: (8 - 7 + 8 / 8 * 0 + 3) * 6 = 24" + " " * 40
    domain = Game24Domain(Hand.parse("4 7 8 8"))

    model = Trickling(reply)

    async def collect(stream: bool) -> tuple[list[TokensStreamed], float]:
        start = time.perf_counter()
        out = [
            e
            async for e in run_method(make_method("io"), domain, model, stream=stream)
            if isinstance(e, TokensStreamed)
        ]
        return out, time.perf_counter() - start

    quiet, _ = asyncio.run(collect(False))
    assert quiet == []

    async def unasked() -> list[Any]:
        return [e async for e in run_method(make_method("io"), domain, Trickling(reply))]

    assert not any(
        isinstance(e, TokensStreamed) for e in asyncio.run(unasked())
    )  # off unless asked
    streamed, elapsed = asyncio.run(collect(True))
    # Streaming or not, the model is sent the method's own call.
    assert [c.purpose for c in model.calls] == ["io", "io"]
    assert model.calls[0].prompt == model.calls[1].prompt and "4 7 8 8" in model.calls[1].prompt
    assert len(streamed) >= 3
    assert len(streamed) <= elapsed * 20 + 2  # about 20 a second at most
    assert all(reply.startswith(e.text) for e in streamed)
    lengths = [len(e.text) for e in streamed]
    assert lengths == sorted(lengths) and streamed[0].purpose == "io"


class Bursting:
    """Streams three long chunks, each after a pause longer than the report interval."""

    name = "burst"
    chunks = ("a" * 1500, "b" * 1500, "c" * 10)

    async def generate(self, call: Any, on_token: Any = None) -> Any:
        from solver.model import Generation, Usage

        for chunk in self.chunks:
            await asyncio_sleep(0.06)
            if on_token is not None:
                on_token(0, chunk)
        return Generation(("".join(self.chunks),), Usage(1, 1), 0.0)

    async def aclose(self) -> None:
        return None


def test_each_stream_report_names_its_call_and_sample_and_holds_the_last_2000_characters() -> None:
    import asyncio

    from solver.events import ModelCalled, TokensStreamed
    from solver.methods import run_method

    async def collect() -> list[Any]:
        domain = Game24Domain(Hand.parse("4 7 8 8"))
        return [e async for e in run_method(make_method("io"), domain, Bursting(), stream=True)]

    events = asyncio.run(collect())
    (called,) = [e for e in events if isinstance(e, ModelCalled)]
    streamed = [e for e in events if isinstance(e, TokensStreamed)]
    so_far = ["a" * 1500, "a" * 500 + "b" * 1500, "a" * 490 + "b" * 1500 + "c" * 10]
    assert [(e.call_id, e.purpose, e.index, e.text) for e in streamed] == [
        (called.call_id, "io", 0, text) for text in so_far
    ]


def test_each_kinds_roles_are_its_domains_and_its_methods_those_it_can_run() -> None:
    """The app and the CLI read a kind's roles without importing its domain."""
    from solver.methods import METHODS
    from tui.kinds import KINDS

    for kind in KINDS.values():
        roles = kind.domain_class().roles
        assert kind.spec.roles == roles
        assert [s.name for s in kind.methods()] == [
            s.name for s in METHODS.values() if s.roles <= roles
        ]
    assert "deli" not in [s.name for s in KINDS["game24"].methods()]
