"""Each engine on a real model: a tiny Llama built here (transformers) and the default
Gemma 3 270M GGUF (llama.cpp). Plus model specs and safe loading."""

import os
import pickle
from pathlib import Path

import pytest

from probe.backends import make_backend, resolve
from probe.backends.base import Sampling
from probe.backends.hf import TransformersBackend
from probe.backends.llama import LlamaBackend
from probe.errors import BadInput
from probe.prompting import pick_shots, style_for

PROMPT = "Choose a random popular butterfly."


@pytest.fixture(scope="module")
def gemma(default_gguf):
    b = LlamaBackend(default_gguf)
    b.load()
    yield b
    b.close()


def test_default_gguf_has_no_chat_template_so_base_mode_with_shots(gemma):
    assert not gemma.has_chat_template
    style = style_for(PROMPT, gemma.has_chat_template, False, 3, None)
    assert style.mode == "base" and len(style.shots) == 3
    assert all("butterfl" not in q.lower() for q, _ in style.shots)


def test_default_gguf_samples_are_short_answers_and_seeded(gemma):
    style = style_for(PROMPT, False, True, 3, None)
    first = list(gemma.sample_many(PROMPT, 4, style, Sampling(), [1, 2, 3, 4]))
    again = list(gemma.sample_many(PROMPT, 4, style, Sampling(), [1, 2, 3, 4]))
    assert [c.text for c in first] == [c.text for c in again]
    assert all("\n" not in c.text and len(c.text) < 200 for c in first)
    assert all(c.prompt.endswith(f"Q: {PROMPT}\n{style.instruction}\nA:") for c in first)
    assert sum(c.tokens for c in first) > 0
    framed = list(gemma.sample_each(["Which butterfly for a card?", "Which for a tattoo?"],
                                    style, Sampling(), [5, 6]))
    assert len(framed) == 2


def test_llama_cancel_stops_between_samples(gemma):
    style = style_for(PROMPT, False, True, 3, None)
    gen = gemma.sample_many(PROMPT, 10, style, Sampling(), list(range(10)))
    next(gen)
    gemma.cancel()
    assert list(gen) == []
    gemma.reset_cancel()


def test_tiny_transformers_model_batches_and_repeats_with_a_seed(tiny_model):
    b = TransformersBackend(tiny_model)
    b.load()
    assert not b.has_chat_template and not b.USES_GPU
    style = style_for(PROMPT, False, False, 3, None)
    a = [c.text for c in b.sample_many(PROMPT, 5, style, Sampling(max_tokens=8), [7])]
    again = [c.text for c in b.sample_many(PROMPT, 5, style, Sampling(max_tokens=8), [7])]
    assert len(a) == 5 and a == again
    assert all("\n" not in t for t in a)
    each = list(b.sample_each(["one", "two", "three"], style, Sampling(max_tokens=4), [1, 2, 3]))
    assert len(each) == 3 and all(c.tokens <= 4 for c in each)


def test_tiny_chat_model_uses_its_template(tiny_chat_model):
    b = TransformersBackend(tiny_chat_model)
    b.load()
    assert b.has_chat_template
    style = style_for(PROMPT, True, False, 3, "Be brief.")
    rendered = b.render(PROMPT, style)
    assert rendered.startswith("<s>system: Be brief.") and rendered.endswith("assistant:")
    assert len(list(b.sample_many(PROMPT, 2, style, Sampling(max_tokens=4), [1]))) == 2


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def test_pickle_checkpoint_is_refused_and_never_executed(tiny_model, tmp_path):
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "config.json").write_text((tiny_model / "config.json").read_text())
    for f in ("tokenizer.json", "tokenizer_config.json"):
        (evil / f).write_text((tiny_model / f).read_text())
    (evil / "pytorch_model.bin").write_bytes(pickle.dumps(_Boom()))
    b = make_backend(resolve(str(evil)))
    with pytest.raises(BadInput, match="pickle"):
        b.load()
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()


def test_trust_remote_code_is_off_unless_asked(tiny_model, monkeypatch):
    import transformers

    seen = {}
    real = transformers.AutoModelForCausalLM.from_pretrained

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", spy)
    TransformersBackend(tiny_model).load()
    assert seen["trust_remote_code"] is False and seen["use_safetensors"] is True


def test_model_specs_resolve_or_say_why(tiny_model, default_gguf, tmp_path):
    assert resolve(None).engine == "llama"
    assert resolve(str(default_gguf)).engine == "llama"
    assert resolve(str(tiny_model)).engine == "transformers"
    with pytest.raises(BadInput, match="does not exist"):
        resolve(str(tmp_path / "missing.gguf"))
    with pytest.raises(BadInput, match="not in the local Hugging Face cache"):
        resolve("someone/never-downloaded")
    with pytest.raises(BadInput, match="unknown model"):
        resolve("gibberish")
    with pytest.raises(BadInput, match="llama.cpp needs a .gguf"):
        resolve(str(tiny_model), "llama")
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model")
    with pytest.raises(BadInput, match="not a GGUF file"):
        make_backend(resolve(str(fake))).load()


def test_shots_never_share_a_content_word_with_the_family():
    for direct in ["Choose a random kitchen tool", "Choose a random board game",
                   "Choose a random planet", "Choose a random musical instrument"]:
        shots = pick_shots(direct, 3)
        assert len(shots) == 3
        words = set(direct.lower().split()) - {"choose", "a", "random"}
        for q, _ in shots:
            assert not words & set(q.lower().rstrip(".").split()), (direct, q)


def test_default_gguf_in_transformers_is_dequantised_once_and_cached(default_gguf, tmp_path):
    """The GGUF → safetensors conversion (about a minute on a CPU), then a cached reload."""
    import json

    cache = tmp_path / "cache"
    first = TransformersBackend(default_gguf, cache_dir=cache)
    first.load()
    converted = list((cache / "converted").iterdir())
    assert len(converted) == 1 and (converted[0] / "model.safetensors").exists()
    assert "quantization_config" not in json.loads((converted[0] / "config.json").read_text())
    style = style_for(PROMPT, first.has_chat_template, True, 3, None)
    texts = [c.text for c in first.sample_many(PROMPT, 3, style, Sampling(), [1])]
    assert len(texts) == 3 and all("\n" not in t for t in texts)
    del first
    again = TransformersBackend(default_gguf, cache_dir=cache)
    again.load()                                   # from the cache: no second conversion
    assert list((cache / "converted").iterdir()) == converted
