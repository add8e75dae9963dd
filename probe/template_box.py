"""Chat templates in a box: a model's template is code that came with the model, rendered
before sampling in a separate process under a time, memory and output-size limit.

Jinja's sandbox keeps a template from reaching files or Python internals, but not from
running ``range(99999)`` inside ``range(99999)`` for hours or building ``'x' * 10**9``.
Here a template that loops, grows or refuses costs at most ``TEMPLATE_TIMEOUT_S`` seconds
and ``TEMPLATE_MEMORY_BYTES`` of memory in a child process, is stopped at once on a
cancel, and ends as one sentence naming the model. The child (probe/template_child.py)
imports nothing of probe and runs with ``python -I``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from probe.errors import BadInput, RunFailed
from probe.limits import (MAX_CHAT_TEMPLATE_BYTES, MAX_TEMPLATE_OUTPUT_BYTES,
                          TEMPLATE_MEMORY_BYTES, TEMPLATE_TIMEOUT_S)
from probe.reading import shown

CHILD = Path(__file__).with_name("template_child.py")
# Conversations per child: a family of 1,000 long framings is rendered in a few boxes,
# each with its own time budget, rather than one request of a hundred megabytes.
_CHUNK_BYTES = 4 << 20


class Stopped(RunFailed):
    """Rendering was cancelled (Ctrl-C, SIGTERM, the app's stop key)."""


@dataclass(frozen=True)
class ChatTemplate:
    """A model's chat template and the values it is rendered with (its special tokens)."""

    source: str
    model: str
    context: dict = field(default_factory=dict, hash=False, compare=False)

    def check(self) -> "ChatTemplate":
        if not isinstance(self.source, str):
            raise BadInput(f"the chat template of {self.model} is not text.")
        size = len(self.source.encode("utf-8", "surrogatepass"))
        if size > MAX_CHAT_TEMPLATE_BYTES:
            raise BadInput(f"the chat template of {self.model} is {size:,} bytes, more than "
                           f"the limit of {MAX_CHAT_TEMPLATE_BYTES:,}; use --base.")
        return self


def _why(kind: str, detail: str) -> str:
    return {
        "syntax": f"is not a valid template ({shown(detail, 200)})",
        "refused": f"refused the prompt: {shown(detail, 300)}",
        "too_long": (f"rendered more than {MAX_TEMPLATE_OUTPUT_BYTES:,} bytes beyond the "
                     "prompt it was given"),
        "memory": f"needed more than {TEMPLATE_MEMORY_BYTES >> 20} MiB of memory",
        "recursion": "recursed too deeply",
        "forbidden": f"tried something Jinja's sandbox forbids ({shown(detail, 200)})",
        "timeout": f"did not finish within {TEMPLATE_TIMEOUT_S:g} s",
    }.get(kind, f"failed ({shown(detail, 300)})")


def failure(template: ChatTemplate, kind: str, detail: str = "") -> BadInput:
    return BadInput(f"the chat template of {template.model} {_why(kind, detail)}; probe "
                    "stopped it before sampling (--base prompts without it).")


def render(template: ChatTemplate, conversations: list[list[dict]],
           cancelled: threading.Event | None = None) -> list[str]:
    """Each conversation rendered with ``add_generation_prompt``, in order; BadInput for a
    template that fails or passes a limit, ``Stopped`` when ``cancelled`` is set."""
    template.check()
    out: list[str] = []
    chunk: list[list[dict]] = []
    size = 0
    for conversation in conversations:
        weight = len(json.dumps(conversation, ensure_ascii=False))
        if chunk and size + weight > _CHUNK_BYTES:
            out += _render_in_child(template, chunk, cancelled)
            chunk, size = [], 0
        chunk.append(conversation)
        size += weight
    if chunk:
        out += _render_in_child(template, chunk, cancelled)
    return out


def _limit(conversation: list[dict]) -> int:
    """What one rendering may come to: the messages themselves, plus what the template
    adds (role markers, a default system prompt), at most ``MAX_TEMPLATE_OUTPUT_BYTES``."""
    text = sum(len(str(m.get("content", "")).encode("utf-8", "surrogatepass"))
               for m in conversation)
    return text + MAX_TEMPLATE_OUTPUT_BYTES


def _render_in_child(template: ChatTemplate, conversations: list[list[dict]],
                     cancelled: threading.Event | None) -> list[str]:
    request = json.dumps({
        "template": template.source, "context": template.context,
        "conversations": conversations, "limits": [_limit(c) for c in conversations],
        "memory_bytes": TEMPLATE_MEMORY_BYTES, "cpu_seconds": int(TEMPLATE_TIMEOUT_S) + 1,
    }, ensure_ascii=False).encode("utf-8", "surrogatepass")
    # Its own session: a Ctrl-C meant for probe reaches probe, which stops the child.
    proc = subprocess.Popen([sys.executable, "-I", str(CHILD)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + TEMPLATE_TIMEOUT_S
    pending: bytes | None = request
    try:
        while True:
            try:
                raw, _ = proc.communicate(pending, timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pending = None
                if cancelled is not None and cancelled.is_set():
                    raise Stopped("stopped while the chat template was rendered.") from None
                if time.monotonic() > deadline:
                    raise failure(template, "timeout") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    try:
        answer = json.loads(raw) if raw else {}
    except ValueError:
        answer = {}
    if "rendered" in answer and len(answer["rendered"]) == len(conversations):
        return answer["rendered"]
    if "error" in answer:
        raise failure(template, answer["error"], str(answer.get("detail", "")))
    if proc.returncode < 0:       # killed by the CPU-time cap (or the kernel, for memory)
        raise failure(template, "timeout")
    raise failure(template, "failed", f"the renderer exited with code {proc.returncode}")
