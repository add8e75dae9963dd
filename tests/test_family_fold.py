"""What a family file may hold: characters that draw nothing (variation selectors, the
combining grapheme joiner, Hangul fillers, the Braille blank…) neither make two framings
different nor a question non-empty; and an answers table has bounded size, refused in one
sentence before the matcher reads it."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

from probe import family as fam_mod
from probe.errors import BadInput
from probe.limits import MAX_ALIASES, MAX_ALIASES_PER_ANSWER
from probe.textfold import INVISIBLE, fold, is_blank

BASE = "Which fruit should the bakery put on its new tart?"
# One of each kind of character that shows nothing, or only a blank.
INVISIBLES = ["\ufe0f", "\ufe00", "\U000e0100", "\U000e01ef", "\u034f", "\u3164", "\uffa0",
              "\u115f", "\u1160", "\u2800", "\u180b", "\u200b", "\u2060", "\u2064", "\u17b4",
              "\U000e0041", "\u00ad", "\ufeff", "\U0001d173"]


def _write(tmp_path, direct: str, framings: list[str], extra: str = ""):
    path = tmp_path / "f.toml"
    path.write_text(f"direct = {json.dumps(direct, ensure_ascii=False)}\n"
                    f"framings = {json.dumps(framings, ensure_ascii=False)}\n"
                    + extra, encoding="utf-8")
    return path


@pytest.mark.parametrize("mark", INVISIBLES, ids=lambda c: f"U+{ord(c):04X}")
def test_framings_that_differ_by_an_invisible_character_are_one_framing(tmp_path, mark):
    twin = BASE.replace(" new ", f" new {mark}").replace("fruit", f"fr{mark}uit")
    path = _write(tmp_path, "Name a random fruit.", [BASE, twin])
    with pytest.raises(BadInput, match="framing 2 duplicates framing 1"):
        fam_mod.load(path)


@pytest.mark.parametrize("mark", INVISIBLES, ids=lambda c: f"U+{ord(c):04X}")
def test_a_question_of_invisible_characters_is_empty(tmp_path, mark):
    with pytest.raises(BadInput, match="'direct' is empty"):
        fam_mod.load(_write(tmp_path, mark * 3 + " ", ["Which fruit?"]))
    with pytest.raises(BadInput, match="framing 2 is empty"):
        fam_mod.load(_write(tmp_path, "Name a fruit.", ["Which fruit?", f" {mark}{mark}"]))


def test_a_name_holding_an_invisible_character_is_refused_and_shown(tmp_path):
    path = tmp_path / "f.toml"
    path.write_text('name = "fr\u3164uit"\ndirect = "Name a fruit."\nframings = ["Which?"]\n',
                    encoding="utf-8")
    with pytest.raises(BadInput, match=r"fr\\u3164uit.* is not allowed"):
        fam_mod.load(path)


def test_visible_text_keeps_its_meaning():
    assert fold("Ｗｈｉｃｈ  FRUIT?") == "which fruit?"
    assert fold("café") == fold("cafe\u0301")
    assert not is_blank("蝶") and not is_blank("a\u200b") and is_blank(" \u2800\t\ufe0f")
    assert fold("👍🏽") != fold("👍")          # a skin tone modifier is not invisible


def test_every_format_character_that_draws_nothing_is_invisible():
    # Format characters that are visible marks (Arabic number signs, Egyptian hieroglyph
    # controls, interlinear annotation) are not default-ignorable; all others are.
    shown = {*range(0x600, 0x606), 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD,
             *range(0x13430, 0x13441), *range(0x13441, 0x13456), 0xFFF9, 0xFFFA, 0xFFFB}
    missing = [f"U+{c:04X}" for c in range(sys.maxunicode + 1)
               if unicodedata.category(chr(c)) == "Cf" and c not in shown
               and not INVISIBLE.match(chr(c))]
    assert not missing


def _answers(groups: int, per: int) -> str:
    lines = ["", "[answers]"]
    lines += [f"{json.dumps(f'Fruit {g}')} = {json.dumps([f'alias {g}-{k}' for k in range(per)])}"
              for g in range(groups)]
    return "\n".join(lines) + "\n"


def test_an_answers_table_at_the_limits_loads(tmp_path):
    per = MAX_ALIASES_PER_ANSWER
    groups = MAX_ALIASES // (per + 1)
    fam = fam_mod.load(_write(tmp_path, "Name a fruit.", ["Which?"], _answers(groups, per)))
    assert sum(1 + len(v) for v in fam.answers.values()) <= MAX_ALIASES


def test_too_many_aliases_in_all_are_one_sentence(tmp_path):
    path = _write(tmp_path, "Name a fruit.", ["Which?"], _answers(MAX_ALIASES // 10 + 1, 9))
    with pytest.raises(BadInput) as err:
        fam_mod.load(path)
    assert f"more than the limit of {MAX_ALIASES:,} in a family" in str(err.value)
    assert str(path) in str(err.value)


def test_too_many_aliases_for_one_answer_name_it(tmp_path):
    path = _write(tmp_path, "Name a fruit.", ["Which?"],
                  _answers(1, MAX_ALIASES_PER_ANSWER + 1))
    with pytest.raises(BadInput, match=f"answers.Fruit 0 lists {MAX_ALIASES_PER_ANSWER + 1:,} "
                                       "aliases, more than the limit"):
        fam_mod.load(path)
