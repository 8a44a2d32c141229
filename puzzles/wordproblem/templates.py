"""Templates for grade-school multi-step word problems, written for ponder.

Each template draws its numbers from a seeded :class:`random.Random` and writes the question
and a worked solution with :class:`Work`, which evaluates every step through
:mod:`puzzles.arith` and annotates it the way GSM8K does (``12 * 3 = <<12*3=36>>36``). The
answer is the result of the last step. Numbers are drawn so that every division comes out
exactly and the answer is positive, and whole wherever the story counts whole things.

Levels count the steps: **easy** problems take two, **medium** three, **hard** four or more.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from puzzles.arith import ClaimStatus, evaluate, format_number, verify_claim
from puzzles.wordproblem.model import show_number

__all__ = [
    "LEVELS",
    "TEMPLATES",
    "TOPICS",
    "Template",
    "TemplateError",
    "Work",
    "operand",
]

LEVELS = ("easy", "medium", "hard")
"""Difficulty levels, by the number of steps: two, three, four or more."""


class TemplateError(RuntimeError):
    """A template broke its own rules (a bug, never bad input)."""


def operand(value: Fraction | int, fraction: bool = False) -> str:
    """A value as an operand of a step: ``12``, ``2.5`` (or ``5/2`` with ``fraction``),
    ``2/3``, ``(-3)``.

    A fraction is left bare, as GSM8K writes it: ``6*2/3`` and ``6*(2/3)`` are equal, and so
    are ``3/8+1/4`` and ``(3/8)+(1/4)``. Only a divisor that is a fraction needs brackets,
    which the template writes."""
    value = Fraction(value)
    text = format_number(value) if fraction else show_number(value)
    return f"({text})" if value < 0 else text


_SPACED = re.compile(r"(?<=[\d)])\s*([-+*])\s*")


def _display(expr: str) -> str:
    """``2*(9+11)`` as ``2 * (9 + 11)``; ``/`` stays tight, as in ``48/2`` and ``3/4``."""
    return _SPACED.sub(r" \1 ", expr)


def money(value: Fraction | int) -> str:
    """``$12`` or ``$12.50``."""
    value = Fraction(value)
    if value.denominator == 1:
        return f"${value.numerator}"
    cents = value * 100
    if cents.denominator != 1:
        raise TemplateError(f"{value} is not a sum of money")
    return f"${cents.numerator // 100}.{cents.numerator % 100:02d}"


_SINGULARS = {
    "dollars": "dollar",
    "hours": "hour",
    "minutes": "minute",
    "years": "year",
    "weeks": "week",
    "days": "day",
    "cups": "cup",
    "cans": "can",
    "boxes": "box",
    "packs": "pack",
    "batches": "batch",
    "pages": "page",
    "points": "point",
    "pieces": "piece",
    "glasses": "glass",
    "litres": "litre",
    "metres": "metre",
    "slices": "slice",
    "pizzas": "pizza",
    "items": "item",
    "girls": "girl",
    "students": "student",
}
"""Plural units and their singulars, for a count of exactly 1."""


def _singular(unit: str) -> str:
    """``hours`` as ``hour``, ``square metres`` as ``square metre``; a unit without a plural
    (``km``, ``kg``) as it is."""
    head, _, last = unit.rpartition(" ")
    last = _SINGULARS.get(last, last)
    return f"{head} {last}" if head else last


_LEAD = re.compile(r"(?:square )?([a-z]+)(?: (are|were))?(?=$|[.,;:!?]| )")
_VERBS = {"are": "is", "were": "was"}


_ONE_OF = re.compile(r"(?<![\d.,/:-])1 ([a-z]+)\b")


def counts_of_one(text: str) -> str:
    """A question's counts of exactly one made singular: ``for 1 hours`` as ``for 1 hour``,
    ``1 years younger`` as ``1 year younger`` (units without a plural are left alone)."""
    return _ONE_OF.sub(lambda m: "1 " + _SINGULARS.get(m.group(1), m.group(1)), text)


def _singular_lead(after: str) -> str:
    """The text after a step's result of 1, its leading unit (and verb) made singular:
    ``hours.`` as ``hour.``, ``girls are not.`` as ``girl is not.``."""
    if after.startswith(("are ", "were ")):  # "1 are in the club"
        verb, _, rest = after.partition(" ")
        return f"{_VERBS[verb]} {rest}"
    match = _LEAD.match(after)
    if match is None or match.group(1) not in _SINGULARS:
        return after
    text = after[: match.start(1)] + _SINGULARS[match.group(1)]
    if match.group(2):
        text += " " + _VERBS[match.group(2)]
    return text + after[match.end() :]


class Work:
    """A worked solution being written: each step is evaluated exactly and checked."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.last: Fraction | None = None
        self.fractions = False
        """Show results as ``5/8`` rather than ``0.625`` (for stories told in fractions)."""
        self.unit: str | None = None
        """The answer's unit where the story picks it (the pears bought), else the
        template's."""

    def answer_unit(self, default: str) -> str:
        """The unit to print after the answer: the story's or ``default``, singular for
        an answer of exactly 1 (``1 dollar``, not ``1 dollars``)."""
        unit = self.unit or default
        return _singular(unit) if self.last == 1 else unit

    def calc(self, before: str, expr: str, after: str = "") -> Fraction:
        """Add the line ``before <expr> = <value> after`` and return the value.

        ``expr`` is arithmetic over numbers (build it with :func:`operand`)."""
        value = evaluate(expr)
        shown = format_number(value) if self.fractions else show_number(value)
        claim = verify_claim(f"{expr}={shown}")
        if claim.status is not ClaimStatus.EXACT:  # show_number's forms are exact: a bug
            raise TemplateError(f"step {expr}={shown} does not verify: {claim.describe()}")
        line = f"{before} {_display(expr)} = <<{expr}={shown}>>{shown}".strip()
        if after and value == 1:
            after = _singular_lead(after)
        if after:
            line += after if after[0] in ".,;:!?" else f" {after}"
        self.lines.append(line)
        self.last = value
        return value

    def expect(self, answer: Fraction | int) -> None:
        """Check the last step against the answer the template built the story around."""
        if self.last != answer:
            raise TemplateError(f"the steps give {self.last}, the story {answer}")


Write = Callable[[random.Random, Work], str]


@dataclass(frozen=True, slots=True)
class Template:
    """A family of word problems: its topic, level, the unit of its answer, whether the
    answer counts whole things, and the function that writes one."""

    name: str
    topic: str
    level: str
    unit: str
    whole: bool
    write: Write


TEMPLATES: list[Template] = []
"""Every template, in the order written."""


def _template(topic: str, level: str, unit: str, whole: bool = True) -> Callable[[Write], Write]:
    if level not in LEVELS:
        raise TemplateError(f"unknown level {level!r}")

    def register(write: Write) -> Write:
        TEMPLATES.append(Template(write.__name__, topic, level, unit, whole, write))
        return write

    return register


