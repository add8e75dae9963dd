"""A model's chat template in a box: rendered before sampling in a child process under a
time, memory and output-size limit, so a template that loops, grows or refuses is one
sentence with bounded memory; a stop ends it at once; a stuck run ends after a grace
period or a second signal; every model-load exception is one sentence."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import FAMILIES
from probe import family as fam_mod
from probe.backends.fake import FakeBackend
from probe.errors import BadInput, RunFailed
from probe.limits import TEMPLATE_TIMEOUT_S
from probe.runner import Runner, RunSettings
from probe.store import Store
from probe.template_box import ChatTemplate, render
from probe.terminal import first_unsafe

PROBE = [sys.executable, "-m", "probe"]
LOOPS = "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}x"

# Held-out variants of each cause: memory, output size, refusal, syntax, sandbox, depth.
HOSTILE = {
    "multiplied string": ("{{ 'x' * 1000000000 }}", "needed more than"),
    "doubling namespace": ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
                           "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}", "needed more"),
    "centred": ("{{ 'x' | center(900000000) }}", "needed more than"),
    "list growth": ("{% set ns = namespace(l=[1]) %}{% for i in range(30) %}"
                    "{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}", "needed more"),
    "long output": ("{% for i in range(50000) %}{{ messages[0].content }}{% endfor %}",
                    "rendered more than"),
    "lorem": ("{{ lipsum(20000) }}", "rendered more than"),
    "refusal": ("{{ raise_exception('Only user and assistant roles \x1b]0;pwned\x07 "
                "are supported\u202e') }}", "refused the prompt"),
    "syntax": ("{% for m in messages %}{{ m.content }", "is not a valid template"),
    "sandbox": ("{{ messages.__class__.__mro__[1].__subclasses__() }}", "sandbox forbids"),
    "recursion": ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
                  "recursed too deeply"),
}


def family() -> fam_mod.Family:
    return fam_mod.load(FAMILIES / "butterfly.toml")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_template_is_one_sentence_before_any_run(isolated, name):
    source, fragment = HOSTILE[name]
    store = Store(isolated / "probe.db")
    backend = FakeBackend("Monarch", template=source)
    backend.load()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    with pytest.raises(BadInput) as err:
        Runner(store, backend).create(family(), RunSettings(samples=3), "fake-model")
    message = str(err.value)
    assert fragment in message and message.startswith("the chat template of fake-model")
    assert "\n" not in message and "--base" in message
    assert time.monotonic() - start < TEMPLATE_TIMEOUT_S + 5
    # The template ran elsewhere: this process grew by nothing like a gigabyte.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024
    assert store.runs() == []                      # no run was stored


def test_a_looping_template_is_stopped_at_the_time_limit(isolated):
    start = time.monotonic()
    with pytest.raises(BadInput, match=f"did not finish within {TEMPLATE_TIMEOUT_S:g} s"):
        render(ChatTemplate(LOOPS, "m.gguf"), [[{"role": "user", "content": "hi"}]])
    assert TEMPLATE_TIMEOUT_S - 1 < time.monotonic() - start < TEMPLATE_TIMEOUT_S + 5


def test_a_stop_ends_the_rendering_at_once(isolated):
    store = Store(isolated / "probe.db")
    backend = FakeBackend("Monarch", template=LOOPS)
    backend.load()
    runner = Runner(store, backend)
    caught: list[BaseException] = []

    def create():
        try:
            runner.create(family(), RunSettings(samples=3), "fake-model")
        except BaseException as exc:        # noqa: BLE001 - handed to the test thread
            caught.append(exc)

    worker = threading.Thread(target=create)
    worker.start()
    time.sleep(1.0)
    stopped_at = time.monotonic()
    runner.cancel()
    worker.join(timeout=5)
    assert not worker.is_alive() and time.monotonic() - stopped_at < 2
    assert isinstance(caught[0], RunFailed) and "stopped" in str(caught[0])
    assert store.runs() == []


TEMPLATES = [
    "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant:{% endif %}",
    # ChatML
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}",
    # Llama 3 style: bos_token, loop.first, trim
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + "
    "message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}"
    "{% endif %}",
    # Gemma style: a system prompt folded into the first turn, roles checked
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}"
    "{% set first = messages[0]['content'] + '\n\n' %}{% set loop_messages = messages[1:] %}"
    "{% else %}{% set first = '' %}{% set loop_messages = messages %}{% endif %}"
    "{% for message in loop_messages %}{% if (message['role'] == 'user') != "
    "(loop.index0 % 2 == 0) %}{{ raise_exception('roles must alternate') }}{% endif %}"
    "<start_of_turn>{{ 'model' if message['role'] == 'assistant' else message['role'] }}\n"
    "{{ (first if loop.first else '') + message['content'] | trim }}<end_of_turn>\n"
    "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}",
    # tojson, namespace, loop controls, a generation block
    "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
    "{% if m.role == 'system' %}{% continue %}{% endif %}{{ m | tojson }}{% endfor %}"
    "{% generation %}[{{ ns.n }}]{% endgeneration %}{{ eos_token }}",
]


@pytest.mark.parametrize("template", TEMPLATES)
def test_the_box_renders_as_transformers_does(tiny_chat_model, template):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_chat_model), local_files_only=True)
    tok.chat_template = template
    for messages in ([{"role": "user", "content": "Which butterfly? é \"q\" \n x"}],
                     [{"role": "system", "content": "Be brief."},
                      {"role": "user", "content": "Which one?"}]):
        expected = tok.apply_chat_template(messages, tokenize=False,
                                           add_generation_prompt=True)
        got = render(ChatTemplate(template, "tiny", dict(tok.special_tokens_map)), [messages])
        assert got == [expected]


def _hostile_model(tiny_chat_model, isolated, template: str):
    model = isolated / "hostile-model"
    shutil.copytree(tiny_chat_model, model)
    (model / "chat_template.jinja").write_text(template, encoding="utf-8")
    return model


@pytest.mark.slow
def test_probe_run_with_a_hostile_template_says_one_sentence_and_stores_nothing(
        tiny_chat_model, isolated):
    source, _ = HOSTILE["refusal"]
    model = _hostile_model(tiny_chat_model, isolated, source)
    out = subprocess.run([*PROBE, "run", FAMILIES / "butterfly.toml", "--model", model,
                          "--samples", "2"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("probe: the chat template of hostile-model refused the prompt")
    assert "Traceback" not in out.stderr and not any(first_unsafe(c) for c in last)
    with sqlite3.connect(isolated / "probe.db") as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


@pytest.mark.slow
def test_sigterm_while_a_template_loops_ends_probe_and_its_box(tiny_chat_model, isolated):
    model = _hostile_model(tiny_chat_model, isolated, LOOPS)
    proc = subprocess.Popen([*PROBE, "run", FAMILIES / "butterfly.toml", "--model", model,
                             "--samples", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    box = _wait_for_box(str(model.parent), 240)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=5)                    # gone within seconds, not minutes
    deadline = time.monotonic() + 5
    while _alive(box) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(box), "the template's process outlived probe"


def _wait_for_box(marker: str, timeout: float) -> int:
    """The pid of a template box started by a probe whose model lies under ``marker``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
                parent = open(f"/proc/{pid}/stat").read().split(") ")[1].split()[1]
                parent_cmd = open(f"/proc/{parent}/cmdline", "rb").read().decode(
                    errors="replace")
            except OSError:
                continue
            if "template_child.py" in cmd and marker in parent_cmd:
                return int(pid)
        time.sleep(0.1)
    raise AssertionError("no template box started")


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().split(") ")[1].split()[0]
    except OSError:
        return False
    return state != "Z"


