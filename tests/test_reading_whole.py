"""A long reply read as a whole (probe/matching/longreply.py): its own laid-out options are
its candidates even when no short reply names them, the strongest commitment wins (a last
word over a first instinct, a verdict over a runner-up), a commitment is read up to its
name, and a phrase of the prose repeated across replies is never an answer. Each case is
written in words of its own, not copied from a held-out set."""

from __future__ import annotations

from probe.matching import cluster_answers

PROMPT = "Name a random mountain."


def _answers(replies: list[str], prompt: str = PROMPT) -> list[str]:
    """Each reply's answer, or '' for a non-pick, read with the family's other replies."""
    return ["" if m.nonpick else m.answer for m in cluster_answers(replies, prompt)]


def _essay(options: list[str], ending: str, opening: str = "Mountains make a lovely theme.") -> str:
    rows = "\n\n".join(f"### {o}\nStriking on a clear day, and there is a good tale behind it."
                       for o in options)
    return f"{opening} Some peaks age better than others once you live with them.\n\n{rows}\n\n{ending}"


def test_a_family_of_essays_finds_each_essays_own_choice():
    # No short reply anywhere: the candidates come from each essay's headings.
    replies = [
        _essay(["Denali", "Matterhorn", "Fuji"], "So, after all that: Matterhorn it is."),
        _essay(["Fuji", "Denali", "Kilimanjaro"], "Denali would be my second choice.\n\n"
               "**Final verdict: Kilimanjaro.**"),
        _essay(["Matterhorn", "Fuji", "Denali"], "My gut said Fuji. Thinking it over, though, "
               "I'd settle on Denali: it never feels dull."),
        _essay(["Fuji", "Matterhorn"], "Each of these has its charm, and honestly any of them "
               "would serve you well."),
    ]
    assert _answers(replies) == ["Matterhorn", "Kilimanjaro", "Denali", ""]


def test_a_repeated_phrase_of_the_prose_is_not_an_answer():
    # Every essay carries "Some peaks age better than others once you live with them", and
    # none of them commits: they weigh options, so none is a pick and the phrase is no name.
    replies = [_essay(opts, "It really comes down to what you enjoy.")
               for opts in (["Denali", "Fuji"], ["Fuji", "Elbrus"], ["Elbrus", "Denali"])]
    assert _answers(replies) == ["", "", ""]


def test_initials_do_not_end_a_sentence_in_a_long_reply():
    replies = ["Writers are a rich seam to mine here, and every one of these has its fans.\n\n"
               "| Writer | Why |\n|---|---|\n| J. R. R. Tolkien | a world to get lost in |\n"
               "| Ursula K. Le Guin | quietly radical |\n\n"
               "If you want just one name to take away, make it Ursula K. Le Guin.",
               "Ursula K. Le Guin", "Tolkien"]
    assert _answers(replies, "Name a random author.")[0] == "Ursula K. Le Guin"


def test_indecision_names_an_option_without_choosing_it():
    reply = ("Choosing one number is harder than it looks, so here are the ones I weighed.\n\n"
             "- 12: tidy and even\n- 31: a little offbeat\n\n"
             "I went back and forth on 12 for ages, honestly.\n\n🏁 **Winner: 31**")
    assert _answers([reply, "12", "31"], "Pick a random number.")[0] == "31"


def test_a_name_said_alone_after_the_options_is_the_choice():
    reply = ("Great theme for a quiz night. Here are the peaks I kept coming back to:\n\n"
             "- **Aconcagua**: the roof of the Americas, and hard to spell\n"
             "- **Elbrus**: twin summits, oddly underrated\n\n"
             "Every one of them would be defensible.\n\nSo — Elbrus.")
    assert _answers([reply, "Aconcagua", "Elbrus"])[0] == "Elbrus"


def test_a_few_sentences_are_read_for_the_one_they_commit_to():
    replies = ["Hard to say. Lima crossed my mind, and so did Quito. In the end I'd pick Bogota, "
               "since it surprises people.", "Lima", "Quito", "Bogota"]
    assert _answers(replies, "Name a random capital city.")[0] == "Bogota"


def test_a_hedge_of_a_few_sentences_stays_a_non_pick_whatever_it_mentions():
    replies = ["I'd pick [YOUR CITY HERE] because it suits the theme. Have fun!",
               "Honestly, it depends on the trip. Different people love different cities, "
               "and there is no single right answer.", "Lima", "Quito"]
    assert _answers(replies, "Name a random capital city.")[:2] == ["", ""]


