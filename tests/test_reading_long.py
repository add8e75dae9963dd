"""Long, chatty replies (issue 15, sealed set 6's failure classes, each in words of its own):
the commitment can sit in a later paragraph, after a scene-setting or conceding clause, in a
list item marked as the pick, or inside bold text with the next sentence run on; a verb
with its pronoun ("Adore it!") is a remark, not an answer."""

from __future__ import annotations

import pytest

from probe.matching import Canonicalizer, cluster_answers, extract


def _pick(response: str, prompt: str = "Name a random river.") -> str:
    match = Canonicalizer(prompt).add(response)
    return "" if match.nonpick else match.answer


@pytest.mark.parametrize("response, answer", [
    # A clause of choosing after whatever sets it up.
    ("All things considered, I'm going to go with the Loire.", "Loire"),
    ("At the end of the day I'd pick the Okavango.", "Okavango"),
    ("Since you only want one, we'll go with the Mekong.", "Mekong"),
    ("After a lot of back and forth my final answer is the Volga.", "Volga"),
    # The commitment in a later paragraph.
    ("What a fun thing to ponder! I could chat about rivers forever.\n\n"
     "My final answer is **the Danube**.\n\nAnything else I can do?", "Danube"),
    ("Every river has admirers and taste varies a lot, so there is no single best one.\n\n"
     "Still, since you want one, I'll pick **the Rhine**. It's gorgeous at dusk.", "Rhine"),
    # A bold answer with the next sentence run on after it.
    ("**Final pick: Zambezi** Mighty and wild.", "Zambezi"),
    # A list with one item marked as the choice.
    ("A few ideas:\n- Nile\n- Amazon (my pick)\n- Yangtze", "Amazon"),
    ("Options:\n* Indus\n* Ganges ← my choice\n* Brahmaputra", "Ganges"),
    ("Contenders:\n1. Tagus\n2. Douro ✅\n3. Ebro", "Douro"),
])
def test_the_committed_answer_of_a_long_reply(response, answer):
    assert extract(response) == answer


@pytest.mark.parametrize("response", [
    "Adore it! Choosing a single river is hard.",
    "Honestly, I could chat about rivers forever.",
    "So I understand it right: do you want a famous one or a hidden gem?",
    "Options:\n* Indus\n* Ganges\n* Brahmaputra",         # a list, nothing marked
])
def test_remarks_and_unmarked_lists_are_not_picks(response):
    assert _pick(response) == ""


def test_an_echo_on_its_own_line_gives_way_to_the_choice_after_it():
    assert _pick("Ooh, rivers!\n\nI weighed the Thames and the Seine for a while, but in the "
                 "end I'm going with **the Tiber**. So much history.") == "Tiber"


def test_an_answer_given_alone_first_is_not_replaced_by_a_later_offer():
    # The first line is the answer; the later line is an offer to another kind of user.
    assert extract("Lisbon!\n\nIf you prefer somewhere quieter, I'd go with Porto.") == "Lisbon"
    # A choice after a concession in the same paragraph still wins.
    assert extract("Everyone loves the Nile, but I'll settle on the Congo.") == "Congo"


def test_a_condition_about_choosing_commits_where_offers_to_kinds_of_user_do_not():
    prompt = "Name a random river."
    replies = [
        "If you want grandeur, the Amazon is unbeatable. If you want calm, the Shannon is "
        "lovely. But if you're making me choose just one, I'll say the Mekong.",
        "Mekong", "Mekong", "Amazon", "Shannon",
    ]
    first = cluster_answers(replies, prompt)[0]
    assert not first.nonpick and first.canonical == "Mekong"
    offers = cluster_answers(["If you want grandeur, I'd go with the Amazon. If you want calm, "
                              "I'd go with the Shannon.", "Amazon", "Shannon"], prompt)[0]
    assert offers.nonpick                  # two offers, no commitment: a list


def test_names_that_look_like_clauses_stay_names():
    for title in ("I Love Lucy", "We Will Rock You", "Love Actually"):
        assert extract(title) == title
    assert _pick("Swimming is easy to love!", "Name a hobby.") == "Swimming"


# ------------------------------------------------------------ the same answer, qualified

@pytest.mark.parametrize("qualified, bare, prompt", [
    ("Middlemarch by George Eliot", "Middlemarch", "Name a random novel."),
    ("Yellow by Coldplay", "Yellow", "Name a random song."),
    ("traditional lager", "Lager", "Name a random beer style."),
    ("electric violin", "Violin", "Name a random instrument."),
    ("Mount Olympus", "Olympus", "Name a random mountain."),
    ("Lake Baikal", "Baikal", "Name a random lake."),
    ("Luna Lovegood", "Luna", "Name a random Harry Potter character."),
])
def test_a_credited_or_described_form_joins_the_bare_answer(qualified, bare, prompt):
    matches = cluster_answers([qualified, bare, bare, "Something else entirely"], prompt)
    assert matches[0].cluster == matches[1].cluster


@pytest.mark.parametrize("longer, shorter, prompt", [
    ("Sea otter", "Otter", "Name a random animal."),          # a noun makes another kind
    ("Stand by Me", "Stand", "Name a random song."),           # "by me" credits nobody
    ("Shrek 2", "Shrek", "Name a random movie."),              # numbers never go
])
def test_a_different_thing_that_contains_the_answer_stays_apart(longer, shorter, prompt):
    matches = cluster_answers([longer, shorter, shorter], prompt)
    assert matches[0].cluster != matches[1].cluster