BUSY = """
import signal, sys, time
from probe.cli_run import graceful_interrupt
import jinja2
cancelled = []
with graceful_interrupt(lambda: cancelled.append(1), lambda: bool(cancelled), grace=2):
    print("ready", flush=True)
    # Code that never looks at the cancel flag: a template rendered in this process.
    jinja2.Template("{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}"
                    "{% endfor %}").render()
"""


@pytest.mark.parametrize("signals", [1, 2])
def test_a_run_busy_in_jinja_still_ends_after_the_grace_period_or_a_second_signal(
        isolated, signals):
    proc = subprocess.Popen([sys.executable, "-c", BUSY], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    if signals == 2:
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=15)
    took = time.monotonic() - start
    if signals == 1:
        assert proc.returncode == 130 and "within 2 s" in err, err
        assert 1.5 < took < 6
    else:
        assert proc.returncode != 0 and took < 2


def test_an_auto_map_naming_a_missing_class_is_one_sentence(tiny_model, isolated):
    model = isolated / "remote-code"
    shutil.copytree(tiny_model, model)
    config = json.loads((model / "config.json").read_text())
    config["auto_map"] = {"AutoModelForCausalLM": "modeling_odd.OddForCausalLM"}
    (model / "config.json").write_text(json.dumps(config))
    (model / "modeling_odd.py").write_text("VALUE = 1\n")
    env = {**os.environ, "HF_HOME": str(isolated / "hf")}
    out = subprocess.run([*PROBE, "run", FAMILIES / "butterfly.toml", "--model", model,
                          "--samples", "2", "--trust-remote-code"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert out.returncode in (1, 2), out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "Traceback" not in out.stderr, out.stderr
    assert last.startswith("probe: ") and "remote-code" in last and "OddForCausalLM" in last


GEMMA = ("{{ bos_token }}{% for message in messages %}<start_of_turn>"
         "{{ 'model' if message['role'] == 'assistant' else message['role'] }}\n"
         "{{ message['content'] | trim }}<end_of_turn>\n{% endfor %}"
         "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}")


def _gguf_with_template(default_gguf, folder, template: str):
    """The default model with a chat template in its metadata (gguf's own copy tool)."""
    out = folder / "templated.gguf"
    done = subprocess.run([sys.executable, "-m", "gguf.scripts.gguf_new_metadata",
                           str(default_gguf), str(out), "--chat-template", template, "--force"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.fixture(scope="session")
def templated_gguf(default_gguf, tmp_path_factory):
    return _gguf_with_template(default_gguf, tmp_path_factory.mktemp("gguf"), GEMMA)


def test_the_box_renders_as_llama_cpp_does():
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    for template in (GEMMA, *TEMPLATES[:3]):
        messages = [{"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Which butterfly?"}]
        if "roles must alternate" in template:
            messages = messages[1:]
        expected = Jinja2ChatFormatter(template, eos_token="<eos>", bos_token="<bos>")(
            messages=messages).prompt
        got = render(ChatTemplate(template, "m", {"eos_token": "<eos>", "bos_token": "<bos>"}),
                     [messages])
        assert got == [expected]


@pytest.mark.slow
def test_a_gguf_chat_template_is_rendered_in_the_box_before_llama_cpp_samples(
        templated_gguf, isolated):
    from probe.backends.llama import LlamaBackend

    store = Store(isolated / "probe.db")
    backend = LlamaBackend(templated_gguf, n_ctx=512)
    backend.load()
    assert backend.has_chat_template
    fam = fam_mod.Family("tiny", "Choose a random popular butterfly.",
                         ["Which butterfly for the card?", "Which one for the garden?"])
    runner = Runner(store, backend)
    outcome = runner.execute(runner.create(fam, RunSettings(samples=2, max_tokens=4),
                                           "templated"))
    assert outcome.status == "finished" and outcome.samples_used == 4
    prompts = {s.prompt for s in store.samples(outcome.run_id)}
    assert "<start_of_turn>user\nWhich butterfly for the card?" in "".join(prompts)
    assert all(p.endswith("<start_of_turn>model\n") for p in prompts)
    backend.close()


@pytest.mark.slow
def test_a_hostile_gguf_template_is_one_sentence(default_gguf, isolated):
    model = _gguf_with_template(default_gguf, isolated, HOSTILE["doubling namespace"][0])
    out = subprocess.run([*PROBE, "run", FAMILIES / "butterfly.toml", "--model", model,
                          "--samples", "2"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith(
        "probe: the chat template of templated.gguf needed more than")
