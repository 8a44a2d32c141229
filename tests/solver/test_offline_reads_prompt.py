"""The offline engine reads only the prompt text, as a model would.

Every run gives the same answers with the calls' ``context`` emptied; BoT's experience works
through the experience text; the judge re-reads answers itself (never the exact checker);
and a prompt that is not a Game of 24 prompt is a clear ``bad_request``, never a traceback.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any, cast

import pytest

import puzzles.game24
import puzzles.game24.rules
import solver.domains.game24 as g24
from puzzles.game24 import Hand, check_answer
from solver.domains import game24_prompts as g24p
from solver.domains.game24 import ROLES as GAME24_ROLES
from solver.domains.game24 import Game24Domain
from solver.events import ThoughtAdded
from solver.methods import METHODS, make_method, solve
from solver.model import Call, Generation, Message, ModelError, Sampling, TokenCallback
from solver.model.offline import OfflineModel, critics
from solver.model.offline.game24 import Play
from solver.roles import Purpose, Role
from tests.solver.offline_calls import Recorder, Untouchable

SMALL: dict[str, dict[str, Any]] = {
    "cot-sc": {"samples": 6, "batch": 4},
    "bot": {"iterations": 2, "trees": 3},
}
HANDS = ("4 7 8 8", "1 5 5 5", "3 3 8 8", "2 7 8 9")


class ContextBlind:
    """The offline engine behind a wall: every call's ``context`` is replaced first."""

    def __init__(self, inner: OfflineModel, context: Mapping[str, Any] | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.context = {} if context is None else context

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        return await self.inner.generate(dataclasses.replace(call, context=self.context), on_token)

    async def aclose(self) -> None:
        return None


def thoughts(events: Sequence[object]) -> list[str]:
    return [e.text for e in events if isinstance(e, ThoughtAdded)]


# ------------------------------------------------------------------ (a) context changes nothing


@pytest.mark.parametrize("name", sorted(METHODS))
async def test_every_method_gives_the_same_run_with_the_context_emptied(name: str) -> None:
    hands = [Hand.parse(h) for h in HANDS] + [Hand.parse("1 2 3 4", target=10)]
    for hand in hands:
        domain = Game24Domain(hand)
        method = make_method(name, **SMALL.get(name, {}))
        seen, seen_events = await solve(method, domain, OfflineModel(seed=3), seed=3)
        blind, blind_events = await solve(
            method, domain, ContextBlind(OfflineModel(seed=3)), seed=3
        )
        assert (seen.answer, seen.calls, seen.reason) == (blind.answer, blind.calls, blind.reason)
        assert thoughts(seen_events) == thoughts(blind_events), (name, str(hand))


# The methods the Game of 24 can take; tot-dfs (crosswords), ReAct and DELI (word problems)
# are run behind the same wall in tests/solver/test_tot_dfs.py and test_wordproblem_domain.py.
GAME24_METHODS = sorted(n for n, spec in METHODS.items() if spec.roles <= GAME24_ROLES)


@pytest.mark.parametrize("name", GAME24_METHODS)
async def test_no_call_of_any_method_touches_the_context(name: str) -> None:
    # Every call of a real run, asked again with a context that fails when read: the same
    # texts, for every purpose.
    recorder = Recorder(OfflineModel(seed=5))
    # AIoT may end at its unguided first answer here; with the guide first its guide speaks.
    starts: list[dict[str, Any]] = [{}, {"iot_start": "guide"}] if name == "aiot" else [{}]
    for start in starts:
        await solve(
            make_method(name, **SMALL.get(name, {}), **start),
            Game24Domain(Hand.parse("4 7 8 8")),
            recorder,
            seed=5,
        )
    assert recorder.calls
    engine = OfflineModel(seed=5)
    purposes = set()
    for call, texts in recorder.calls:
        again = await engine.generate(dataclasses.replace(call, context=Untouchable()))
        assert again.texts == texts, call.purpose
        purposes.add(call.purpose)
    assert (
        purposes
        == {
            "bot": {"bot_step", "bot_evaluate", "bot_feedback"},
            "tot": {"propose", "value", "answer", "judge"},
            "cot-sc": {"cot"},
            "cot": {"cot"},
            "io": {"io"},
            "aiot": {"iot_guide", "iot_answer"},
            "giot": {"iot_guide", "iot_answer"},
        }[name]
    )


# ------------------------------------------------------------------ (b) experience as text

HAND = Hand.parse("4 7 8 8")
DOMAIN = Game24Domain(HAND)


def chain_texts(lines: Sequence[str]) -> list[tuple[str, Any]]:
    """BoT's own step texts (as its prompts show them) for steps ``a op b = c``, played in
    order from the hand, with the state after each."""
    state = HAND.start()
    out = []
    for i, line in enumerate(lines, 1):
        (step,) = g24.parse_steps(line, state, limit=1)
        assert step.valid, line
        assert step.state is not None
        out.append((DOMAIN.step_text(i, state, step), step.state))
        state = step.state
    return out


def experience(lines: Sequence[str], feedback: str) -> str:
    """One experience entry, exactly as BoT writes it into its next prompts."""
    texts = [t for t, _ in chain_texts(lines)]
    return g24.parse_feedback(feedback, len(texts)).entry(1, texts)


def step_call(exp: str, done: Sequence[str], seed_sample: int) -> Call:
    """A BoT step call from the position after the steps ``done``; the context is empty."""
    scored = [(text, 0.7) for text, _ in chain_texts(done)]
    return Call(
        Purpose.BOT_STEP,
        DOMAIN.prompt(Role.STEP, experience=exp, chain=scored),
        Sampling(0.7, 1.0, 1, 500),
        {},
        sample_offset=seed_sample,
    )


async def next_steps(exp: str, done: Sequence[str], n: int = 60) -> Counter[str]:
    """The step the engine takes next, over ``n`` seeds (and as many sample indices)."""
    state = HAND.start()
    for _, after in chain_texts(done):
        state = after
    out: Counter[str] = Counter()
    for i in range(n):
        gen = await OfflineModel(seed=i).generate(step_call(exp, done, i))
        (step,) = g24.parse_steps(gen.text, state, limit=1)
        assert step.valid or step.problem, gen.text
        out[f"{step.a} {step.op} {step.b}"] += 1
    return out


def reject_feedback(steps: int, bad: int) -> str:
    lines = ["Analysis Report: the chain does not reach 24."]
    for i in range(1, steps + 1):
        verdict = "Reject" if i >= bad else "Recommend"
        lines.append(f"Step {i}: see above. Advice: rethink. Recommendation or Reject: {verdict}.")
    lines.append("Confidence score: 0.3")
    return "\n".join(lines)


ENDORSE = (
    "Analysis Report: the chain reaches 24.\n"
    "Step 1: correct. Advice: keep it. Recommendation or Reject: Recommend.\n"
    "Step 2: correct. Advice: keep it. Recommendation or Reject: Recommend.\n"
    "Step 3: correct. Advice: keep it. Recommendation or Reject: Recommend.\n"
    "Confidence score: 1.0"
)


def as_line(step: str, state: Any) -> str:
    """``8 - 4`` as a step line ``8 - 4 = 4`` from ``state`` (its result computed exactly)."""
    (parsed,) = g24.parse_steps(f"{step} = 0", state, limit=1)
    assert parsed.state is not None
    return str(parsed.state.steps[-1])


@pytest.mark.parametrize("done", [(), ("8 - 4 = 4",)])
async def test_a_step_the_experience_rejects_from_this_position_is_avoided(
    done: tuple[str, ...],
) -> None:
    plain = await next_steps("", done)
    favourite, times = plain.most_common(1)[0]
    assert times >= 8, plain  # a step the engine likes from here without experience
    state = HAND.start()
    for _, after in chain_texts(done):
        state = after
    chain = [*done, as_line(favourite, state)]
    exp = experience(chain, reject_feedback(len(chain), bad=len(chain)))
    rejected = await next_steps(exp, done)
    assert rejected[favourite] <= times // 5, (favourite, plain, rejected)


async def test_a_rejection_from_another_position_does_not_apply_here() -> None:
    # 8 / 8 rejected after 7 + 4 (numbers 8 8 11) says nothing about 8 / 8 from the hand;
    # rejected from the hand itself, it all but disappears there.
    n = 120
    plain = await next_steps("", (), n)
    unsaid = (  # no verdict on step 1: the entry's only lesson is about 8 / 8 from 8 8 11
        "Analysis Report: the chain does not reach 24.\n"
        "Step 1: fine. Advice: none.\n"
        "Step 2: a dead end. Advice: rethink. Recommendation or Reject: Reject.\n"
        "Confidence score: 0.3"
    )
    elsewhere = experience(["7 + 4 = 11", "8 / 8 = 1"], unsaid)
    assert unsaid in elsewhere  # the analysis as the model wrote it: no verdict on step 1
    # The same entry with the verdict turned round: what any experience text does alone.
    kept = experience(["7 + 4 = 11", "8 / 8 = 1"], unsaid.replace("Reject.", "Recommend."))
    here = experience(["8 / 8 = 1"], reject_feedback(1, bad=1))
    other, avoided = await next_steps(elsewhere, (), n), await next_steps(here, (), n)
    same = await next_steps(kept, (), n)
    assert plain["8 / 8"] >= 15 and other["8 / 8"] >= same["8 / 8"] * 2 // 3, (same, other)
    assert avoided["8 / 8"] <= plain["8 / 8"] // 5, (plain, avoided)


async def test_a_recommended_chain_is_reused_step_by_step() -> None:
    chain = ["8 / 8 = 1", "7 - 1 = 6", "6 * 4 = 24"]  # (7 - 8 / 8) * 4
    exp = experience(chain, ENDORSE)
    n = 60
    low = False
    for depth in range(3):
        done = chain[:depth]
        key = chain[depth].split(" = ")[0]
        plain = await next_steps("", done, n)
        taken = await next_steps(exp, done, n)
        assert taken[key] >= max(plain[key], n * 3 // 4), (depth, key, plain, taken)
        low = low or plain[key] <= n // 3
    assert low  # at least one of its steps is one the engine rarely takes unprompted


async def test_the_engine_follows_the_experience_text_not_a_structured_copy() -> None:
    # The same experience as BoT's old structured form in the context, but no text: ignored.
    favourite = (await next_steps("", ())).most_common(1)[0][0]
    structured = {
        "experience": [{"chain": [f"{favourite} = 0"], "verdicts": ["reject"]}],
        "chain": [],
        "numbers": ["4", "7", "8", "8"],
        "kind": "game24",
    }
    engine = OfflineModel(seed=1)
    for i in range(10):
        call = step_call("", (), i)
        plain = await engine.generate(call)
        with_context = await engine.generate(dataclasses.replace(call, context=structured))
        assert plain.texts == with_context.texts


# ------------------------------------------------------------------ (c) the judge

RIGHT = {
    "4 7 8 8": ["(7 - 8 / 8) * 4", "4 * (7 - 8 / 8)"],
    "3 3 8 8": ["8 / (3 - 8 / 3)"],
    "1 5 5 5": ["5 * (5 - 1 / 5)"],
    "2 7 8 9": ["2 * (7 + 9) - 8", "(7 + 9) * 2 - 8 = 24"],
}
WRONG = {
    "4 7 8 8": ["4 * 8 - 7 - 8", "8 * (7 - 4)", "(7 - 8 / 8) * 4 + 0", "(8 - 8 / 7) * 4"],
    "3 3 8 8": ["8 * 3", "8 * 3 * (8 / 8)", "8 / 3 - 8 / 3"],
    "1 5 5 5": ["5 * 5 - 1", "5 * 5 - 5 / 5 + 0", "not an expression"],
    "2 7 8 9": ["(9 - 7) * 8 + 8", "9 + 8 + 7", "2 * (7 + 9) - 8 + 2 = 24"],
}


def forbid_exact_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> Any:
        raise AssertionError("the offline engine called the exact checker or solver")

    for module in (puzzles.game24, puzzles.game24.rules, g24):
        monkeypatch.setattr(module, "check_answer", boom, raising=False)
    exact = sys.modules["puzzles.game24.solve"]
    for name in ("solve", "solutions", "is_solvable", "count_solutions"):
        monkeypatch.setattr(exact, name, boom)
        monkeypatch.setattr(puzzles.game24, name, boom)


async def judgements(answers: dict[str, list[str]], seeds: int) -> Counter[str]:
    out: Counter[str] = Counter()
    for hand, texts in answers.items():
        domain = Game24Domain(Hand.parse(hand))
        for answer in texts:
            call = Call(
                Purpose.JUDGE, domain.prompt(Role.JUDGE, answer=answer), Sampling(0.7, 1.0, 1)
            )
            for seed in range(seeds):
                gen = await OfflineModel(seed=seed).generate(call)
                out[domain.parse_value(gen.text) or "?"] += 1
    return out


async def test_the_judge_is_mostly_right_and_sometimes_wrong_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forbid_exact_checks(monkeypatch)
    right = await judgements(RIGHT, 60)
    wrong = await judgements(WRONG, 60)
    total_right, total_wrong = sum(right.values()), sum(wrong.values())
    assert set(right) | set(wrong) <= {"sure", "impossible"}
    # Misjudged as often as GPT-4's judge was in ToT's run (critics.JUDGE_*).
    assert right["impossible"] / total_right == pytest.approx(
        critics.JUDGE_FALSE_IMPOSSIBLE, abs=0.05
    ), right
    assert wrong["sure"] / total_wrong == pytest.approx(critics.JUDGE_FALSE_SURE, abs=0.05), wrong


async def test_tot_runs_with_the_exact_checker_out_of_the_engines_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The method may check answers exactly (the domain does, for the events); the engine
    # must not. The domain's own check is kept; everything the engine could reach is not.
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    check = check_answer
    forbid_exact_checks(monkeypatch)
    monkeypatch.setattr(Game24Domain, "check", lambda self, answer: check(self.hand, answer or ""))
    fin, _ = await solve(make_method("tot"), domain, ContextBlind(OfflineModel(seed=2)), seed=2)
    assert fin.calls > 10


# ------------------------------------------------------------------ (d) not a Game of 24 prompt

PURPOSES = (
    "io",
    "cot",
    "answer",
    "propose",
    "value",
    "judge",
    "bot_step",
    "bot_evaluate",
    "bot_feedback",
    "bot_condense",
    "bot_similar",
)
NOT_24 = (
    "",
    "Hello there!",
    "Solve the mini crossword. h1: a large cat (5 letters)\nh2: ...\nAnswer:",
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips "
    "in May. How many clips did Natalia sell altogether in April and May?\nAnswer:",
    "Use the numbers to obtain 24.\nInput: four seven eight eight\nAnswer:",
    "Use the numbers to obtain 24.\nInput: 1 2 3 4 5 6 7 8 9 10 11 12\nAnswer:",
    "#####\n#####\n---\n---",
)


@pytest.mark.parametrize("purpose", [*PURPOSES, "summarise"])
async def test_a_prompt_that_is_not_a_game_of_24_prompt_is_a_bad_request(purpose: str) -> None:
    engine = OfflineModel(seed=0)
    for text in NOT_24:
        # A purpose ponder never sends (summarise) is a name the engine does not read either.
        named = cast(Purpose, purpose)
        call = Call(named, (Message("user", text),), Sampling(0.7, 1.0, 2), {"kind": "game24"})
        with pytest.raises(ModelError) as info:
            await engine.generate(call)
        assert info.value.kind == "bad_request"
        message = str(info.value)
        assert "Traceback" not in message and "\n" not in message
        assert "Game of 24" in message or "no answer" in message
        # It says which prompt it could not read, as the text tells it: none of these says
        # what it asks for, whatever the call's purpose.
        assert "cannot read this as any Game of 24 prompt" in message


def real_prompts() -> list[tuple[str, str]]:
    """One real prompt per purpose (user text), from the domain's own prompt builders."""
    state = HAND.start()
    (step,) = g24.parse_steps("8 / 8 = 1", state, limit=1)
    text = DOMAIN.step_text(1, state, step)
    exp = experience(["8 / 8 = 1", "7 - 1 = 6", "4 * 6 = 24"], ENDORSE)
    user = {
        "io": g24p.io_prompt(HAND),
        "cot": g24p.cot_prompt(HAND),
        "answer": g24p.cot_prompt(HAND, ["8 / 8 = 1 (left: 4 7 1)", "7 - 1 = 6 (left: 4 6)"]),
        "propose": g24p.propose_prompt("4 7 8 8"),
        "value": g24p.value_prompt("1 4 7"),
        "judge": g24p.last_step_prompt(HAND, "(7 - 8 / 8) * 4"),
        "bot_step": g24p.bot_step_prompt(HAND, exp, [(text, 0.9)]),
        "bot_evaluate": g24p.bot_evaluate_prompt(HAND, [], text),
        "bot_feedback": g24p.bot_feedback_prompt(HAND, [text]),
    }
    return list(user.items())


async def test_damaged_prompts_get_a_reply_or_a_bad_request_never_a_traceback() -> None:
    engine = OfflineModel(seed=0)
    rng = random.Random(24)
    junk = ["x", "-", "/", "0", "1/0", "(", ")", "#####", "---", "Step 1:", "=", "9" * 60, " "]
    for purpose, text in real_prompts():
        call = Call(Purpose(purpose), (Message("user", text),), Sampling(0.7, 1.0, 1))
        assert (await engine.generate(call)).texts[0]  # the real prompt is read
        for _ in range(150):
            damaged = list(text)
            for _ in range(rng.randint(1, 6)):
                at = rng.randrange(len(damaged) + 1)
                if rng.random() < 0.5 and damaged:
                    del damaged[at : at + rng.randint(1, 40)]
                else:
                    damaged[at:at] = rng.choice(junk)
            bad = replace(call, messages=(Message("user", "".join(damaged)),))
            try:
                gen = await engine.generate(bad)
            except ModelError as exc:
                assert exc.kind == "bad_request"
            else:
                assert isinstance(gen.texts[0], str)


async def test_calls_in_flight_together_keep_their_own_targets() -> None:
    # The engine waits between reading a prompt and writing its replies; a call for another
    # target read in that wait must not change what this call writes.
    import asyncio

    def call(target: int) -> Call:
        domain = Game24Domain(Hand.parse("1 2 3 4", target=target))
        return Call(Purpose.COT, domain.prompt(Role.COT), Sampling(0.7, 1.0, 5, 400))

    alone = {t: (await OfflineModel(seed=1).generate(call(t))).texts for t in (10, 24)}
    model = OfflineModel(seed=1, delay=0.05)
    ten, twenty_four = await asyncio.gather(model.generate(call(10)), model.generate(call(24)))
    assert (ten.texts, twenty_four.texts) == (alone[10], alone[24])
    assert any("= 10" in text for text in ten.texts)


async def test_tots_last_call_writes_the_expression_its_steps_build_and_what_it_makes() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    sampling = Sampling(0.7, 1.0, 1, 300)
    for lines, value in (
        (["8 / 8 = 1 (left: 1 4 7)", "7 - 1 = 6 (left: 4 6)", "4 * 6 = 24 (left: 24)"], "24"),
        (["8 + 8 = 16 (left: 4 7 16)", "16 + 7 = 23 (left: 4 23)", "23 + 4 = 27 (left: 27)"], "27"),
    ):
        call = Call(Purpose.ANSWER, domain.prompt(Role.COT, steps=lines), sampling, {})
        text = (await OfflineModel(seed=1).generate(call)).text
        expression, _, made = text.removeprefix("Answer: ").partition(" = ")
        assert made == value, text
        assert check_answer(Hand.parse("4 7 8 8"), expression).ok == (value == "24"), text


def test_a_result_above_a_hundred_seldom_comes_to_mind() -> None:
    engine = Play(seed=0)
    rng = random.Random(0)

    def weight(c: int) -> float:
        return engine.step_weight((Fraction(c - 1), "+", Fraction(1), Fraction(c), ()), rng)

    assert weight(101) == pytest.approx(weight(99) * 0.2)
    assert weight(100) == pytest.approx(weight(99))


async def test_a_similarity_prompt_needs_both_steps() -> None:
    for text in ("Step A: 4 + 8 = 12\nSimilarity:", "Step B: 4 + 8 = 12\nSimilarity:"):
        call = Call(Purpose.BOT_SIMILAR, (Message("user", text),), Sampling(0.7, 1.0, 1), {})
        with pytest.raises(ModelError) as info:
            await OfflineModel(seed=0).generate(call)
        assert info.value.kind == "bad_request"


async def test_a_state_that_cannot_make_24_gets_the_words_gpt4_gave_such_states() -> None:
    # Measured over every state of its size in ToT's run, not by how the numbers look: GPT-4
    # called 82.8 % of three numbers that cannot make 24 "likely", however far off they were,
    # and 74.6 % of two such numbers "impossible" (critics.VALUE_UNREACHABLE).
    engine = OfflineModel(seed=0)

    async def labels(numbers: str) -> Counter[str]:
        prompt = (Message("user", g24p.value_prompt(numbers)),)
        call = Call(Purpose.VALUE, prompt, Sampling(0.7, 1.0, 1), {})
        out: Counter[str] = Counter()
        for seed in range(400):
            engine.seed = seed
            out[(await engine.generate(call)).text.splitlines()[-1]] += 1
        return out

    for numbers in ("1 1 13", "61 70 90"):
        got = await labels(numbers)
        want = critics.VALUE_UNREACHABLE[3][1]
        assert got["likely"] / 400 == pytest.approx(want, abs=0.06), (numbers, got)
    two = await labels("1 2")
    assert two["impossible"] / 400 == pytest.approx(critics.VALUE_UNREACHABLE[2][2], abs=0.06)


def test_a_fraction_makes_a_state_look_worse() -> None:
    engine = Play(seed=0)
    whole = (Fraction(5), Fraction(5), Fraction(13))  # no way to 24 from either
    halves = (Fraction(5, 2), Fraction(5), Fraction(13))
    for seed in range(5):
        assert engine.promise(whole, random.Random(seed)) == pytest.approx(0.45)
        assert engine.promise(halves, random.Random(seed)) == pytest.approx(0.25)
