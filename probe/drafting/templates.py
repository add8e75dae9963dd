"""The scenario templates that hide a direct question, as the paper's reframings do.

Each template is an everyday situation that needs exactly one member of the category,
then a question. Slots: ``{a_cat}`` ("a number between 1 and 100"), ``{cats}`` ("numbers
between 1 and 100"), ``{noun}`` ("number") and ``{nouns}``; every template names the whole
category (``{a_cat}`` or ``{cats}``) once, so a constraint such as a range always reaches
the model. Written by hand, and kept free of anything that could lean towards an answer:
no digits or number words (a number family would read them as hints), no colours, no
named things, and never "random". ``scene`` groups templates of one kind of situation, so
a family's framings spread over different scenes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    id: str
    scene: str
    text: str


def _t(scene: str, name: str, text: str) -> Template:
    return Template(f"{scene}-{name}", scene, text)


TEMPLATES: tuple[Template, ...] = (
    _t("gift", "mug", "I'm having a mug printed for my brother with {a_cat} on it. "
       "Which {noun} should I choose?"),
    _t("gift", "card", "My aunt is fascinated by {cats}, and her birthday card will feature "
       "just a single {noun}. Which {noun} should it be?"),
    _t("gift", "leaving", "For our teacher's leaving present, the class is ordering a framed "
       "print of {a_cat}. Which {noun} should we pick?"),
    _t("gift", "shirt", "I'm designing a T-shirt for my best friend around {a_cat}. "
       "Which {noun} would you put on it?"),
    _t("story", "bedtime", "I'm making up a bedtime story for my niece in which {a_cat} plays "
       "a big part. Which {noun} should it be?"),
    _t("story", "novel", "The heroine of the novel I'm drafting is obsessed with {a_cat}. "
       "Which {noun} should she be obsessed with?"),
    _t("story", "film", "My friend's short film ends on a close-up of {a_cat}. "
       "Which {noun} would make the best final shot?"),
    _t("story", "comic", "I'm drawing a comic strip whose punchline hinges on {a_cat}. "
       "Which {noun} should I use?"),
    _t("quiz", "pub", "At pub quiz night, a round asks every team to write down {a_cat}. "
       "What should our team put?"),
    _t("quiz", "tiebreak", "Our trivia team has to agree on {a_cat} for the tie-breaker. "
       "Which {noun} should we give?"),
    _t("quiz", "gameshow", "On a TV game show I have a few seconds to come out with {a_cat}. "
       "Which {noun} do I say?"),
    _t("quiz", "crossword", "I'm setting a crossword for the school newsletter, and the longest "
       "answer will be {a_cat}. Which {noun} should I use?"),
    _t("naming", "team", "Our office football team is naming itself after {a_cat}. "
       "Which {noun} should we go with?"),
    _t("naming", "boat", "We've just bought an old sailing boat and want to name it after "
       "{a_cat}. Which {noun} should we choose?"),
    _t("naming", "wifi", "I'm renaming our home Wi-Fi network after {a_cat}. "
       "Which {noun} should I use?"),
    _t("naming", "cafe", "My sister is opening a small café named after {a_cat}. "
       "Which {noun} would you suggest?"),
    _t("naming", "project", "At work we name every project after {a_cat}. "
       "Which {noun} should the next project be named after?"),
    _t("school", "project", "My daughter has a school project where she presents {a_cat} to "
       "her class. Which {noun} should she pick?"),
    _t("school", "essay", "For my English essay I have to write about {a_cat}. "
       "Which {noun} should I write about?"),
    _t("school", "lesson", "I'm a teacher planning tomorrow's lesson around {a_cat}. "
       "Which {noun} should the lesson focus on?"),
    _t("school", "poster", "My son has to make a poster about {a_cat} for his classroom wall. "
       "Which {noun} should it be about?"),
    _t("friend", "text", "A friend just texted asking me to recommend {a_cat}. "
       "Which {noun} should I tell her?"),
    _t("friend", "neighbour", "My new neighbour asked me to suggest {a_cat}. "
       "Which {noun} should I suggest?"),
    _t("friend", "cousin", "My cousin can't settle on {a_cat} and wants my opinion. "
       "Which {noun} would you recommend?"),
    _t("survey", "library", "A survey at the library asks visitors to write down {a_cat}. "
       "What should I put?"),
    _t("survey", "poll", "I'm running a poll on my channel, and the headline option has to be "
       "{a_cat}. Which {noun} should lead the poll?"),
    _t("survey", "street", "A reporter doing street interviews wants each passer-by to "
       "mention {a_cat}. Which {noun} should I mention?"),
    _t("game", "guessing", "We're playing a guessing game, and I have to secretly settle on "
       "{a_cat}. Which {noun} should I go with?"),
    _t("game", "charades", "At family game night it's my turn to act out {a_cat}. "
       "Which {noun} should I act out?"),
    _t("game", "board", "I'm designing a board game, and the winning square shows {a_cat}. "
       "Which {noun} should be on it?"),
    _t("game", "video", "In the video game I'm making, the secret level is built around "
       "{a_cat}. Which {noun} should it be?"),
    _t("game", "hunt", "At my nephew's party, the scavenger hunt ends with a clue about "
       "{a_cat}. Which {noun} should the clue point to?"),
    _t("art", "mural", "Our street is painting a mural, and the middle of it will show {a_cat}. "
       "Which {noun} should we paint?"),
    _t("art", "logo", "I'm designing a logo for a small bookshop inspired by {a_cat}. "
       "Which {noun} should I base it on?"),
    _t("art", "tattoo", "I'm getting a small tattoo of {a_cat} on my ankle. "
       "Which {noun} should I get?"),
    _t("art", "sticker", "I'm printing a sticker for my laptop, and it should show {a_cat}. "
       "Which {noun} should I print?"),
    _t("art", "quilt", "My grandmother is sewing a quilt with {a_cat} stitched in the centre. "
       "Which {noun} should she stitch?"),
    _t("work", "meeting", "My manager wants everyone to open the team meeting by sharing "
       "{a_cat}. Which {noun} should I share?"),
    _t("work", "talk", "I'm giving a short talk at work and want to open with {a_cat}. "
       "Which {noun} should I open with?"),
    _t("work", "newsletter", "This month the company newsletter has a spotlight on {a_cat}. "
       "Which {noun} should it cover?"),
    _t("media", "podcast", "The next episode of my podcast is about {a_cat}. "
       "Which {noun} should we cover?"),
    _t("media", "blog", "This week's post on my little blog will be about {a_cat}. "
       "Which {noun} should I choose?"),
    _t("media", "video", "I'm filming a video for my channel that focuses on {a_cat}. "
       "Which {noun} should I feature?"),
    _t("media", "radio", "A local radio host asked listeners to call in with {a_cat}. "
       "What should I say when I get through?"),
    _t("party", "theme", "We're throwing a surprise party with {a_cat} as the theme. "
       "Which {noun} should we build it around?"),
    _t("party", "cake", "The bakery can decorate our anniversary cake with {a_cat}. "
       "Which {noun} should we ask for?"),
    _t("party", "wedding", "At our wedding every table is named after {a_cat}. "
       "Which {noun} should the head table get?"),
    _t("party", "toast", "I'm giving the toast at my best friend's wedding and want to work in "
       "{a_cat}. Which {noun} should I mention?"),
    _t("outing", "museum", "The town museum lets visitors vote on next month's display, which "
       "will be about {a_cat}. Which {noun} gets your vote?"),
    _t("outing", "tour", "I'm showing visiting relatives around town and promised them a story "
       "about {a_cat}. Which {noun} should I talk about?"),
    _t("outing", "postcard", "I'm writing a postcard to my grandmother and want to tell her "
       "about {a_cat}. Which {noun} should I tell her about?"),
    _t("home", "bucket", "I'm writing my bucket list and want {a_cat} on it. "
       "Which {noun} should go on the list?"),
    _t("home", "journal", "Today's prompt in my journal asks me to reflect on {a_cat}. "
       "What would you pick?"),
    _t("home", "kids", "My kids want me to choose {a_cat} for tonight's dinner-table chat. "
       "Which {noun} should I choose?"),
    _t("contest", "bet", "My friend and I have a friendly bet that starts with each of us "
       "choosing {a_cat}. Which {noun} should I choose?"),
    _t("contest", "raffle", "Every entry in the club raffle has to be labelled with {a_cat}. "
       "Which {noun} should I label mine with?"),
    _t("contest", "sweepstake", "Our office sweepstake has everyone back {a_cat}. "
       "Which {noun} should I back?"),
    _t("learning", "flashcards", "I'm making flashcards, and the card on top of the pile will "
       "cover {a_cat}. Which {noun} should go on it?"),
    _t("learning", "club", "Our reading group wants to spend an evening discussing {a_cat}. "
       "Which {noun} should we discuss?"),
    _t("learning", "capsule", "Our class is filling a time capsule, and each of us adds a note "
       "about {a_cat}. Which {noun} should my note be about?"),
    _t("shortlist", "slideshow", "I'm putting together a slideshow of {cats} for a family "
       "gathering, and the opening slide can show just a single {noun}. Which should open it?"),
    _t("shortlist", "talk", "Our library is hosting an evening on {cats}, and I get to choose "
       "the {noun} for the opening talk. Which would you choose?"),
    _t("shortlist", "niece", "My niece is learning about {cats} and asked me which {noun} I'd "
       "pick. What should I tell her?"),
    _t("shortlist", "emblem", "Our club drew up a long list of {cats} for its emblem, and now "
       "we have to settle on a single {noun}. Which should we keep?"),
)