# ------------------------------------------------------------------ vocabulary

NAMES = (
    "Amara", "Ben", "Carlos", "Dana", "Elif", "Farah", "Gabriel", "Hana", "Ivan", "Jamal",
    "Keiko", "Liam", "Maya", "Nikhil", "Olga", "Priya", "Quinn", "Rosa", "Sami", "Tariq",
    "Uma", "Victor", "Wen", "Ximena", "Yusuf", "Zoe", "Aiko", "Bruno", "Chloe", "Diego",
    "Emeka", "Freya", "Grace", "Hiro", "Isla", "Jonas", "Kofi", "Lena", "Mateo", "Nadia",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Item:
    one: str
    many: str
    low: int
    high: int


SHOP_ITEMS = (
    _Item("notebook", "notebooks", 2, 6),
    _Item("pen", "pens", 1, 4),
    _Item("comic book", "comic books", 3, 9),
    _Item("sandwich", "sandwiches", 4, 9),
    _Item("toy car", "toy cars", 3, 8),
    _Item("bag of rice", "bags of rice", 2, 7),
    _Item("puzzle", "puzzles", 5, 10),
    _Item("plant pot", "plant pots", 3, 8),
    _Item("ticket", "tickets", 4, 10),
    _Item("box of crayons", "boxes of crayons", 2, 5),
    _Item("kite", "kites", 6, 10),
    _Item("scarf", "scarves", 5, 10),
)
FRUIT = ("apples", "oranges", "pears", "plums", "peaches", "lemons", "mangoes", "kiwis")
BIG_ITEMS = (
    ("bicycle", 100, 400),
    ("television", 200, 800),
    ("tent", 100, 300),
    ("guitar", 100, 500),
    ("sofa", 300, 900),
    ("laptop", 400, 1000),
)
SURNAMES = ("Okafor", "Novak", "Tanaka", "Garcia", "Haddad", "Lindqvist", "Mensah", "Patel")
VEHICLES = ("car", "bus", "van", "truck", "motorbike")
TRAINS = ("a freight train", "a passenger train", "a goods train", "an express train")
TASKS = (
    ("paint a fence", "fences"),
    ("mow a lawn", "lawns"),
    ("clean a classroom", "classrooms"),
    ("fill a trough", "troughs"),
    ("sort a crate of letters", "crates"),
    ("wash a car", "cars"),
)
PRODUCTS = ("toys", "bottles", "candles", "buttons", "bricks", "cupcakes", "keychains")
JOBS = ("a cashier", "a lifeguard", "a gardener", "a dog walker", "a tutor", "a painter")
SUBJECTS = ("maths", "science", "history", "spelling", "geography", "music")
LIQUIDS = ("lemonade", "orange juice", "water", "iced tea", "apple juice")
SNACKS = ("lunch", "a book", "a movie ticket", "a gift", "art supplies")
CLUBS = ("chess", "football", "drama", "robotics", "choir", "swimming")


def _two_names(rng: random.Random) -> tuple[str, str]:
    first, second = rng.sample(NAMES, 2)
    return first, second


def _ratio(rng: random.Random, high: int) -> tuple[int, int]:
    """Two different parts in lowest terms, such as 2:5 (never 3:6)."""
    while True:
        a, b = rng.sample(range(1, high + 1), 2)
        if math.gcd(a, b) == 1:
            return a, b


def _divisors(n: int, low: int, high: int) -> list[int]:
    return [d for d in range(low, high + 1) if n % d == 0]


def _choose(rng: random.Random, options: Sequence[int]) -> int:
    if not options:
        raise TemplateError("no parameter fits")
    return rng.choice(list(options))


# ------------------------------------------------------------------ shopping


@_template("shopping", "easy", "dollars")
def change_from_a_bill(rng: random.Random, w: Work) -> str:
    name, item = rng.choice(NAMES), rng.choice(SHOP_ITEMS)
    count, price = rng.randint(2, 9), rng.randint(item.low, item.high)
    bill = next(b for b in (10, 20, 50, 100) if b > count * price)
    cost = w.calc(f"The {item.many} cost", f"{count}*{price}", "dollars.")
    w.calc(f"{name} gets", f"{bill}-{operand(cost)}", "dollars in change.")
    return (
        f"{name} buys {count} {item.many} at {money(price)} each and pays with a "
        f"{money(bill)} bill. How much change, in dollars, does {name} get?"
    )


@_template("shopping", "easy", "fruit")
def packs_and_loose(rng: random.Random, w: Work) -> str:
    name, fruit = rng.choice(NAMES), rng.choice(FRUIT)
    w.unit = fruit
    packs, per_pack, loose = rng.randint(2, 9), rng.randint(3, 12), rng.randint(1, 15)
    in_packs = w.calc("The bags hold", f"{packs}*{per_pack}", f"{fruit}.")
    w.calc(f"{name} has", f"{operand(in_packs)}+{loose}", f"{fruit} in all.")
    return (
        f"{name} buys {packs} bags of {fruit} with {per_pack} {fruit} in each bag, and "
        f"{loose} loose {fruit}. How many {fruit} does {name} buy?"
    )


@_template("shopping", "medium", "dollars")
def basket_total(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    first, second = rng.sample(SHOP_ITEMS, 2)
    a, b = rng.randint(2, 8), rng.randint(2, 8)
    pa, pb = rng.randint(first.low, first.high), rng.randint(second.low, second.high)
    ca = w.calc(f"The {first.many} cost", f"{a}*{pa}", "dollars.")
    cb = w.calc(f"The {second.many} cost", f"{b}*{pb}", "dollars.")
    w.calc("Altogether that is", f"{operand(ca)}+{operand(cb)}", "dollars.")
    return (
        f"{name} buys {a} {first.many} at {money(pa)} each and {b} {second.many} at "
        f"{money(pb)} each. How many dollars does {name} spend?"
    )


@_template("shopping", "medium", "dollars")
def sale_price(rng: random.Random, w: Work) -> str:
    name, item = rng.choice(NAMES), rng.choice(SHOP_ITEMS)
    price, percent, count = 20 * rng.randint(1, 10), rng.choice((10, 20, 25, 50)), rng.randint(2, 6)
    off = w.calc("The discount is", f"{price}*{percent}/100", "dollars.")
    sale = w.calc(f"Each {item.one} costs", f"{price}-{operand(off)}", "dollars on sale.")
    w.calc(f"{count} of them cost", f"{operand(sale)}*{count}", "dollars.")
    return (
        f"A shop sells {item.many} for {money(price)} each. In a sale every {item.one} is "
        f"{percent}% off. How many dollars does {name} pay for {count} {item.many} in the sale?"
    )


@_template("shopping", "hard", "dollars")
def budget_left(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    first, second = rng.sample(SHOP_ITEMS, 2)
    a, b = rng.randint(2, 6), rng.randint(2, 6)
    pa, pb = rng.randint(first.low, first.high), rng.randint(second.low, second.high)
    spent = a * pa + b * pb
    start = spent + 2 * rng.randint(5, 40)  # an even remainder, so half of it is whole
    snack = rng.choice(SNACKS)
    ca = w.calc(f"The {first.many} cost", f"{a}*{pa}", "dollars.")
    cb = w.calc(f"The {second.many} cost", f"{b}*{pb}", "dollars.")
    total = w.calc("Together they cost", f"{operand(ca)}+{operand(cb)}", "dollars.")
    rest = w.calc(f"{name} has", f"{start}-{operand(total)}", "dollars left.")
    w.calc(f"After spending half on {snack}, {name} keeps", f"{operand(rest)}/2", "dollars.")
    w.expect((start - spent) // 2)
    return (
        f"{name} has {money(start)}. {name} buys {a} {first.many} at {money(pa)} each and "
        f"{b} {second.many} at {money(pb)} each, then spends half of the money left on "
        f"{snack}. How many dollars does {name} have now?"
    )


@_template("shopping", "hard", "dollars")
def bulk_saving(rng: random.Random, w: Work) -> str:
    name, item = rng.choice(NAMES), rng.choice(SHOP_ITEMS)
    single = rng.randint(item.low, item.high) + 1
    per_pack = rng.choice((4, 5, 6, 8, 10, 12))
    pack_price = single * per_pack - rng.randint(1, per_pack)
    needed = per_pack * rng.randint(2, 6)
    singles = w.calc("Buying one at a time costs", f"{needed}*{single}", "dollars.")
    packs = w.calc(f"{name} needs", f"{needed}/{per_pack}", "packs.")
    pack_cost = w.calc("The packs cost", f"{operand(packs)}*{pack_price}", "dollars.")
    w.calc(f"{name} saves", f"{operand(singles)}-{operand(pack_cost)}", "dollars.")
    w.expect(needed // per_pack * (single * per_pack - pack_price))
    return (
        f"A {item.one} costs {money(single)} on its own, or {money(pack_price)} for a pack "
        f"of {per_pack}. {name} needs {needed} {item.many}. How many dollars does {name} "
        "save by buying packs instead of single ones?"
    )


# ------------------------------------------------------------------ rates and speed


@_template("rates", "easy", "km")
def two_legs_distance(rng: random.Random, w: Work) -> str:
    name, vehicle = rng.choice(NAMES), rng.choice(VEHICLES)
    speed, hours, walk = 5 * rng.randint(6, 20), rng.randint(2, 5), rng.randint(1, 9)
    drive = w.calc(f"By {vehicle} {name} covers", f"{speed}*{hours}", "km.")
    w.calc("In all that is", f"{operand(drive)}+{walk}", "km.")
    return (
        f"{name} travels by {vehicle} at {speed} km per hour for {hours} hours, then walks "
        f"{walk} km. How many kilometres does {name} travel in all?"
    )


@_template("rates", "medium", "minutes")
def trip_with_stop(rng: random.Random, w: Work) -> str:
    train = rng.choice(TRAINS)
    speed, hours, stop = 10 * rng.randint(4, 12), rng.randint(2, 6), 5 * rng.randint(2, 9)
    distance = speed * hours
    moving = w.calc("Moving takes", f"{distance}/{speed}", "hours.")
    minutes = w.calc("That is", f"{operand(moving)}*60", "minutes.")
    w.calc("With the stop the trip takes", f"{operand(minutes)}+{stop}", "minutes.")
    w.expect(60 * hours + stop)
    return (
        f"{train.capitalize()} travels {distance} km at {speed} km per hour and stops once "
        f"for {stop} minutes on the way. How many minutes does the whole trip take?"
    )


@_template("rates", "hard", "km per hour")
def average_speed(rng: random.Random, w: Work) -> str:
    name, vehicle = rng.choice(NAMES), rng.choice(VEHICLES)
    while True:
        t1, t2 = rng.randint(1, 4), rng.randint(1, 4)
        v1, v2 = 10 * rng.randint(3, 9), 10 * rng.randint(3, 9)
        if v1 != v2 and (v1 * t1 + v2 * t2) % (t1 + t2) == 0:
            break
    d1 = w.calc("The first part is", f"{v1}*{t1}", "km.")
    d2 = w.calc("The second part is", f"{v2}*{t2}", "km.")
    distance = w.calc("The whole trip is", f"{operand(d1)}+{operand(d2)}", "km.")
    time = w.calc("It takes", f"{t1}+{t2}", "hours.")
    w.calc("The average speed is", f"{operand(distance)}/{operand(time)}", "km per hour.")
    w.expect(Fraction(v1 * t1 + v2 * t2, t1 + t2))
    return (
        f"{name} drives a {vehicle} at {v1} km per hour for {t1} hours, then at {v2} km per "
        f"hour for {t2} hours. What is {name}'s average speed for the whole trip, in km per "
        "hour?"
    )


@_template("rates", "medium", "minutes")
def leaky_tank(rng: random.Random, w: Work) -> str:
    leak = rng.randint(1, 4)
    net_rate = rng.randint(2, 9)
    minutes = rng.randint(5, 30)
    have = 10 * rng.randint(1, 10)
    capacity = have + net_rate * minutes
    pump = leak + net_rate
    missing = w.calc("The tank needs", f"{capacity}-{have}", "more litres.")
    net = w.calc("Each minute it gains", f"{pump}-{leak}", "litres.")
    w.calc("It is full after", f"{operand(missing)}/{operand(net)}", "minutes.")
    w.expect(minutes)
    return (
        f"A tank holds {capacity} litres and already has {have} litres in it. A pump adds "
        f"{pump} litres a minute, but a leak loses {leak} litres a minute. How many minutes "
        "until the tank is full?"
    )


@_template("rates", "medium", "km")
def trains_meet(rng: random.Random, w: Work) -> str:
    towns = rng.sample(("Ashford", "Brookville", "Cedar Falls", "Dunmore", "Elmstead"), 2)
    v1, v2 = 10 * rng.randint(4, 12), 10 * rng.randint(4, 12)
    hours = rng.randint(1, 5)
    distance = (v1 + v2) * hours
    closing = w.calc("Together they close", f"{v1}+{v2}", "km each hour.")
    meet = w.calc("They meet after", f"{distance}/{operand(closing)}", "hours.")
    w.calc(f"The train from {towns[0]} has gone", f"{v1}*{operand(meet)}", "km.")
    w.expect(v1 * hours)
    return (
        f"{towns[0]} and {towns[1]} are {distance} km apart. A train leaves {towns[0]} at "
        f"{v1} km per hour and, at the same time, a train leaves {towns[1]} at {v2} km per "
        f"hour, heading towards each other. How many km from {towns[0]} do they meet?"
    )


# ------------------------------------------------------------------ fractions


@_template("fractions", "easy", "items")
def fraction_given_away(rng: random.Random, w: Work) -> str:
    name, friend = _two_names(rng)
    thing = rng.choice(("stickers", "marbles", "cards", "stamps", "shells"))
    w.unit = thing
    den = rng.choice((2, 3, 4, 5, 6, 8))
    num = rng.randint(1, den - 1)
    total = den * rng.randint(2, 12)
    given = w.calc(f"{name} gives away", f"{total}*{num}/{den}", f"{thing}.")
    w.calc(f"{name} keeps", f"{total}-{operand(given)}", f"{thing}.")
    w.expect(total - total * num // den)
    return (
        f"{name} has {total} {thing} and gives {num}/{den} of them to {friend}. How many "
        f"{thing} does {name} keep?"
    )


@_template("fractions", "hard", "dollars")
def spend_then_remainder(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    b, d = rng.choice((2, 3, 4, 5)), rng.choice((2, 3, 4))
    a, c = rng.randint(1, b - 1), rng.randint(1, d - 1)
    start = b * d * rng.randint(2, 15)
    first, second = rng.sample(SNACKS, 2)
    s1 = w.calc(f"On {first} {name} spends", f"{start}*{a}/{b}", "dollars.")
    rest = w.calc("That leaves", f"{start}-{operand(s1)}", "dollars.")
    s2 = w.calc(f"On {second} {name} spends", f"{operand(rest)}*{c}/{d}", "dollars.")
    w.calc(f"{name} has", f"{operand(rest)}-{operand(s2)}", "dollars left.")
    return (
        f"{name} has {money(start)}. {name} spends {a}/{b} of it on {first} and then {c}/{d} "
        f"of what is left on {second}. How many dollars does {name} have left?"
    )


_CUPS = (
    (Fraction(1, 2), "half a cup"),
    (Fraction(1, 3), "1/3 of a cup"),
    (Fraction(2, 3), "2/3 of a cup"),
    (Fraction(1, 4), "1/4 of a cup"),
    (Fraction(3, 4), "3/4 of a cup"),
    (Fraction(3, 2), "1 1/2 cups"),
    (Fraction(5, 4), "1 1/4 cups"),
    (Fraction(4, 3), "1 1/3 cups"),
)


def _cups(value: Fraction) -> str:
    """``1/2 of a cup``, ``1 cup``, ``5 1/2 cups``."""
    whole, part = divmod(value, 1)
    if not whole:
        return f"{format_number(part)} of a cup"
    if not part:
        return f"{whole} cup{'s' if whole > 1 else ''}"
    return f"{whole} {format_number(part)} cups"


@_template("fractions", "medium", "cups", whole=False)
def recipe_sugar(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    baked = rng.choice(("cookies", "muffins", "pancakes", "scones"))
    per_batch = rng.choice((6, 8, 10, 12))
    amount, said = rng.choice(_CUPS)
    batches = rng.randint(3, 8)
    need = amount * batches
    # Some sugar in half cups, but less than needed (need is at least 3/4 of a cup).
    have = Fraction(rng.randint(1, math.ceil(need * 2) - 1), 2)
    made = per_batch * batches
    w.fractions = True
    count = w.calc(f"{name} bakes", f"{made}/{per_batch}", "batches.")
    sugar = w.calc("That needs", f"{operand(count)}*{operand(amount, True)}", "cups.")
    more = "more cup." if need - have == 1 else "more cups."
    w.calc(f"{name} must buy", f"{operand(sugar, True)}-{operand(have, True)}", more)
    w.expect(need - have)
    return (
        f"A recipe uses {said} of sugar for every {per_batch} {baked}. {name} wants to bake "
        f"{made} {baked} and has {_cups(have)} of sugar. How many more cups of sugar does "
        f"{name} need?"
    )


@_template("fractions", "hard", "slices")
def pizza_party(rng: random.Random, w: Work) -> str:
    first, second, third = rng.sample(NAMES, 3)
    a, b, c = rng.randint(1, 7), rng.randint(1, 3), rng.choice((1, 3))
    eaten = Fraction(a, 8) + Fraction(b, 4) + Fraction(c, 2)
    pizzas = int(eaten) + rng.randint(1, 3)
    w.fractions = True
    two = w.calc(f"{first} and {second} eat", f"{a}/8+{b}/4", "of a pizza.")
    total = w.calc(f"With {third} they eat", f"{operand(two, True)}+{c}/2", "pizzas.")
    left = w.calc("That leaves", f"{pizzas}-{operand(total, True)}", "pizzas.")
    w.calc("That is", f"{operand(left, True)}*8", "slices.")
    w.expect(8 * pizzas - (a + 2 * b + 4 * c))
    return (
        f"There are {pizzas} pizzas, each cut into 8 equal slices. {first} eats {a}/8 of a "
        f"pizza, {second} eats {b}/4 of a pizza and {third} eats "
        f"{'half a pizza' if c == 1 else 'one and a half pizzas'}. How many slices are left?"
    )


@_template("fractions", "medium", "girls")
def club_members(rng: random.Random, w: Work) -> str:
    club = rng.choice(CLUBS)
    b, d = rng.choice((2, 3, 4, 5)), rng.choice((3, 4, 5, 6))
    a, c = rng.randint(1, b - 1), rng.randint(1, d - 1)
    students = b * d * rng.randint(1, 3)
    girls = w.calc("There are", f"{students}*{a}/{b}", "girls.")
    members = w.calc("Of them", f"{operand(girls)}*{c}/{d}", f"are in the {club} club.")
    w.calc("So", f"{operand(girls)}-{operand(members)}", "girls are not.")
    return (
        f"A class has {students} students, and {a}/{b} of them are girls. {c}/{d} of the "
        f"girls are in the {club} club. How many girls are not in the {club} club?"
    )


# ------------------------------------------------------------------ ages


@_template("ages", "easy", "years")
def age_in_future(rng: random.Random, w: Work) -> str:
    younger, older = _two_names(rng)
    age, gap, years = rng.randint(4, 30), rng.randint(2, 25), rng.randint(2, 20)
    now = w.calc(f"{older} is", f"{age}+{gap}", "years old now.")
    w.calc(f"In {years} years {older} will be", f"{operand(now)}+{years}", "years old.")
    return (
        f"{younger} is {age} years old. {older} is {gap} years older than {younger}. How old "
        f"will {older} be in {years} years?"
    )


@_template("ages", "medium", "years")
def three_ages(rng: random.Random, w: Work) -> str:
    first, second, third = rng.sample(NAMES, 3)
    young, times = rng.randint(3, 12), rng.randint(2, 4)
    gap = rng.randint(1, times * young - 1)
    a = w.calc(f"{first} is", f"{times}*{young}", "years old.")
    c = w.calc(f"{third} is", f"{operand(a)}-{gap}", "years old.")
    w.calc("Together they are", f"{young}+{operand(a)}+{operand(c)}", "years old.")
    return (
        f"{second} is {young} years old. {first} is {times} times as old as {second}, and "
        f"{third} is {gap} years younger than {first}. What is the sum of their three ages?"
    )


@_template("ages", "hard", "years")
def sum_and_ratio(rng: random.Random, w: Work) -> str:
    older, younger = _two_names(rng)
    times, young, years = rng.randint(2, 5), rng.randint(3, 15), rng.randint(2, 12)
    total = (times + 1) * young
    parts = w.calc("Their ages make", f"{times}+1", f"parts, one of them {younger}'s.")
    y = w.calc(f"{younger} is", f"{total}/{operand(parts)}", "years old.")
    o = w.calc(f"{older} is", f"{times}*{operand(y)}", "years old.")
    w.calc(f"In {years} years {older} will be", f"{operand(o)}+{years}", "years old.")
    w.expect(times * young + years)
    return (
        f"{older} is {times} times as old as {younger}, and their ages add up to {total}. "
        f"How old will {older} be in {years} years?"
    )


@_template("ages", "medium", "years")
def born_when(rng: random.Random, w: Work) -> str:
    baby, elder = _two_names(rng)
    gap, now = rng.randint(2, 30), rng.randint(3, 20)
    later = now + rng.randint(2, 30)
    elder_now = w.calc(f"{elder} is now", f"{now}+{gap}", "years old.")
    wait = w.calc(f"{baby} turns {later} in", f"{later}-{now}", "years.")
    w.calc(f"Then {elder} will be", f"{operand(elder_now)}+{operand(wait)}", "years old.")
    return (
        f"When {baby} was born, {elder} was {gap} years old. {baby} is {now} now. How old "
        f"will {elder} be when {baby} is {later}?"
    )


@_template("ages", "hard", "years")
def siblings_sum(rng: random.Random, w: Work) -> str:
    family = rng.choice(SURNAMES)
    youngest, d1, d2 = rng.randint(2, 12), rng.randint(2, 6), rng.randint(2, 6)
    total = youngest + (youngest + d1) + (youngest + d1 + d2)
    gap = w.calc("The oldest is", f"{d1}+{d2}", "years older than the youngest.")
    extra = w.calc("Above the youngest's age there are", f"{d1}+{operand(gap)}", "years.")
    three = w.calc("Three times the youngest's age is", f"{total}-{operand(extra)}", ".")
    y = w.calc("The youngest is", f"{operand(three)}/3", "years old.")
    w.calc("The oldest is", f"{operand(y)}+{operand(gap)}", "years old.")
    w.expect(youngest + d1 + d2)
    return (
        f"The three {family} children have ages that add up to {total}. The middle child is "
        f"{d1} years older than the youngest, and the oldest is {d2} years older than the "
        "middle child. How old is the oldest?"
    )


# ------------------------------------------------------------------ work


@_template("work", "easy", "dollars")
def weekly_pay(rng: random.Random, w: Work) -> str:
    name, job = rng.choice(NAMES), rng.choice(JOBS)
    rate, hours, days = rng.randint(9, 25), rng.randint(2, 8), rng.randint(2, 6)
    total = w.calc(f"{name} works", f"{hours}*{days}", "hours.")
    w.calc(f"{name} earns", f"{operand(total)}*{rate}", "dollars.")
    return (
        f"{name} works as {job} for {money(rate)} an hour, {hours} hours a day, {days} days "
        f"a week. How many dollars does {name} earn in a week?"
    )


@_template("work", "hard", "dollars")
def overtime_pay(rng: random.Random, w: Work) -> str:
    name, job = rng.choice(NAMES), rng.choice(JOBS)
    rate, hours = 2 * rng.randint(6, 15), 40 + rng.randint(1, 15)
    extra = w.calc("Overtime is", f"{hours}-40", "hours.")
    ot_rate = w.calc("Overtime pays", f"{rate}*1.5", "dollars an hour.")
    base = w.calc("The first 40 hours pay", f"40*{rate}", "dollars.")
    ot = w.calc("Overtime pays", f"{operand(extra)}*{operand(ot_rate)}", "dollars.")
    w.calc(f"{name} earns", f"{operand(base)}+{operand(ot)}", "dollars.")
    return (
        f"{name} works as {job} for {money(rate)} an hour. Hours over 40 in a week are paid "
        f"at 1.5 times that rate. How many dollars does {name} earn in a week of {hours} hours?"
    )


@_template("work", "medium", "hours")
def working_together(rng: random.Random, w: Work) -> str:
    first, second = _two_names(rng)
    task, tasks = rng.choice(TASKS)
    # 1/a + 1/b = 1/t exactly when (a - t)(b - t) = t*t.
    t = rng.randint(1, 6)
    p = _choose(rng, _divisors(t * t, 1, t * t))
    a, b = t + p, t + t * t // p
    jobs = rng.randint(2, 5)
    w.fractions = True
    rate = w.calc("Together they do", f"1/{a}+1/{b}", "of a job each hour.")
    divisor = operand(rate, True)
    divisor = divisor if rate.denominator == 1 else f"({divisor})"  # 1/(1) reads oddly
    one = w.calc("One job takes them", f"1/{divisor}", "hours.")
    w.calc(f"{jobs} {tasks} take", f"{jobs}*{operand(one)}", "hours.")
    w.expect(jobs * t)
    return (
        f"{first} can {task} alone in {a} hours; {second} can do it alone in {b} hours. "
        f"Working together, how many hours do they take for {jobs} {tasks}?"
    )


@_template("work", "medium", "boxes")
def boxes_from_machines(rng: random.Random, w: Work) -> str:
    product = rng.choice(PRODUCTS)
    per_hour, machines, hours = 5 * rng.randint(2, 12), rng.randint(2, 6), rng.randint(2, 8)
    box = _choose(rng, _divisors(per_hour * machines * hours, 4, 25))
    each = w.calc("Each hour the machines make", f"{per_hour}*{machines}", f"{product}.")
    made = w.calc(f"In {hours} hours they make", f"{operand(each)}*{hours}", f"{product}.")
    w.calc("That fills", f"{operand(made)}/{box}", "boxes.")
    return (
        f"A machine makes {per_hour} {product} an hour. A factory runs {machines} such "
        f"machines for {hours} hours and packs the {product} in boxes of {box}. How many "
        "boxes does it fill?"
    )


@_template("work", "easy", "pages")
def pages_left(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    per_day, days = rng.randint(5, 30), rng.randint(2, 9)
    pages = per_day * days + rng.randint(10, 200)
    read = w.calc(f"{name} has read", f"{per_day}*{days}", "pages.")
    w.calc("There are", f"{pages}-{operand(read)}", "pages left.")
    return (
        f"A book has {pages} pages. {name} reads {per_day} pages a day for {days} days. How "
        "many pages are left to read?"
    )


# ------------------------------------------------------------------ geometry


@_template("geometry", "easy", "dollars")
def fence_cost(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    length, width, cost = rng.randint(5, 40), rng.randint(3, 30), rng.randint(2, 15)
    around = w.calc("The fence is", f"2*({length}+{width})", "metres long.")
    w.calc("It costs", f"{operand(around)}*{cost}", "dollars.")
    return (
        f"{name}'s garden is a rectangle {length} m long and {width} m wide. Fencing costs "
        f"{money(cost)} a metre. How many dollars does it cost to fence the whole garden?"
    )


@_template("geometry", "medium", "boxes")
def tiles_and_boxes(rng: random.Random, w: Work) -> str:
    room = rng.choice(("kitchen", "bathroom", "hallway", "patio", "classroom"))
    length, width = rng.randint(2, 9), rng.randint(2, 9)
    side, per_metre = rng.choice(((50, 4), (25, 16), (20, 25)))
    per_box = _choose(rng, _divisors(length * width * per_metre, 4, 20))
    area = w.calc(f"The {room} floor is", f"{length}*{width}", "square metres.")
    tiles = w.calc("It needs", f"{operand(area)}*{per_metre}", "tiles.")
    w.calc("That is", f"{operand(tiles)}/{per_box}", "boxes.")
    w.expect(length * width * per_metre // per_box)
    return (
        f"A {room} floor is {length} m by {width} m. Square tiles {side} cm on a side cover "
        f"it, {per_metre} tiles to a square metre, and tiles come in boxes of {per_box}. How "
        "many boxes are needed?"
    )


@_template("geometry", "hard", "square metres")
def garden_with_pond(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    feature = rng.choice(("pond", "sandpit", "patio", "vegetable bed", "shed"))
    side, inner = rng.randint(6, 30), rng.randint(1, 5)
    perimeter = 4 * side
    s = w.calc("Each side is", f"{perimeter}/4", "m.")
    garden = w.calc("The garden covers", f"{operand(s)}*{operand(s)}", "square metres.")
    taken = w.calc(f"The {feature} covers", f"{inner}*{inner}", "square metres.")
    w.calc("Grass covers", f"{operand(garden)}-{operand(taken)}", "square metres.")
    w.expect(side * side - inner * inner)
    return (
        f"{name}'s square garden has a fence {perimeter} m long around it. Inside it is a "
        f"square {feature} {inner} m on a side; the rest is grass. How many square metres of "
        "grass are there?"
    )


@_template("geometry", "hard", "dollars")
def l_shaped_room(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    big_l, big_w = rng.randint(5, 15), rng.randint(4, 12)
    cut_l, cut_w = rng.randint(1, big_l - 2), rng.randint(1, big_w - 2)
    price = rng.randint(8, 40)
    whole = w.calc("The full rectangle is", f"{big_l}*{big_w}", "square metres.")
    corner = w.calc("The missing corner is", f"{cut_l}*{cut_w}", "square metres.")
    floor = w.calc("The floor is", f"{operand(whole)}-{operand(corner)}", "square metres.")
    w.calc("Carpet costs", f"{operand(floor)}*{price}", "dollars.")
    return (
        f"{name}'s L-shaped room is a {big_l} m by {big_w} m rectangle with a {cut_l} m by "
        f"{cut_w} m corner cut away. Carpet costs {money(price)} a square metre. How many "
        "dollars does it cost to carpet the room?"
    )


@_template("geometry", "medium", "square metres")
def triangle_sails(rng: random.Random, w: Work) -> str:
    boats = rng.randint(2, 9)
    base, height = rng.randint(2, 12), 2 * rng.randint(2, 8)
    product = w.calc("Base times height is", f"{base}*{height}", ".")
    sail = w.calc("One sail is", f"{operand(product)}/2", "square metres.")
    w.calc(f"{boats} sails take", f"{operand(sail)}*{boats}", "square metres of cloth.")
    return (
        f"A boat's sail is a triangle with a base of {base} m and a height of {height} m. "
        f"How many square metres of cloth make sails for {boats} boats?"
    )


@_template("geometry", "medium", "litres")
def fish_tank(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    # Whole tens of centimetres, so the volume is a whole number of litres.
    length, width, height = (
        10 * rng.randint(2, 12),
        10 * rng.randint(2, 6),
        10 * rng.randint(2, 6),
    )
    base = w.calc("The base is", f"{length}*{width}", "square cm.")
    volume = w.calc("The tank holds", f"{operand(base)}*{height}", "cubic cm.")
    w.calc("That is", f"{operand(volume)}/1000", "litres.")
    return (
        f"{name}'s fish tank is {length} cm long, {width} cm wide and {height} cm tall. A "
        "litre is 1000 cubic cm. How many litres of water fill the tank?"
    )


# ------------------------------------------------------------------ percent


@_template("percent", "easy", "students")
def percent_not(rng: random.Random, w: Work) -> str:
    students, percent = 20 * rng.randint(1, 15), 5 * rng.randint(1, 19)
    habit = rng.choice(("wear glasses", "walk to school", "play an instrument", "have a pet"))
    yes = w.calc("Those who do are", f"{students}*{percent}/100", "students.")
    w.calc("Those who do not are", f"{students}-{operand(yes)}", "students.")
    return (
        f"A school has {students} students and {percent}% of them {habit}. How many students "
        f"do not {habit}?"
    )


@_template("percent", "medium", "dollars")
def price_increase(rng: random.Random, w: Work) -> str:
    name, item = rng.choice(NAMES), rng.choice(SHOP_ITEMS)
    price, percent, count = (
        20 * rng.randint(1, 10),
        rng.choice((5, 10, 20, 25, 50)),
        rng.randint(2, 6),
    )
    rise = w.calc("The price rises by", f"{price}*{percent}/100", "dollars.")
    new = w.calc(f"Each {item.one} now costs", f"{price}+{operand(rise)}", "dollars.")
    w.calc(f"{count} {item.many} cost", f"{operand(new)}*{count}", "dollars.")
    return (
        f"A {item.one} cost {money(price)}, then its price went up by {percent}%. How many "
        f"dollars does {name} pay for {count} {item.many} at the new price?"
    )


@_template("percent", "medium", "dollars")
def simple_interest(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    deposit, rate, years = 100 * rng.randint(1, 30), rng.randint(1, 8), rng.randint(2, 6)
    yearly = w.calc("Each year earns", f"{deposit}*{rate}/100", "dollars.")
    interest = w.calc(f"In {years} years that is", f"{operand(yearly)}*{years}", "dollars.")
    w.calc(f"{name} will have", f"{deposit}+{operand(interest)}", "dollars.")
    return (
        f"{name} puts {money(deposit)} in a savings account that pays {rate}% simple interest "
        f"a year. How many dollars will be in the account after {years} years?"
    )


@_template("percent", "hard", "dollars")
def raise_then_cut(rng: random.Random, w: Work) -> str:
    thing, low, high = rng.choice(BIG_ITEMS)
    while True:
        price = 50 * rng.randint(low // 50, high // 50)
        up, down = rng.choice((10, 20, 25, 50)), rng.choice((10, 20, 25, 50))
        if (price * (100 + up) * down) % 10_000 == 0 and (price * up) % 100 == 0:
            break
    rise = w.calc("The rise is", f"{price}*{up}/100", "dollars.")
    raised = w.calc("The raised price is", f"{price}+{operand(rise)}", "dollars.")
    cut = w.calc("The cut is", f"{operand(raised)}*{down}/100", "dollars.")
    w.calc("The final price is", f"{operand(raised)}-{operand(cut)}", "dollars.")
    w.expect(Fraction(price * (100 + up) * (100 - down), 10_000))
    return (
        f"A {thing} cost {money(price)}. Its price went up by {up}%, and later the new price "
        f"went down by {down}%. What is the final price of the {thing}, in dollars?"
    )


# ------------------------------------------------------------------ time


@_template("time", "medium", "hours")
def chores_hours(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    while True:
        a, b, c = (5 * rng.randint(1, 12) for _ in range(3))
        days = rng.randint(2, 12)
        if ((a + b + c) * days) % 60 == 0:
            break
    daily = w.calc(f"Each day {name} spends", f"{a}+{b}+{c}", "minutes.")
    minutes = w.calc(f"In {days} days that is", f"{operand(daily)}*{days}", "minutes.")
    w.calc("That is", f"{operand(minutes)}/60", "hours.")
    return (
        f"Every day {name} spends {a} minutes reading, {b} minutes practising "
        f"{rng.choice(SUBJECTS)} and {c} minutes tidying up. How many hours does {name} "
        f"spend on these in {days} days?"
    )


@_template("time", "easy", "minutes")
def film_minutes(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    hours, minutes = rng.randint(1, 3), rng.randint(1, 59)
    whole = w.calc("The whole hours are", f"{hours}*60", "minutes.")
    w.calc("The film lasts", f"{operand(whole)}+{minutes}", "minutes.")
    return (
        f"The film {name} watches lasts {hours} hours and {minutes} minutes. How many minutes "
        "long is it?"
    )


@_template("time", "hard", "hours")
def school_day(rng: random.Random, w: Work) -> str:
    school = rng.choice(("Hillside", "Riverside", "Oakwood", "Lakeview", "Meadow Lane"))
    while True:
        lessons, length = rng.randint(4, 7), 5 * rng.randint(8, 12)
        breaks, pause, lunch = rng.randint(1, 3), 5 * rng.randint(1, 4), 5 * rng.randint(6, 12)
        if (lessons * length + breaks * pause + lunch) % 60 == 0:
            break
    teaching = w.calc("Lessons take", f"{lessons}*{length}", "minutes.")
    rests = w.calc("Breaks take", f"{breaks}*{pause}", "minutes.")
    both = w.calc("Together that is", f"{operand(teaching)}+{operand(rests)}", "minutes.")
    day = w.calc("With lunch the day is", f"{operand(both)}+{lunch}", "minutes.")
    w.calc("That is", f"{operand(day)}/60", "hours.")
    return (
        f"A day at {school} School has {lessons} lessons of {length} minutes, {breaks} "
        f"break{'s' if breaks > 1 else ''} of {pause} minutes and a {lunch}-minute lunch. How "
        "many hours long is the school day?"
    )


# ------------------------------------------------------------------ ratio


@_template("ratio", "easy", "girls")
def boys_and_girls(rng: random.Random, w: Work) -> str:
    club = rng.choice(CLUBS)
    boys_part, girls_part = _ratio(rng, 7)
    boys = boys_part * rng.randint(2, 9)
    part = w.calc("One part is", f"{boys}/{boys_part}", "children.")
    w.calc("There are", f"{operand(part)}*{girls_part}", "girls.")
    return (
        f"In the {club} club the ratio of boys to girls is {boys_part}:{girls_part}. There are "
        f"{boys} boys. How many girls are in the club?"
    )


@_template("ratio", "medium", "dollars")
def share_in_ratio(rng: random.Random, w: Work) -> str:
    first, second = _two_names(rng)
    a, b = _ratio(rng, 9)
    total = (a + b) * rng.randint(2, 30)
    bigger, big_part = (first, a) if a > b else (second, b)
    parts = w.calc("There are", f"{a}+{b}", "parts.")
    part = w.calc("Each part is", f"{total}/{operand(parts)}", "dollars.")
    w.calc(f"{bigger} gets", f"{operand(part)}*{big_part}", "dollars.")
    return (
        f"{first} and {second} share {money(total)} in the ratio {a}:{b}. How many dollars "
        f"does {bigger} get?"
    )


@_template("ratio", "hard", "cans")
def paint_mix(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    colour = rng.choice(("blue", "red", "yellow", "green"))
    a, b = rng.randint(1, 5), rng.randint(1, 6)
    colour_litres = a * rng.randint(1, 8)
    total = colour_litres + colour_litres // a * b
    can = _choose(rng, _divisors(total, 1, 6))
    parts = w.calc("One part is", f"{colour_litres}/{a}", "litres.")
    white = w.calc("White paint is", f"{operand(parts)}*{b}", "litres.")
    mixed = w.calc("The mix is", f"{colour_litres}+{operand(white)}", "litres.")
    w.calc("That fills", f"{operand(mixed)}/{can}", "cans.")
    w.expect(total // can)
    return (
        f"{name} mixes {colour} and white paint in the ratio {a}:{b} and uses {colour_litres} "
        f"litres of {colour}. The mix is poured into cans of {can} litre{'s' if can > 1 else ''}. "
        "How many cans does it fill?"
    )


# ------------------------------------------------------------------ averages


@_template("averages", "easy", "points")
def average_of_scores(rng: random.Random, w: Work) -> str:
    name, subject = rng.choice(NAMES), rng.choice(SUBJECTS)
    count = rng.randint(3, 5)
    scores = [rng.randint(50, 100) for _ in range(count - 1)]
    low = next(s for s in range(50, 101) if (sum(scores) + s) % count == 0)
    last = rng.choice(range(low, 101, count))
    scores.append(last)
    total = w.calc("The scores add up to", "+".join(str(s) for s in scores), ".")
    w.calc("The average is", f"{operand(total)}/{count}", "points.")
    w.expect(Fraction(sum(scores), count))
    listed = ", ".join(str(s) for s in scores[:-1]) + f" and {scores[-1]}"
    return f"{name} scored {listed} on {count} {subject} tests. What is {name}'s average score?"


@_template("averages", "medium", "points")
def score_needed(rng: random.Random, w: Work) -> str:
    name, subject = rng.choice(NAMES), rng.choice(SUBJECTS)
    count = rng.randint(3, 5)
    while True:
        target = rng.randint(60, 95)
        scores = [rng.randint(50, 100) for _ in range(count - 1)]
        needed = target * count - sum(scores)
        if 1 <= needed <= 100:
            break
    total = w.calc(f"An average of {target} needs", f"{target}*{count}", "points.")
    so_far = w.calc(f"{name} has", "+".join(str(s) for s in scores), "points.")
    w.calc(f"{name} needs", f"{operand(total)}-{operand(so_far)}", "points on the last test.")
    w.expect(needed)
    listed = ", ".join(str(s) for s in scores[:-1]) + f" and {scores[-1]}"
    return (
        f"{name} scored {listed} on the first {count - 1} of {count} {subject} tests. What "
        f"score on the last test gives {name} an average of exactly {target}?"
    )


@_template("averages", "hard", "kg")
def new_team_member(rng: random.Random, w: Work) -> str:
    team = rng.choice(("rowing", "rugby", "wrestling", "basketball"))
    while True:
        players, average = rng.randint(4, 11), rng.randint(55, 90)
        newcomer = rng.randint(50, 110)
        if (players * average + newcomer) % (players + 1) == 0 and newcomer != average:
            break
    total = w.calc("The team weighs", f"{players}*{average}", "kg.")
    more = w.calc("With the new player it weighs", f"{operand(total)}+{newcomer}", "kg.")
    size = w.calc("There are now", f"{players}+1", "players.")
    w.calc("The new average is", f"{operand(more)}/{operand(size)}", "kg.")
    w.expect(Fraction(players * average + newcomer, players + 1))
    return (
        f"The {players} players of a {team} team weigh {average} kg on average. A new player "
        f"who weighs {newcomer} kg joins. What is the team's average weight now, in kg?"
    )


# ------------------------------------------------------------------ measurement


@_template("measurement", "easy", "pieces")
def rope_pieces(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    metres = rng.randint(2, 20)
    piece = _choose(rng, _divisors(metres * 100, 8, 80))
    centimetres = w.calc("The rope is", f"{metres}*100", "cm long.")
    w.calc(f"{name} cuts", f"{operand(centimetres)}/{piece}", "pieces.")
    return (
        f"{name} has a rope {metres} m long and cuts it into pieces {piece} cm long. How many "
        "pieces does "
        f"{name} get?"
    )


@_template("measurement", "medium", "glasses")
def juice_glasses(rng: random.Random, w: Work) -> str:
    name, drink = rng.choice(NAMES), rng.choice(LIQUIDS)
    litres = rng.randint(2, 9)
    glass = _choose(rng, _divisors(litres * 1000, 150, 400))
    glasses = litres * 1000 // glass
    guests = rng.randint(1, glasses - 1)
    millilitres = w.calc(f"The {drink} is", f"{litres}*1000", "ml.")
    full = w.calc("That fills", f"{operand(millilitres)}/{glass}", "glasses.")
    w.calc("After the guests drink,", f"{operand(full)}-{guests}", "glasses are left.")
    w.expect(glasses - guests)
    return (
        f"{name} makes {litres} litres of {drink} and pours it into glasses of {glass} ml. "
        f"{guests} {'guest drinks' if guests == 1 else 'guests drink'} one glass each. How many "
        "full glasses are left?"
    )


@_template("measurement", "hard", "litres")
def paint_walls(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    while True:
        length, width, height = rng.randint(3, 8), rng.randint(3, 8), rng.randint(2, 3)
        cover = rng.choice((4, 5, 6, 8, 10))
        door = (2 * (length + width) * height) % cover
        if 2 <= door <= 4:
            break
    around = w.calc("The walls go", f"2*({length}+{width})", "metres around.")
    walls = w.calc("They cover", f"{operand(around)}*{height}", "square metres.")
    paint = w.calc("Without the door that is", f"{operand(walls)}-{door}", "square metres.")
    w.calc(f"{name} needs", f"{operand(paint)}/{cover}", "litres of paint.")
    return (
        f"{name} paints the walls of a room {length} m long, {width} m wide and {height} m "
        f"high, all but a door of {door} square metres. A litre of paint covers {cover} square "
        f"metres. How many litres of paint does {name} need?"
    )


# ------------------------------------------------------------------ savings


@_template("savings", "easy", "weeks")
def weeks_to_save(rng: random.Random, w: Work) -> str:
    name, thing = rng.choice(NAMES), rng.choice(BIG_ITEMS)[0]
    weekly, weeks, has = rng.randint(5, 40), rng.randint(2, 30), rng.randint(0, 90)
    price = has + weekly * weeks
    missing = w.calc(f"{name} still needs", f"{price}-{has}", "dollars.")
    w.calc("That takes", f"{operand(missing)}/{weekly}", "weeks.")
    w.expect(weeks)
    return (
        f"{name} wants a {thing} that costs {money(price)} and has saved {money(has)}. If "
        f"{name} saves {money(weekly)} a week, how many weeks until {name} can buy it?"
    )


@_template("savings", "hard", "dollars")
def chores_savings(rng: random.Random, w: Work) -> str:
    name, relative = rng.choice(NAMES), rng.choice(("aunt", "uncle", "grandmother", "cousin"))
    per_chore, chores, weeks = rng.randint(2, 8), rng.randint(2, 7), rng.randint(2, 10)
    earned = per_chore * chores * weeks
    spent, gift = rng.randint(1, earned - 1), 5 * rng.randint(1, 10)
    snack = rng.choice(SNACKS)
    weekly = w.calc(f"Each week {name} earns", f"{per_chore}*{chores}", "dollars.")
    total = w.calc(f"In {weeks} weeks that is", f"{operand(weekly)}*{weeks}", "dollars.")
    left = w.calc(f"After buying {snack}, {name} has", f"{operand(total)}-{spent}", "dollars.")
    w.calc(f"With the gift {name} has", f"{operand(left)}+{gift}", "dollars.")
    w.expect(earned - spent + gift)
    return (
        f"{name} earns {money(per_chore)} for each chore and does {chores} chores a week for "
        f"{weeks} weeks. {name} spends {money(spent)} of it on {snack}, then gets "
        f"{money(gift)} from {name}'s {relative}. How many dollars does {name} have now?"
    )


@_template("savings", "medium", "dollars")
def allowance_saved(rng: random.Random, w: Work) -> str:
    name = rng.choice(NAMES)
    allowance, weeks = 2 * rng.randint(3, 15), rng.randint(3, 12)
    saved = allowance // 2 * weeks
    spent = rng.randint(1, saved - 1)
    half = w.calc(f"Each week {name} saves", f"{allowance}/2", "dollars.")
    total = w.calc(f"In {weeks} weeks that is", f"{operand(half)}*{weeks}", "dollars.")
    w.calc(f"After the trip {name} has", f"{operand(total)}-{spent}", "dollars.")
    return (
        f"{name} gets {money(allowance)} pocket money a week and saves half of it. After "
        f"{weeks} weeks {name} spends {money(spent)} of the savings on a trip. How many "
        f"dollars of savings does {name} have left?"
    )


TOPICS = tuple(dict.fromkeys(t.topic for t in TEMPLATES))
"""Every topic, in the order its first template was written."""
