"""The offline engine: a seeded heuristic player that answers like an LLM, with no network.

It answers each call from the call's public ``context`` (the numbers on the table, the steps
so far, the experience it was shown) in exactly the text format the prompt asks for, so the
same parsers run as for a real model. It is a player, not an oracle: it never sees stored
answers and never runs an exhaustive solver. It looks ahead only a few random tries deep,
prefers "nice" numbers (factors of 24, whole numbers), rarely thinks of fractions, sometimes
slips in arithmetic, and can misjudge a state. It reads BoT's experience: steps that an
analysis rejected are avoided from the same position and steps of chains it recommended are
preferred, so later iterations do better where the heuristic went wrong.

Replies are a pure function of (seed, prompt, sample index, sampling), so a run is
reproducible whatever order concurrent calls finish in.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import math
import random
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from puzzles.arith import format_number, format_operand
from solver.model.base import Call, Generation, ModelError, TokenCallback, Usage, rough_tokens
from solver.model.offline import iot24

__all__ = ["OfflineModel"]

_Nums = tuple[Fraction, ...]


def _nice(target: Fraction) -> frozenset[Fraction]:
    """The target and its whole divisors: numbers a person is glad to make on the way."""
    t = abs(int(target))
    return frozenset({target} | {Fraction(d) for d in range(1, min(t, 1000) + 1) if t % d == 0})


def _fmt(numbers: Sequence[Fraction]) -> str:
    return " ".join(format_number(n) for n in numbers)


@functools.lru_cache(maxsize=65536)
def _moves(nums: _Nums) -> tuple[tuple[Fraction, str, Fraction, Fraction, _Nums], ...]:
    """Every way to combine two numbers, written larger first (as people do).

    Cached: a run asks about the same few hundred number sets again and again, and Fraction
    arithmetic is the engine's main cost (it runs on the app's event loop)."""
    out = []
    n = len(nums)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = nums[i], nums[j]
            hi, lo = (a, b) if a >= b else (b, a)
            rest = tuple(nums[k] for k in range(n) if k not in (i, j))
            out.append((hi, "+", lo, hi + lo, rest))
            out.append((hi, "*", lo, hi * lo, rest))
            out.append((hi, "-", lo, hi - lo, rest))
            if lo != 0:
                out.append((hi, "/", lo, hi / lo, rest))
            if hi != 0 and hi != lo:
                out.append((lo, "/", hi, lo / hi, rest))
    return tuple(out)


class OfflineModel:
    """The embedded heuristic engine for the Game of 24."""

    def __init__(
        self, seed: int = 0, *, lookahead: int = 10, slip: float = 0.02, delay: float = 0.0
    ) -> None:
        self.name = "offline"
        self.seed = seed
        self.lookahead = lookahead
        self.slip = slip
        self.delay = delay
        self.target = Fraction(24)
        self.nice = _nice(self.target)

    # ------------------------------------------------------------------ the seam

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        start = time.perf_counter()
        # Yield to the event loop even with no delay, so an app stays responsive while the
        # engine thinks (its replies are pure computation).
        await asyncio.sleep(self.delay)
        ctx = call.context
        if call.purpose in (iot24.GUIDE, iot24.RESPOND):
            ctx = {"kind": "game24"}  # IoT roles read the prompt alone
        if ctx.get("kind") != "game24":
            raise ModelError("bad_request", "the offline engine only plays the Game of 24 so far")
        digest = hashlib.blake2b(call.prompt.encode(), digest_size=8).hexdigest()
        texts = []
        for i in range(call.sampling.n):
            rng = random.Random(
                f"{self.seed}|{digest}|{call.sample_offset + i}|{call.sampling.temperature}"
                f"|{call.sampling.top_p}"
            )
            if call.purpose in (iot24.GUIDE, iot24.RESPOND):
                text = iot24.iot_reply(
                    self, call.purpose, call.messages, rng, call.sampling.temperature
                )
            else:
                text = self._answer(
                    call.purpose, ctx, rng, call.sampling.temperature, call.sampling.top_p
                )
            texts.append(text)
            if on_token is not None:
                for piece in text.split(" "):
                    on_token(i, piece + " ")
        prompt_tokens = sum(rough_tokens(m.content) for m in call.messages)
        usage = Usage(prompt_tokens, sum(rough_tokens(t) for t in texts))
        return Generation(
            tuple(texts), usage, time.perf_counter() - start, model=self.name, cost=0.0
        )

    async def aclose(self) -> None:
        return None

    def _answer(self, purpose: str, ctx: Any, rng: random.Random, temp: float, top_p: float) -> str:
        # The target and the numbers that feel "nice" for it. Set here, used by the helpers
        # below: answering is synchronous (no await), so concurrent calls cannot interleave.
        self.target = Fraction(int(ctx.get("target", 24)))
        self.nice = _nice(self.target)
        nums = tuple(Fraction(str(x)) for x in ctx.get("numbers", ()))
        if purpose in ("io", "cot"):
            return self._attempt(nums, rng, temp, purpose == "cot")
        if purpose == "propose":
            return self._propose(nums, rng, temp)
        if purpose == "value":
            return self._value(nums, rng, temp)
        if purpose == "answer":
            return self._final_answer(ctx, nums)
        if purpose == "judge":
            return self._judge(ctx, rng)
        if purpose == "bot_step":
            return self._bot_step(ctx, nums, rng, temp, top_p)
        if purpose == "bot_evaluate":
            return f"Evaluation score: {self._confidence(nums, rng, 0.2)}"
        if purpose == "bot_feedback":
            return self._feedback(ctx, rng)
        raise ModelError("bad_request", f"the offline engine has no answer for {purpose!r}")

    # ------------------------------------------------------------------ judgement

    def _tries(self, nums: _Nums, rng: random.Random, budget: int) -> list[Fraction] | None:
        """A few random mental tries at finishing from ``nums``; the path if one hits 24."""
        if len(nums) == 1:
            return [nums[0]] if nums[0] == self.target else None
        if len(nums) == 2:  # two numbers: anyone checks all six results
            for a, _, b, c, _ in _moves(nums):
                if c == self.target:
                    return [a, b]
            return None
        for _ in range(budget):
            # Random steps down to two numbers, then the six results are checked, as a person
            # would: "5 * 4 = 20, and 20 + 4 = 24".
            cur = nums
            while len(cur) > 2:
                moves = [m for m in _moves(cur) if m[3].denominator == 1 or rng.random() < 0.15]
                if not moves:
                    break
                move = rng.choice(moves)
                cur = (*move[4], move[3])
            if len(cur) == 2 and self._tries(cur, rng, 0) is not None:
                return list(cur)
        return None

    def _promise(self, nums: _Nums, rng: random.Random) -> float:
        """How good a state looks, 0..1, from a few tries and a feel for the numbers."""
        if len(nums) == 1:
            return 1.0 if nums[0] == self.target else 0.0
        if self._tries(nums, rng, self.lookahead) is not None:
            return 0.95
        if len(nums) == 2:
            return 0.05
        score = 0.45
        if any(n in self.nice for n in nums):
            score += 0.1
        if any(n.denominator != 1 for n in nums):
            score -= 0.2
        big = max(nums)
        if big > 60 or sum(nums) * max(nums) < self.target:
            score -= 0.3
        return max(0.0, min(1.0, score))

    def _confidence(self, nums: _Nums, rng: random.Random, temp: float) -> str:
        p = self._promise(nums, rng) + rng.gauss(0, 0.1 + 0.1 * temp)
        scale = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)
        return format(min(scale, key=lambda s: abs(s - p)), "g")

    # ------------------------------------------------------------------ choosing steps

    def _step_weight(
        self, move: tuple[Fraction, str, Fraction, Fraction, _Nums], rng: random.Random
    ) -> float:
        _, op, _, c, rest = move
        after = (*rest, c)
        w = 1.0
        if c.denominator != 1:
            w *= 0.08  # fractions rarely come to mind
        if c in self.nice:
            w *= 2.0
        if c == 0 or c > 100:
            w *= 0.2
        if op == "/" and c.denominator == 1:
            w *= 1.3
        if self._tries(after, rng, 3) is not None:
            w *= 4.0
        return w

    def _pick(self, moves: list[Any], weights: list[float], rng: random.Random, temp: float) -> Any:
        sharp = 1.0 / max(temp, 0.05)
        ws = [w**sharp for w in weights]
        total = sum(ws)
        if total <= 0 or not math.isfinite(total):
            return rng.choice(moves)
        r = rng.random() * total
        for m, w in zip(moves, ws, strict=True):
            r -= w
            if r <= 0:
                return m
        return moves[-1]

    def _write(
        self, a: Fraction, op: str, b: Fraction, c: Fraction, rng: random.Random, temp: float
    ) -> str:
        """The result as the engine writes it: usually exact, sometimes rounded or slipped."""
        if rng.random() < self.slip * (0.5 + temp):
            return format_number(c + rng.choice((-2, -1, 1, 2)))
        if c.denominator != 1 and rng.random() < 0.5:
            return f"{float(c):.2f}"
        return format_number(c)

    def _walk(self, nums: _Nums, rng: random.Random, temp: float) -> tuple[list[Any], bool]:
        """One attempt at a whole solution: a path of moves and whether it reaches 24."""
        cur, path = nums, []
        while len(cur) > 1:
            moves = list(_moves(cur))
            move = self._pick(moves, [self._step_weight(m, rng) for m in moves], rng, temp)
            cur = (*move[4], move[3])
            path.append(move)
        return path, len(cur) == 1 and cur[0] == self.target

    def _attempt(self, nums: _Nums, rng: random.Random, temp: float, steps: bool) -> str:
        # Like a language model, the engine has a habitual answer for a hand (the same for
        # every sample): many samples repeat it, right or wrong, so votes can agree on a
        # wrong answer. The other samples try twice on their own.
        habit_rng = random.Random(f"{self.seed}|habit|{_fmt(sorted(nums))}")
        habit, _ = self._walk(nums, habit_rng, 0.3)
        path, ok = habit, False
        if rng.random() >= 0.55:
            for _try in range(2):
                path, ok = self._walk(nums, rng, temp)
                if ok:
                    break
            if not ok and rng.random() < 0.5:
                path = habit
        lines, cur = [], nums
        for a, op, b, c, rest in path:
            cur = (*rest, c)
            lines.append(
                f"{format_operand(a)} {op} {format_operand(b)} = "
                f"{self._write(a, op, b, c, rng, temp)} (left: {_fmt(cur)})"
            )
        expr = _expression(nums, path)
        body = "\n".join(lines) + "\n" if steps else ""
        return f"{body}Answer: {expr} = {self.target}"

    def _propose(self, nums: _Nums, rng: random.Random, temp: float) -> str:
        moves = list(_moves(nums))
        weights = [self._step_weight(m, rng) * rng.uniform(0.5, 1.5) for m in moves]
        order = sorted(range(len(moves)), key=lambda i: -weights[i])
        count = min(len(moves), rng.randint(5, 8))
        lines = []
        for i in order[:count]:
            a, op, b, c, rest = moves[i]
            lines.append(
                f"{format_operand(a)} {op} {format_operand(b)} = "
                f"{self._write(a, op, b, c, rng, temp)} (left: {_fmt((*rest, c))})"
            )
        return "\n".join(lines)

    def _value(self, nums: _Nums, rng: random.Random, temp: float) -> str:
        shown = _fmt(nums)
        if len(nums) == 1:
            return f"{shown}\n{'sure' if nums[0] == self.target else 'impossible'}"
        hit = self._tries(nums, rng, self.lookahead)
        if hit is not None:
            return f"{shown}: I can reach {self.target} from here\nsure"
        noise = rng.random() < 0.08 * (0.5 + temp)
        if len(nums) == 2:
            label = "likely" if noise else "impossible"
            return f"{shown}: no pair of operations gives {self.target}\n{label}"
        p = self._promise(nums, rng)
        if p < 0.25 and not noise:
            return f"{shown}: the numbers look hard to combine into {self.target}\nimpossible"
        return f"{shown}: not found yet, but the numbers are in range\nlikely"

    def _final_answer(self, ctx: Any, nums: _Nums) -> str:
        hand = tuple(Fraction(n) for n in ctx.get("hand", ()))
        steps = [_parse_step(s) for s in ctx.get("steps", ())]
        path = [s for s in steps if s is not None]
        return f"Answer: {_expression(hand, path)} = {_fmt(nums) or str(self.target)}"

    def _judge(self, ctx: Any, rng: random.Random) -> str:
        from puzzles.game24 import Hand, check_answer

        try:
            hand = Hand(tuple(int(n) for n in ctx.get("hand", ())), int(self.target))
            ok = check_answer(hand, str(ctx.get("answer") or "")).ok
        except ValueError:
            ok = False
        if rng.random() < 0.05:
            ok = not ok
        return "Judge: sure" if ok else "Judge: impossible"

    # ------------------------------------------------------------------ BoT

    def _bot_step(
        self, ctx: Any, nums: _Nums, rng: random.Random, temp: float, top_p: float
    ) -> str:
        chain = list(ctx.get("chain", ()))
        moves = list(_moves(nums))
        weights = [self._step_weight(m, rng) for m in moves]
        # Read the experience: avoid what was rejected from this same position, prefer steps
        # of chains that were recommended.
        for entry in ctx.get("experience", ()):
            lines = list(entry.get("chain", ()))
            verdicts = list(entry.get("verdicts", ()))
            # A chain the analysis recommended step by step is one to reuse, not just nudge.
            endorsed = bool(verdicts) and all(v == "recommend" for v in verdicts)
            for idx, line in enumerate(lines):
                if lines[:idx] != chain:
                    continue
                verdict = verdicts[idx] if idx < len(verdicts) else ""
                for k, m in enumerate(moves):
                    if _same_step(line, m):
                        if verdict == "reject":
                            weights[k] *= 0.02
                        elif verdict == "recommend":
                            weights[k] *= 40.0 if endorsed else 3.0
        if top_p < 1.0:  # nucleus: keep the heaviest moves that make up top_p of the weight
            order = sorted(range(len(moves)), key=lambda i: -weights[i])
            total, kept, acc = sum(weights), [], 0.0
            for i in order:
                kept.append(i)
                acc += weights[i]
                if acc >= top_p * total:
                    break
            moves = [moves[i] for i in kept]
            weights = [weights[i] for i in kept]
        a, op, b, c, rest = self._pick(moves, weights, rng, temp)
        after = (*rest, c)
        return (
            f"Step {len(chain) + 1}, Current set: {_fmt(nums)}, Two numbers selected: "
            f"{format_number(a)} {format_number(b)}, Operation: {op}, New number calculated: "
            f"{self._write(a, op, b, c, rng, temp)}, Remaining numbers: {_fmt(rest) or 'none'}, "
            f"New set: {_fmt(after)}, Evaluation score: {self._confidence(after, rng, temp)}"
        )

    def _feedback(self, ctx: Any, rng: random.Random) -> str:
        chain = list(ctx.get("chain", ()))
        valid = list(ctx.get("valid", [True] * len(chain)))
        hand = tuple(Fraction(n) for n in ctx.get("hand", ()))
        final = tuple(Fraction(str(x)) for x in ctx.get("numbers", ()))
        reached = len(final) == 1 and final[0] == self.target and all(valid)
        lines = []
        if reached:
            lines.append(
                f"Analysis Report: The chain uses every number once and reaches {self.target}, so "
                "it solves the task."
            )
            for i, _ in enumerate(chain, 1):
                lines.append(
                    f"Step {i}: correct. Advice: keep this step. Recommendation or "
                    "Reject: Recommend."
                )
            lines.append("Confidence score: 1.0")
            return "\n".join(lines)
        # Find the first step after which the numbers no longer look able to make 24.
        states: list[_Nums | None] = []
        cur = hand
        for line in chain:
            step = _parse_step(line)
            if step is None:
                states.append(None)
                continue
            a, _, b, c = step
            rest = list(cur)
            for v in (a, b):
                if v in rest:
                    rest.remove(v)
            cur = (*rest, c)
            states.append(cur)
        bad = len(chain) - 1
        for i, st in enumerate(states):
            if not valid[i] or st is None or self._tries(st, rng, self.lookahead) is None:
                bad = i
                break
        end = _fmt(final) if final else "nothing"
        lines.append(
            f"Analysis Report: The chain ends with {end} instead of {self.target}, so it does "
            f"not solve the task; the mistake starts at step {bad + 1}."
        )
        for i, line in enumerate(chain):
            prev = states[i - 1] if i > 0 else None
            before = _fmt(prev if prev else hand)
            if i < bad:
                lines.append(
                    f"Step {i + 1}: looks reasonable. Advice: it may be kept. "
                    "Recommendation or Reject: Recommend."
                )
            elif i == bad:
                what = line.split(" (left")[0]
                lines.append(
                    f"Step {i + 1}: {what} leaves numbers that cannot make {self.target}. "
                    f"Advice: do not use {what} from {before}; combine a different "
                    "pair. Recommendation or Reject: Reject."
                )
            else:
                lines.append(
                    f"Step {i + 1}: follows a wrong step. Advice: revise the earlier "
                    "step first. Recommendation or Reject: Reject."
                )
        lines.append(f"Confidence score: {rng.choice((0.3, 0.5))}")
        return "\n".join(lines)


@functools.lru_cache(maxsize=8192)
def _parse_step(line: str) -> tuple[Fraction, str, Fraction, Fraction] | None:
    import re

    m = re.match(r"\s*(\S+)\s*([-+*/])\s*(\S+)\s*=\s*(\S+)", line)
    if not m:
        return None
    try:
        a, b = Fraction(m.group(1).strip("()")), Fraction(m.group(3).strip("()"))
    except (ValueError, ZeroDivisionError):
        return None
    op = m.group(2)
    c = {"+": a + b, "-": a - b, "*": a * b}.get(op)
    if c is None:
        if b == 0:
            return None
        c = a / b
    return a, op, b, c


def _same_step(line: str, move: tuple[Fraction, str, Fraction, Fraction, _Nums]) -> bool:
    step = _parse_step(line)
    if step is None:
        return False
    a, op, b, _ = step
    ma, mop, mb = move[0], move[1], move[2]
    if op != mop:
        return False
    return (a, b) == (ma, mb) or (op in "+*" and (a, b) == (mb, ma))


def _expression(start: Sequence[Fraction], path: Sequence[tuple[Any, ...]]) -> str:
    """The expression a path of steps builds from ``start`` (as a person would write it)."""
    exprs: list[tuple[Fraction, str, int]] = [(n, format_number(n), 4) for n in start]
    for step in path:
        a, op, b = step[0], step[1], step[2]
        parts = []
        for value in (a, b):
            idx = next((i for i, e in enumerate(exprs) if e[0] == value), None)
            if idx is None:
                parts.append((value, format_number(value), 4))
            else:
                parts.append(exprs.pop(idx))
        prec = 1 if op in "+-" else 2
        left = parts[0][1] if parts[0][2] >= prec else f"({parts[0][1]})"
        right_paren = parts[1][2] < prec or (parts[1][2] == prec and op in "-/")
        right = f"({parts[1][1]})" if right_paren else parts[1][1]
        value = {"+": a + b, "-": a - b, "*": a * b}.get(op)
        if value is None:
            value = a / b if b else Fraction(0)
        exprs.append((value, f"{left} {op} {right}", prec))
    return " ".join(e[1] for e in exprs) if len(exprs) != 1 else exprs[0][1]
