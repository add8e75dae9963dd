"""Word classes the answer reader uses to see the shape of a sentence.

An answer is a name; what surrounds it in a response is made of closed classes of English
words — pronouns, determiners, auxiliaries, prepositions, conjunctions, discourse markers —
plus the few open-class words people use to talk about choosing (verbs such as "pick",
nouns such as "choice", praise such as "great"). A stretch made only of these carries no
answer: it is a lead-in, a trailer, or a hedge. These are word classes, not phrases: the
reader never looks a whole sentence up.
"""

from __future__ import annotations

import re

PRONOUNS = frozenset("""
i me my mine myself you your yours yourself we us our ours he him his she her hers it its
itself they them their theirs this that these those someone something anything everything
nothing somebody anybody everybody everyone anyone someone whichever whatever whoever
""".split())
DETERMINERS = frozenset("a an the some any each every all both either neither no another "
                        "such own".split())
AUXILIARIES = frozenset("""
am is are was were be been being do does did have has had will would shall should can could
may might must ought 's 're 'm 've 'd 'll gotta gonna hafta oughta
""".split())
PREPOSITIONS = frozenset("of to for with in on at by from about as into onto over than "
                         "like upon among between toward towards without after before "
                         "during under up down out off".split())
# Words that open a scene-setting clause before the answer ("If it helps, …").
SUBORDINATORS = frozenset("if when since because as although though while unless once "
                          "given".split())
CONJUNCTIONS = frozenset("and or but so if because since though although while nor "
                         "yet".split())
# Words that open or close a reply without adding to it.
DISCOURSE = frozenset("""
just really definitely probably maybe perhaps honestly personally certainly absolutely surely
obviously clearly actually basically simply totally easily well ok okay sure yes yeah yep hmm
hmmm um umm uh oh ah alright right now then also too always still even quite very rather
course hands down here there ahead let lets let's please think guess reckon suppose believe
feel say said mean instantly immediately without doubt question oh wow how what
again already though anyway far finally ultimately eventually instead thanks thank
appreciated advance honest fair dozens hundreds lots plenty tons loads back forth ask check tell need know more bit little help assist thing
see below above following dunno unsure def defo prob probs tbh imo imho lol obv honestly plus
""".split())
# Verbs of choosing: "I'd go with", "let me pick", "you should try", "my vote goes to".
CHOICE_VERBS = frozenset("""
pick picks picked picking choose chooses chose choosing go goes going went say saying suggest
suggests suggesting recommend recommends recommending vote votes voting opt opting select
selecting take taking prefer prefers want settle settling land landing lean
leaning nominate propose offer try give consider pitch plump commit put thinking
decided decide went chosen choosing settled opted voted landed plumped
selected make narrow grab
""".split())
# What may follow a verb of choosing before the answer: "go with", "vote for", "settle on".
PARTICLES_AFTER_CHOICE = frozenset("with for on to toward towards of down".split())
# Words that label a line of text rather than answer: "Output: …", "EDIT: …".
LABELS = frozenset("output reply response result update edit note answer solution ps tldr "
                   "summary verdict conclusion final pick choice mine winner decision "
                   "therefore thus hence upshot takeaway".split())
# Words that take back what came before: "Prince… no, David Bowie", "X? Wait. Y",
# "…, but actually, Z", "on second thought".
CORRECTIONS = frozenset("no nah nope wait actually rather instead correction scratch "
                        "reflection thought".split())
# Nouns for the choice itself: "my pick", "the answer", "a safe bet".
CHOICE_NOUNS = frozenset("""
pick choice answer option selection favourite favorite fave suggestion recommendation vote
guess bet call idea one pitch nominee winner go-to picks choices answers options selections
favourites favorites suggestions recommendations ideas candidates candidate contenders
contender possibilities alternatives shortlist list fan fans money
""".split())
# Praise and judgement: "Great question!", "Easy —", "a classic choice".
PRAISE = frozenset("""
great good nice fun tough hard easy interesting excellent perfect lovely wonderful
fantastic awesome cool classic solid safe obvious fine best top first clear simple sweet
brilliant amazing superb terrific ideal fitting beautiful iconic timeless legendary
gorgeous stunning elegant charming delightful fabulous marvellous marvelous splendid
majestic adorable mighty magnificent famous favourite favorite definite strong smart wise
popular random final happy glad big huge massive total
""".split())
# A few praise words also name things ("Classic" Coke, "Solid" snake): they are only ever
# dropped around an answer, never taken as the whole of one.

# Words that decline on their own ("Either", "None", "All of them"): never a short name.
NON_ANSWERS = frozenset("either neither none both all any whatever whichever anything "
                        "everything nothing no many much lots plenty several".split())