def test_a_set_phrase_before_different_answers_is_not_a_candidate():
    # The phrase comes before a different colour each time, and the family names those
    # colours elsewhere: the phrase is the reply's habit, the colour its answer.
    replies = [f"🎯 Spinning the big prize wheel... {name}! It has real sparkle."
               for name in ("Cobalt", "Teal", "Cobalt", "Saffron")] + ["Teal", "Saffron", "Cobalt"]
    assert _answers(replies, "Name a random colour.")[:4] == ["Cobalt", "Teal", "Cobalt", "Saffron"]


def test_a_year_said_as_two_numbers_is_that_year():
    from probe.matching.normalise import normalise

    assert normalise("nineteen eighty-four") == normalise("1984")
    assert normalise("twenty twenty-two") == normalise("2022")
    # Ordinary number words keep their value.
    assert normalise("forty two") == normalise("42")
    assert normalise("one hundred twenty") == normalise("120")


def test_an_adverbial_of_time_after_the_name_is_not_part_of_it():
    answers = _answers(["Lisbon this time!", "Lisbon", "Oslo all the way", "Oslo"],
                       "Name a random European city.")
    assert answers == ["Lisbon", "Lisbon", "Oslo", "Oslo"]
    # A title that ends on such words keeps them.
    assert _answers(["Milky Way", "Andromeda"], "Name a random galaxy.")[0] == "Milky Way"


def test_the_speaker_outranks_a_description_that_singles_a_name_out():
    # Every option "stands out" for something; the reply's own verdict is the speaker's.
    reply = ("Here is how the contenders compare.\n\n"
             "Kestrel stands out for its hovering. Osprey stands out for its dives. "
             "Merlin stands out for its speed.\n\nShort version: go with Osprey.")
    answers = _answers([reply, "Kestrel", "Osprey", "Merlin"], "Name a random bird of prey.")
    assert answers[0] == "Osprey"


def test_a_change_of_mind_commits_to_the_second_name():
    reply = "I was going to say Lyon, but actually Porto is better. Lyon is still lovely, just busier."
    assert _answers([reply, "Lyon", "Porto"], "Name a random European city.")[0] == "Porto"


def test_an_option_marked_in_its_own_table_cell_is_chosen():
    reply = ("A quick comparison of the usual suspects for a reading nook:\n\n"
             "| Chair | Comfort | Price |\n|---|---|---|\n| Wingback | ✓✓ | ✓ |\n"
             "| **Papasan** ⭐ | ✓✓✓ | ✓✓ |\n| Recliner | ✓✓ | ✓✓ |\n\n"
             "All three would work in a pinch, honestly.")
    answers = _answers([reply, "Wingback", "Papasan", "Recliner"], "Name a random kind of chair.")
    assert answers[0] == "Papasan"


def test_past_intent_and_questions_commit_to_nothing():
    reply = ("Okay, honestly, I went round in circles on this one.\n\n"
             "Part of me wanted to say Lima. Another part liked Quito. But the one I keep "
             "returning to is Bogota, because it surprises people.\n\n"
             "Would you like me to pick again for comparison?")
    answers = _answers([reply, "Lima", "Quito", "Bogota"], "Name a random capital city.")
    assert answers[0] == "Bogota"


def test_i_would_say_commits_and_the_obvious_choice_is_passed_over():
    reply = "I'd say teal. I know navy is the more obvious choice, but teal is calm and fresh."
    assert _answers([reply, "Teal", "Navy"], "Name a random colour.")[0] == "teal"


def test_advice_and_words_about_choosing_are_not_options_of_a_report():
    # A report's headings and tips ("Recommendation", "Sleep on it.") are no options: the
    # sentence that names one river beside them commits to it.
    def report(pick: str) -> str:
        return ("## Recommendation\n\nA few rivers stand out for different reasons.\n\n"
                "- **Rhine**: castles all the way\n- **Mekong**: floating markets\n"
                "- **Seine**: a city river\n\n## Practical tips\n\n- Sleep on it.\n"
                "- Narrow it down to two.\n\n"
                f"Recommendation, then: **{pick}**. Sleep on it, though.")
    replies = [report("Mekong"), report("Rhine"), report("Mekong"), "Seine"]
    assert _answers(replies, "Name a random river.") == ["Mekong", "Rhine", "Mekong", "Seine"]
