"""What is sent to the model: the answer instruction, chat messages, base-mode prompts."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

INSTRUCTION = ("Answer with exactly one option in 1-3 words and nothing else: "
               "no explanation, no punctuation.")
# `--answer-format braces`: the answer inside curly braces, read exactly (and, on servers
# that can constrain decoding, forced with BRACES_REGEX).
BRACES_INSTRUCTION = ("Answer with exactly one option in 1-3 words inside curly braces, "
                      "like {your answer}, and nothing else.")
BRACES_REGEX = r"\{[^{}\n]{1,80}\}"
ANSWER_FORMATS = ("words", "braces")

# Solved examples for base models, from domains unrelated to most families. Small base
# models answer a bare "Q:/A:" prompt with rambling sentences; three of these first made
# Gemma 3 270M give one-to-three-word answers (DESIGN.md), and five give the fewest
# non-picks on the bundled families (benchmarks/base_prompts.py: 19% of answers, against 27%
# with three and 46-48% with none).
SHOT_POOL: list[tuple[str, str]] = [
    ("Choose a random kitchen tool.", "Whisk"),
    ("Choose a random board game.", "Chess"),
    ("Choose a random musical instrument.", "Violin"),
    ("Choose a random ocean.", "Pacific"),
    ("Choose a random vehicle.", "Bicycle"),
    ("Choose a random flower.", "Tulip"),
    ("Choose a random planet.", "Mars"),
    ("Choose a random piece of furniture.", "Armchair"),
    ("Choose a random sport.", "Tennis"),
    ("Choose a random fruit.", "Mango"),
]
_FUNCTION_WORDS = {"choose", "a", "an", "the", "random", "of", "piece", "type", "kind", "to",
                   "for", "and", "or", "in", "on", "from", "between", "popular", "famous"}


def _content_words(text: str) -> set[str]:
    words = set(re.findall(r"[a-z]+", text.casefold())) - _FUNCTION_WORDS
    # Compare singular forms so "tools" and "tool" clash.
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words}


def pick_shots(direct: str, k: int = 5) -> list[tuple[str, str]]:
    """``k`` solved examples sharing no content word with the family's direct prompt."""
    avoid = _content_words(direct)
    chosen = []
    for q, a in SHOT_POOL:
        if len(chosen) == k:
            break
        if not (_content_words(q) | _content_words(a)) & avoid:
            chosen.append((q, a))
    return chosen


@dataclass
class PromptStyle:
    """How prompts are rendered for one run; stored with the run."""

    mode: str = "base"                # "base" (Q:/A: completion) or "chat"
    instruction: str = INSTRUCTION
    shots: list[tuple[str, str]] = field(default_factory=list)
    system: str | None = None
    answer_format: str = "words"      # "words" (1-3 words) or "braces" ({answer})

    def to_dict(self) -> dict:
        d = asdict(self)
        d["shots"] = [list(s) for s in self.shots]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "PromptStyle":
        return cls(mode=d.get("mode", "base"), instruction=d.get("instruction", INSTRUCTION),
                   shots=[tuple(s) for s in d.get("shots", [])], system=d.get("system"),
                   answer_format=d.get("answer_format", "words"))

    def base_prompt(self, prompt: str) -> str:
        line = f"{self.instruction}\n" if self.instruction else ""
        braces = self.answer_format == "braces"
        parts = [f"Q: {q}\n{line}A: {'{' + a + '}' if braces else a}\n\n" for q, a in self.shots]
        parts.append(f"Q: {prompt}\n{line}A:")
        return "".join(parts)

    def messages(self, prompt: str) -> list[dict]:
        msgs = []
        if self.system:
            msgs.append({"role": "system", "content": self.system})
        msgs.append({"role": "user", "content": f"{prompt}\n\n{self.instruction}"})
        return msgs

    def stop(self) -> list[str]:
        return ["\n"] if self.mode == "base" else []


def style_for(direct: str, chat_capable: bool, force_base: bool, shots: int,
              system: str | None, answer_format: str = "words") -> PromptStyle:
    """Chat models get one user message; base models (or ``--base``) get Q:/A: with shots.
    ``answer_format="braces"`` asks for the answer inside {braces}."""
    instruction = BRACES_INSTRUCTION if answer_format == "braces" else INSTRUCTION
    if chat_capable and not force_base:
        return PromptStyle(mode="chat", system=system, instruction=instruction,
                           answer_format=answer_format)
    return PromptStyle(mode="base", shots=pick_shots(direct, shots), instruction=instruction,
                       answer_format=answer_format)
