"""Family files: load, validate, save, and every malformed case named clearly."""

import pytest

from conftest import FAMILIES
from probe import family as fam
from probe.errors import BadInput


def test_every_bundled_family_loads_with_about_30_framings():
    found = fam.discover(FAMILIES)
    assert len(found) >= 6
    for path, f in found:
        assert isinstance(f, fam.Family), f
        assert 25 <= len(f.framings) <= 40, path


def test_round_trip_keeps_everything(tmp_path):
    original = fam.load(FAMILIES / "butterfly.toml")
    original.answers["Blue Morpho"] = ["Morpho peleides", 'a "quoted" alias\\']
    out = fam.save(original, tmp_path / "copy.toml")
    again = fam.load(out)
    assert again.to_dict() == original.to_dict()
    assert again.content_hash() == original.content_hash()


def write(tmp_path, text, name="f.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("text, fragment", [
    ('direct = "x"\nframings = ["a"\n', "invalid TOML"),
    ('direct = "x"\nframings = ["a"]\ncolour = "red"\n', "line 3: unknown key 'colour'"),
    ('framings = ["a"]\n', "missing 'direct'"),
    ('direct = "  "\nframings = ["a"]\n', "line 1: 'direct' is empty"),
    ('direct = "x"\n', "missing 'framings'"),
    ('direct = "x"\nframings = []\n', "'framings' is empty"),
    ('direct = "x"\nframings = ["a", "b", "A "]\n', "framing 3 duplicates framing 1"),
    ('direct = 3\nframings = ["a"]\n', "'direct' must be a string"),
    ('direct = "x"\nframings = "a"\n', "'framings' must be a list"),
    ('direct = "x"\nframings = ["a", 2]\n', "framing 2 must be a string"),
    ('direct = "x"\nframings = ["a", ""]\n', "framing 2 is empty"),
    ('direct = "x"\nframings = ["a"]\n[answers]\nA = ["b"]\nB = ["b"]\n', "listed under both"),
    ('name = "../../etc/x"\ndirect = "x"\nframings = ["a"]\n', "is not allowed"),
])
def test_malformed_files_name_the_problem(tmp_path, text, fragment):
    with pytest.raises(BadInput) as err:
        fam.load(write(tmp_path, text))
    assert fragment in str(err.value)
    assert "f.toml" in str(err.value)


def test_binary_and_missing_files(tmp_path):
    p = tmp_path / "bin.toml"
    p.write_bytes(b"\xff\xfe\x00\x01garbage")
    with pytest.raises(BadInput, match="not UTF-8"):
        fam.load(p)
    with pytest.raises(BadInput, match="no such family file"):
        fam.load(tmp_path / "missing.toml")


def test_too_many_framings_is_rejected(tmp_path):
    items = ", ".join(f'"scenario {i}"' for i in range(10_000))
    with pytest.raises(BadInput, match="more than the limit"):
        fam.load(write(tmp_path, f'direct = "x"\nframings = [{items}]\n'))


@pytest.mark.parametrize("name", ["../evil", "/etc/passwd", "a/b", ".hidden", "x" * 100, ""])
def test_family_names_cannot_escape_the_families_folder(tmp_path, name):
    with pytest.raises(BadInput):
        fam.path_for(name, tmp_path)


def test_path_for_stays_inside(tmp_path):
    p = fam.path_for("My Bias Family", tmp_path)
    assert p.parent == tmp_path.resolve() and p.name == "my-bias-family.toml"


def test_manual_merge_and_split_edit_the_answers_table():
    f = fam.Family("b", "Choose a random butterfly", ["a"])
    f.add_alias("Monarch", "monarch butterfly")
    f.add_alias("Monarch", "King Billy")
    assert f.answers == {"Monarch": ["monarch butterfly", "King Billy"]}
    f.add_canonical("King Billy")
    assert f.answers == {"Monarch": ["monarch butterfly"], "King Billy": []}


@pytest.mark.parametrize("first, second", [
    ("Which café should we pick?", "Which cafe\u0301 should we pick?"),       # NFC vs NFD
    ("Which one for the card?", "Which one for\u200b the card?"),            # zero-width space
    ("Which one for the card?", "Which one for the ca\u200drd?"),            # zero-width joiner
    ("Which one for the card?", "\ufeffWhich one for the card?"),            # U+FEFF
    ("Which one for the card?", "Ｗｈｉｃｈ ｏｎｅ ｆｏｒ ｔｈｅ ｃａｒｄ？"),    # fullwidth
    ("Which one for the card?", "Which one for the card?\u200e"),            # LRM
    ("Which one for the card?", "Which one\u00a0for the\u3000card?"),        # odd spaces
    ("Which one for the card?", "Which one for the ca\u00adrd?"),            # soft hyphen
    ("Which fish for the tank?", "Which ﬁsh for the tank?"),                 # ligature
    ("Which STRASSE should I walk?", "Which straße should I walk?"),         # casefold
    ("Which one for\tthe card?", "which  one for the\u2028card?"),           # tab, U+2028
])
def test_framings_that_differ_only_invisibly_are_duplicates_naming_both_lines(
        tmp_path, first, second):
    import json

    text = (f'direct = "Choose a random thing."\nframings = [\n  {json.dumps(first)},\n'
            f'  "Something else entirely?",\n  {json.dumps(second)},\n]\n')
    with pytest.raises(BadInput) as err:
        fam.load(write(tmp_path, text))
    message = str(err.value)
    assert "line 5: framing 3 duplicates framing 1 on line 3" in message, message
    assert "f.toml" in message


def test_duplicate_lines_are_found_in_any_toml_string_form(tmp_path):
    text = ("direct = 'x'\nframings = [ # the scenarios\n  '''multi\nline''', \"a \\\"q\\\" b\",\n"
            "  # a comment [with a bracket]\n  'lit', \"\"\"\nmulti\nline\"\"\",\n]\n")
    with pytest.raises(BadInput, match="line 6: framing 4 duplicates framing 1 on line 3"):
        fam.load(write(tmp_path, text))


def test_framings_that_only_look_alike_are_two():
    family = fam.validate({"name": "t", "direct": "x", "framings": ["Which one?", "Which one!",
                                                        "Which 1?", "Whích one?"]})
    assert len(family.framings) == 4