FUNCTION = PRONOUNS | DETERMINERS | AUXILIARIES | PREPOSITIONS | CONJUNCTIONS
FILLER = FUNCTION | DISCOURSE | CHOICE_VERBS | CHOICE_NOUNS | PRAISE
# Quantifiers that make any sentence they open a remark about several options ("Both have
# their charm", "All are great").
QUANTIFIERS = frozenset("all both each every either neither none any".split())
# Subjects that make a sentence about the choice rather than an answer: "It depends",
# "They're all great", "Any of them would work", "Whichever you like".
HEDGE_SUBJECTS = frozenset("it that this they there any all both each every either neither "
                           "none whichever whatever you we honestly everyone anyone everybody "
                           "anybody nothing nobody nowhere".split())
# Verbs that end a subject: "Spinosaurus would be perfect", "Monarch is my pick".
PREDICATE_VERBS = AUXILIARIES | frozenset("""
makes make sounds sound seems seem looks look feels feel fits fit works work comes come gets
get stands stand wins win takes remains remain suits suit deserves deserve tops top beats beat
""".split())
# Verbs that decline the question: "I'll sit this one out", "I'd rather pass".
DECLINE_VERBS = frozenset("sit pass abstain decline refrain skip".split())
# Words a prompt uses to ask, which open an instruction rather than an answer.
INSTRUCTION_VERBS = frozenset("name choose pick select give tell list suggest think".split())
INDEFINITE_PRONOUNS = frozenset("something somewhere someone somebody anything anywhere "
                                "anyone".split())
# Words that offer an answer as a second thought, not the choice ("You could also try X").
ALTERNATIVES = frozenset("also too alternatively another otherwise else".split())
# Verbs that mention an option only to pass it over ("I considered B6, but …").
PASSED_OVER = frozenset("considered tempted thought debated almost nearly weighed".split())
NEGATIONS = frozenset("not no never nor n't cannot cant can't won't wont don't dont away "
                      "skip avoid forget except".split())


# Terms of address: who a reply speaks to, set off by a comma ("Yangtze, honey.", "Oh
# sweetie, X", "Santorini, brah", "X, ye scallywag"): the listener, never the answer.
ADDRESS = frozenset("""
honey hon hun sweetie sweetheart sweetpea darling darlin dear dearie deary love luv babe
baby buddy bud pal mate matey friend friends folks partner pardner sir sirs madam madame
ma'am maam miss mister kid kiddo son sonny lad lads laddie lass lassie
dude dudes bro bros brah bruh bestie besties fam guys gals y'all yall chief boss champ sport
soldier soldiers private recruit recruits cadet maggot maggots traveler traveller stranger
sire milord milady m'lord m'lady lord lady comrade human humans mortal mortals earthling
landlubber scallywag scallywags captain cap'n darlings sweeties cuz cousin
youngster youngsters ladies gentlemen dawg homie fella chum sugar buttercup sunshine
cupcake liege
""".split())
# Words that may lead a term of address: "my friend", "ye scallywag", "young man".
ADDRESS_LEADS = frozenset("my ye you young old dear little good sweet".split())


def address_words(words: list[str]) -> int:
    """How many of ``words`` (lower case), from the first, are a term of address ("my
    dear friend", "ye scallywag", "brah", "you old goat"); 0 when they do not open with
    one."""
    if len(words) >= 2 and words[0] in ("ye", "you") and len(words) <= 4:
        rest = [w for w in words[1:] if w not in ADDRESS_LEADS]
        if rest and not any(w in FUNCTION or w in DISCOURSE or _verb_only(w) for w in rest):
            return len(words)     # "ye bilge rat", "you old goat": a name for the listener
    leads = 0
    while leads < len(words) and leads < 2 and words[leads] in ADDRESS_LEADS:
        leads += 1
    for k in range(leads, -1, -1):      # "dear" leads "dear friend" and is one alone
        j = k
        while j < len(words) and words[j] in ADDRESS:
            j += 1
        if j > k:
            return j
    return 0


def _verb_only(word: str) -> bool:
    """A word the lemma dictionary knows as a verb and never as a noun or adjective."""
    from probe.matching import lexicon

    pos = lexicon.parts_of_speech(word)
    return bool(pos) and not pos & {"NOUN", "ADJ"}


_INTERJECTION = re.compile(r"^(?:o+h+|a+h+|h+m+|m{2,}|u+m+|u+h+|e+r+m*|w+o+w+|(?:ha)+h?|y+a+y+|whoa+"
                           r"|hey+|ye+s+|no+pe|o+o+h+|aw+|eh+|ugh+|phew|gosh|golly|wel+"
                           r"|o+k+a+y+|lo+l+|omg+|welp|bruh+|ngl|lowkey|highkey|fr|legit|srsly|deadass"
                           # texting's own: "jaws, duh", "X ftw", "Y fr fr", "Z istg"
                           r"|du+h+|ftw|frfr|ong|istg|idc|tbf|icl|smh|lmf?ao+|rofl|omfg|periodt+"
                           r"|obvi|obvs|ikr|iykyk|jk|me+h+|oo+f+|yikes|hbu|wbu|fyi)$")


def is_interjection(word: str) -> bool:
    """"ooh", "hmm", "ugh", "lol", "ngl": a voice, never a word of the answer."""
    return bool(_INTERJECTION.match(word))


def is_filler(word: str) -> bool:
    return word in FILLER or is_interjection(word)
