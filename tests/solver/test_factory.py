"""The one model factory: which engine the settings choose, and what it is built with."""

from __future__ import annotations

from solver.factory import describe_engine, make_model
from solver.model.offline import OfflineModel
from solver.model.openai import OpenAIModel
from solver.settings import Settings


def test_the_offline_engine_takes_the_seed_given_then_the_settings_then_zero() -> None:
    chosen = make_model(Settings(seed=7), seed=3, offline_delay=0.25)
    assert isinstance(chosen, OfflineModel)
    assert (chosen.seed, chosen.delay) == (3, 0.25)
    from_settings = make_model(Settings(seed=7))
    assert isinstance(from_settings, OfflineModel)
    assert (from_settings.seed, from_settings.delay) == (7, 0.0)
    unseeded = make_model(Settings())
    assert isinstance(unseeded, OfflineModel)
    assert unseeded.seed == 0
    # A seed of 0 given outright is a seed, not "none given".
    zero = make_model(Settings(seed=7), seed=0)
    assert isinstance(zero, OfflineModel)
    assert zero.seed == 0


async def test_the_openai_engine_is_built_from_the_settings_with_the_retry_listener() -> None:
    def heard(kind: str, attempt: int, wait: float) -> None:
        pass

    settings = Settings(
        engine="openai", base_url="http://127.0.0.1:9/v1", model="tiny", api_key="sk-x" * 8
    )
    chosen = make_model(settings, seed=5, on_retry=heard)
    assert isinstance(chosen, OpenAIModel)
    try:
        assert chosen.settings == settings
        assert chosen.on_retry is heard
        assert chosen.base_url == "http://127.0.0.1:9/v1"
    finally:
        await chosen.aclose()


def test_the_engine_described_for_people() -> None:
    assert describe_engine(Settings()) == "offline engine"
    assert describe_engine(Settings(engine="openai", model="tiny")) == "tiny at api.openai.com"
    local = Settings(engine="openai", model="tiny", base_url="http://me:pw@127.0.0.1:8080/v1")
    assert describe_engine(local) == "tiny at http://me:****@127.0.0.1:8080/v1"