@pytest.mark.parametrize("response, answer", [
    # A change of mind in words ("let me change that to …", "make that …").
    ("Seine! Hmm, no, let me change that to the Loire.", "Loire"),
    ("Tagus. Actually, make that Douro.", "Douro"),
    # A title that opens with a negative contraction is still a title.
    ("Maybe Yellow? No, Can't Stop the Feeling.", "Can't Stop the Feeling"),
    # "It's beautifully made" praises the answer before it; it is not another answer.
    ("I'm going to go with Tubular Bells. It's wonderfully crafted. Enjoy!", "Tubular Bells"),
])
def test_changes_of_mind_titles_and_praise_after_the_answer(response, answer):
    assert extract(response) == answer


# ------------------------------------------------------------ long replies, second round

@pytest.mark.parametrize("response, answer", [
    # A preamble that restates the request or talks about choosing names nothing; the
    # choice comes later, however it is announced.
    ("You'd like me to choose a river for a poem. Gladly! Let me think it through.\n\n"
     "## Verdict\n\nThe Shannon. It sounds like water.", "Shannon"),
    ("Selecting a single river is more interesting than it looks.\n\n"
     "| River | Pro | Con |\n|---|---|---|\n| Nile | Famous | Obvious |\n| Po | Short | Flat |\n\n"
     "So my final answer is the Po.", "Po"),
    ("Options first:\n- Rhône: fast and cold.\n- Saône: slow and green.\n\n"
     "✅ My choice\n\nSaône", "Saône"),
    ("I'll treat this like a little tournament.\n\nIn the end, the Elbe is the one I'd back.",
     "Elbe"),
    ("Let me cross a few off:\n- Tay: a bit bleak.\n- Clyde: too busy.\n\n"
     "That leaves **the Spey**, which is lovely in autumn. That's my pick.", "Spey"),
    ("But if I have to pick one without more to go on, it'd be the Douro.", "Douro"),
    ("Still, you wanted just one, so here it is: the Guadalquivir.", "Guadalquivir"),
    ("Honestly, nothing beats the Dordogne for a slow trip.", "Dordogne"),
    ("Hmm. Thames? Too grey. Severn? Maybe. Wye? Lovely. It has real charm.", "Wye"),
    ("**TL;DR:** Shannon.", "Shannon"),
])
def test_long_replies_second_round(response, answer):
    assert extract(response) == answer


@pytest.mark.parametrize("response", [
    "So many choices!",
    "It has a wonderful history and a calm feel.",
    "I have a real weakness for this kind of question.",
])
def test_remarks_about_the_answer_or_the_choice_name_nothing(response):
    assert _pick(response) == ""


def test_a_long_reply_commits_to_the_candidate_its_own_sentence_chooses():
    # The family's other replies give its candidates; the long one names three of them and
    # commits to one in the first person, with a runner-up and a turned-down option.
    long_reply = (
        "What a lovely thing to ponder for a weekend away. Rivers carry so much history, and "
        "each of these has its own character.\n\n"
        "The Rhine is stunning in places, though it gets crowded. The Danube is grand but a "
        "bit too obvious for this.\n\n"
        "After all of that, the Loire is where I'd settle — the châteaux alone are worth it.\n\n"
        "If you'd prefer something busier, the Rhine would be a fine alternative."
    )
    prompt = "Name a random river."
    matches = cluster_answers([long_reply, "Rhine", "Danube", "Loire", "Loire"], prompt)
    assert not matches[0].nonpick and matches[0].canonical == "Loire"
    # Sentences that only offer or weigh options commit to nothing: still a list.
    weighing = ("Rivers are wonderful to think about, and every one of them has a story.\n\n"
                "The Rhine is stunning. The Danube is grand. The Loire is gentle.\n\n"
                "If you'd prefer busy, try the Rhine; if you'd prefer calm, the Loire.")
    assert cluster_answers([weighing, "Rhine", "Danube", "Loire"], prompt)[0].nonpick


@pytest.mark.parametrize("response, answer", [
    ("For the mural? The Amazon, no question. It photographs well.", "Amazon"),
    ("The first river that comes to mind is the Ganges. It's a classic for a reason.", "Ganges"),
    ("Not the Thames — its banks can feel crowded. I'd pick the Wye instead.", "Wye"),
])
def test_a_context_question_a_described_first_pick_and_a_possessive_remark(response, answer):
    assert extract(response) == answer


@pytest.mark.parametrize("response", [
    "Want a backup option?",
    "People rarely regret choosing it.",
    "It's a genuine crowd-pleaser.",
])
def test_offers_and_remarks_about_the_answer_are_no_second_answer(response):
    assert _pick(response) == ""


def test_a_table_row_offers_and_a_winning_verb_commits():
    reply = ("Happy to weigh these up for a slow weekend by the water.\n\n"
             "| River | Why |\n|---|---|\n| Rhine | a perennial favourite |\n"
             "| Loire | gentle and green |\n\n"
             "I ruled out the Rhine because it feels busy, and the Danube is grand but loud.\n\n"
             "All things considered, the Loire takes it.")
    matches = cluster_answers([reply, "Rhine", "Loire", "Danube", "Loire"], "Name a random river.")
    assert not matches[0].nonpick and matches[0].canonical == "Loire"
    assert _pick("## Picking a river") == ""          # the task as a heading
