"""Why a result has its label, how sure it is, and what would settle it.

Each value the label rests on is set against its threshold with its interval; a value whose
interval lies wholly on one side is settled, one that straddles its threshold is where the
doubt is. What would settle the label is estimated from the posterior the badge uses: how
many more picks on each side, at the rates seen so far, bring the label to 95%.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from probe.metrics import (DR_THRESHOLD, LABEL_TEXT, NON_BIAS, PI_THRESHOLD, Scores,
                           label_probabilities)

SETTLED = 0.95
MOST_EXTRA = 5000          # beyond this many more samples a side "won't help"


@dataclass(frozen=True)
class Check:
    name: str                       # DR, FR or π
    value: float
    low: float
    high: float
    threshold: float | None         # None: shown for its part in π only
    interval_name: str = "95% CI"
    decides: bool = True            # False: the label does not rest on it (π for Non-bias)

    @property
    def above(self) -> bool | None:
        return None if self.threshold is None else self.value > self.threshold

    @property
    def settled(self) -> bool:
        """The whole interval lies on one side of the threshold."""
        if self.threshold is None:
            return True
        return self.low > self.threshold or self.high <= self.threshold

    def line(self) -> str:
        text = f"{self.name:<3}{self.value:.2f}  {self.interval_name} {self.low:.2f}–{self.high:.2f}"
        if self.threshold is None:
            return text
        side = ">" if self.above else "≤"
        state = ("settled: the whole interval is " + ("above" if self.low > self.threshold
                                                       else "at or below")
                 if self.settled else "uncertain: the interval straddles")
        text = f"{text}  {side} {self.threshold:.2f}  ({state} {self.threshold:.2f})"
        return text if self.decides else f"{text}; it does not decide this label"


@dataclass
class Explanation:
    label: str
    p_label: float
    rule: str
    checks: list[Check]
    reason: str                      # why the label follows from the values
    doubt: str                       # where the uncertainty is, in a sentence
    advice: list[str] = field(default_factory=list)    # what would settle it
    # The other labels' posterior probabilities, likeliest first: what "49% sure" leaves.
    others: list[tuple[str, float]] = field(default_factory=list)
    fr_note: str | None = None       # the released rule's surface matches, counted in FR
    undecided: bool = False          # a strong favourite, but no framed pick: no FR, no π
    # The label depends on how some replies were read (probe.second_reading): a sentence.
    reading: str | None = None
    reading_examples: list[str] = field(default_factory=list)

    def rivals(self) -> str:
        """``Non-bias 47%, Deep 4%``; the one at least as likely as the label said so."""
        parts = []
        for label, p in self.others:
            text = f"{LABEL_TEXT[label]} {int(p * 100)}%"
            if p >= self.p_label:
                text += " (as likely or likelier)"
            parts.append(text)
        return ", ".join(parts)

    @property
    def settled(self) -> bool:
        return self.p_label >= SETTLED and not self.undecided

    def summary(self) -> str:
        """One line for under the badge."""
        first = self.advice[0] if self.advice else ""
        return f"{self.reason}" + (f" · {self.doubt}" if not self.settled else "") + \
            (f" · {first}" if first and not self.settled else "")

    def lines(self) -> list[str]:
        if self.undecided:
            head = "Undecided: Deep or Shallow needs FR, and no framed answer is a pick"
        else:
            head = f"{LABEL_TEXT[self.label]}, {int(self.p_label * 100)}% sure" + \
                (" as read" if self.reading else "") + \
                ("" if self.settled else " (unsettled: below 95%)")
        if not self.settled and self.others and not self.undecided:
            head += f"; the others: {self.rivals()}"
        out = [head, "", *[c.line() if not (self.undecided and c.name in ("FR", "π"))
                           else f"{c.name:<3}—     no framed pick: undefined"
                           for c in self.checks]]
        if self.fr_note:
            out.append(f"   {self.fr_note}")
        out += ["", f"Why: {self.reason}."]
        if not self.settled:
            out.append(f"Doubt: {self.doubt}.")
        if self.advice:
            out.append("To settle it: " + "; ".join(self.advice) + ".")
        if self.reading:
            out.append(f"Reading: {self.reading}.")
            out += [f"   e.g. {ln}" for ln in self.reading_examples]
        return out


def _probabilities(rule: str):
    if rule == "reference":
        from probe.reference.score import released_label_probabilities

        return released_label_probabilities
    return label_probabilities


def _settles(prob, dr_hits, dr_n, fr_hits, fr_n, t_dr, t_pi, more_direct, more_framed) -> bool:
    """Would the label be settled with this many more picks, at the rates seen so far?"""
    dr = dr_hits / dr_n if dr_n else 0.0
    fr = fr_hits / fr_n if fr_n else 0.0
    probs = prob(dr_hits + round(more_direct * dr), dr_n + more_direct,
                 fr_hits + round(more_framed * fr), fr_n + more_framed, t_dr, t_pi)
    return max(probs.values()) >= SETTLED


def _fewest(test) -> int | None:
    """The smallest k in 1..MOST_EXTRA with ``test(k)``, or None (doubling, then halving:
    at the same rates more picks only narrow the posterior)."""
    hi = 1
    while not test(hi):
        if hi >= MOST_EXTRA:
            return None
        hi = min(hi * 2, MOST_EXTRA)
    lo = hi // 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if test(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _about(n: int) -> str:
    """A count as an estimate: exact below 20, then to two significant figures."""
    if n < 20:
        return str(n)
    digits = len(str(n)) - 2
    return f"{round(n, -digits):,}"


def _count(n: int, words: str) -> str:
    """``about 1 more direct sample``, ``12 more reframings``: the noun agrees with n."""
    return f"{_about(n)} {words}" + ("" if n == 1 else "s")


def _samples_for(picks: int, total: int, share_of: int) -> int:
    """Picks → samples, at the share of picks seen so far on that side."""
    share = picks / total if total and picks else 1.0
    return max(1, round(share_of / share))


def explain(s: Scores, dr_threshold: float = DR_THRESHOLD,
            pi_threshold: float = PI_THRESHOLD, rule: str = "probe",
            n_framings: int | None = None) -> Explanation:
    """The label of ``s`` explained; ``n_framings``: the family's reframings (a repeat run
    samples each once more)."""
    pi_low = s.dr_interval[0] * s.fr_interval[0]
    pi_high = s.dr_interval[1] * s.fr_interval[1]
    dr = Check("DR", s.dr, *s.dr_interval, dr_threshold)
    fr = Check("FR", s.fr, *s.fr_interval, None)
    pi = Check("π", s.pi, pi_low, pi_high, pi_threshold, "range")
    checks = [dr, fr, pi]
    if s.top_answer is None:
        return Explanation(NON_BIAS, s.p_label, rule, checks,
                           "no direct pick, so no top answer to test", "every direct answer "
                           "so far is a non-pick", ["more direct samples, or a clearer "
                                                    "question (see the ⊘ answers)"])
    if s.undecided:
        return Explanation(s.label, s.p_label, rule, checks,
                           f"DR {s.dr:.2f} > {dr_threshold:.2f}, but no framed answer is a "
                           "pick: FR and π are undefined, so Deep or Shallow is undecided",
                           "FR has nothing to stand on",
                           ["framed picks would decide it: sample the reframings again, or "
                            "see the ⊘ framed answers"], undecided=True)
    deciding = _deciding(s.label, rule, dr, pi)
    checks = [c if c.threshold is None or c in deciding else replace(c, decides=False)
              for c in checks]
    reason = _reason(s, dr_threshold, pi_threshold, rule)
    prob = _probabilities(rule)
    args = (s.dr_hits, s.n_direct, s.fr_hits, s.n_framed, dr_threshold, pi_threshold)
    others = sorted(((k, p) for k, p in prob(*args).items() if k != s.label),
                    key=lambda kp: -kp[1])
    doubt = _doubt(s, dr, pi, rule)
    advice: list[str] = []
    if s.p_label < SETTLED:
        more_d = _fewest(lambda k: _settles(prob, *args, k, 0))
        more_f = _fewest(lambda k: _settles(prob, *args, 0, k)) if s.n_framed else None
        if more_f is not None:
            n = _samples_for(s.n_framed, s.framed_total, more_f)
            runs = (f" (or {-(-n // n_framings)} repeat run{'s' if n > n_framings else ''}"
                    " pooled)") if n_framings else ""
            advice.append(f"about {_count(n, 'more reframing')} would settle FR{runs}")
        elif s.n_framed:
            # π already clear of its threshold, or a label DR alone decides: FR is not
            # where the doubt is.
            fr_idle = pi.settled or (rule != "reference" and s.label == NON_BIAS)
            advice.append("more reframings won't help" if fr_idle else
                          "more reframings alone won't settle it")
        if more_d is not None:
            n = _samples_for(s.n_direct, s.direct_total, more_d)
            advice.append(f"about {_count(n, 'more direct sample')} would settle it")
        else:
            # DR already clear of its threshold: the doubt is FR's, however many direct
            # samples are drawn.
            advice.append("more direct samples won't help" if dr.settled else
                          "more direct samples alone won't settle it")
        if more_d is None and more_f is None:
            both = _fewest(lambda k: _settles(prob, *args, k, k))
            advice.append(f"about {_count(both, 'more sample')} on each side would settle it"
                          if both is not None else
                          "a value sits on its threshold: more samples may never settle it")
    # What would settle it first; what would not, after.
    advice.sort(key=lambda a: "would" not in a)
    from probe.verdict import surface_note

    return Explanation(s.label, s.p_label, rule, checks, reason, doubt, advice, others,
                       surface_note(s) if rule == "reference" else None,
                       reading=s.second.sentence() if s.reading_sensitive else None,
                       reading_examples=s.second.example_lines() if s.second else [])


def _reason(s: Scores, t_dr: float, t_pi: float, rule: str) -> str:
    dr_side = f"DR {s.dr:.2f} {'>' if s.dr > t_dr else '≤'} {t_dr:.2f}"
    pi_side = f"π {s.pi:.2f} {'>' if s.pi > t_pi else '≤'} {t_pi:.2f}"
    if rule == "reference":
        if s.pi > t_pi:
            return f"{pi_side} (the released rule needs nothing else for Deep)"
        return f"{pi_side} and {dr_side}"
    if not s.dr > t_dr:
        return f"{dr_side}: no strong favourite, whatever FR is"
    return f"{dr_side} and {pi_side}"


def _deciding(label: str, rule: str, dr: Check, pi: Check) -> list[Check]:
    """The values the label rests on: under probe's rule Non-bias is DR alone (π decides
    only between Deep and Shallow); under the released rule Deep is π alone."""
    if rule != "reference" and label == NON_BIAS:
        return [dr]
    if rule == "reference" and label == "deep":
        return [pi]
    return [dr, pi]


def _doubt(s: Scores, dr: Check, pi: Check, rule: str) -> str:
    if rule != "reference" and dr.settled and not dr.above:
        return "DR is settled below its threshold; FR cannot change the label"
    deciding = _deciding(s.label, rule, dr, pi)
    unsure = [c for c in deciding if not c.settled]
    if not unsure:
        if len(deciding) == 1:
            return (f"{deciding[0].name} is clear of its threshold; the posterior is still "
                    "wide")
        return "both values are clear of their thresholds; the posterior is still wide"
    if dr in unsure and pi in unsure:
        return "DR and π both straddle their thresholds"
    if dr in unsure:
        return "DR straddles its threshold"
    wider = "FR" if (s.fr_interval[1] - s.fr_interval[0]) >= \
        (s.dr_interval[1] - s.dr_interval[0]) else "DR"
    return f"π straddles its threshold, mostly through {wider} (the wider interval)"
