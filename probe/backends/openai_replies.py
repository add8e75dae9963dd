"""Reading an OpenAI-compatible completion: the texts and the token count, or one sentence
naming the server when the reply is not shaped like one."""

from __future__ import annotations

from probe.errors import RunFailed
from probe.reading import clean_text


def completion_texts(reply, mode: str, server: str) -> tuple[list[str], int]:
    """``choices[].message.content`` (chat; a refusal's ``refusal`` when content is null)
    or ``choices[].text``, and ``usage.completion_tokens``."""
    bad = RunFailed(f"server at {server} answered with a malformed completion (expected "
                    "choices[].message.content or choices[].text, and usage with integer "
                    "token counts).")
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        raise bad
    if not choices:
        raise RunFailed(f"server at {server} answered with no completion (an empty "
                        "'choices' list).")
    texts = []
    for c in choices:
        if mode == "chat":
            msg = c.get("message")
            if not isinstance(msg, dict):
                raise bad
            text = msg.get("content")
            if text is None:            # a refusal comes as {content: null, refusal}
                text = msg.get("refusal")
        else:
            text = c.get("text")
        if not isinstance(text, str):
            raise bad
        texts.append(clean_text(text))
    usage = reply.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise bad
    tokens = (usage or {}).get("completion_tokens") or 0
    if isinstance(tokens, bool) or not isinstance(tokens, int) or not 0 <= tokens < 2 ** 31:
        raise bad
    return texts, tokens
