"""The numbers: a Beta(α, β) posterior per page (and per claim line with feedback of its own), decayed
toward the prior at query time by the page's decay class, its tier, and the bounded ranking factors.

Weights (settings `[trust]`, docs/trust.md): --useful α += 1, --wrong β += 1, --outdated β += 0.5; a claim
line's feedback counts half toward its page; each supporting source beyond a page's first α += 0.5 (a
confirmation), each open contradiction on it β += 1 (a challenge). Between observations and up to now, the
evidence above the prior decays by γ per day (ephemeral 0.98, stable 0.995, permanent 1.0), at most 180 days'
worth; a stable or permanent page confirmed again after decaying below half its peak α gets 20 % more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

from stigmergy.settings import TrustSettings

GAMMA = {"ephemeral": 0.98, "stable": 0.995, "permanent": 1.0}
DECAY_CLASSES = tuple(GAMMA)
# A page's class unless its front matter says `decay:`: notes and project timelines record events and
# decisions that age; concepts and entities explain what lasts; a source page is a record of what was said.
KIND_CLASS = {"note": "ephemeral", "project": "ephemeral", "concept": "stable", "entity": "stable", "source": "stable"}
STATUSES = ("candidate", "verified", "stale", "rejected")
TIERS = ("HIGH", "MODERATE", "LOW", "EXPLORATORY", "STALE")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def days(at: str) -> float:
    """Days since the epoch of a UTC timestamp `YYYY-MM-DDTHH:MM:SSZ` (or an ISO date)."""
    when = datetime.fromisoformat(at.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - EPOCH).total_seconds() / 86400


def now_days() -> float:
    return (datetime.now(UTC) - EPOCH).total_seconds() / 86400


def decay_class(page_type: str, declared: object = None) -> str:
    return declared if isinstance(declared, str) and declared in GAMMA else KIND_CLASS.get(page_type, "ephemeral")


class Event(NamedTuple):
    """One observation (a tuple: a cold fold or the saved fold makes one per record, hundreds of thousands)."""

    t: float  # days since the epoch
    kind: str  # useful | wrong | outdated | reset
    alpha: float  # weight added to α
    beta: float  # weight added to β
    share: bool = False  # a claim line's or passage's share on its page (search ranks without it)
    query: str = ""  # the search a passage was judged from ("": any query that matches the passage)


@dataclass(frozen=True)
class Posterior:
    alpha: float
    beta: float
    observations: float  # real observations (feedback, confirmations, challenges), not the prior
    feedback: int  # reader feedback events among them
    decay: str
    status: str
    errors: int  # feedback against the posterior's prediction since the last reset
    peak_alpha: float

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    @property
    def width(self) -> float:
        """The seed's 95 % interval width: 1.96·sqrt(m(1 − m)/(α + β + 1))."""
        m = self.mean
        return 1.96 * math.sqrt(m * (1 - m) / (self.alpha + self.beta + 1))

    @property
    def sd(self) -> float:
        a, b = self.alpha, self.beta
        return math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))

    @property
    def tier(self) -> str:
        if self.status == "stale":
            return "STALE"
        if self.observations < 3:
            return "EXPLORATORY"
        if self.mean >= 0.7 and self.width < 0.20:
            return "HIGH"
        return "MODERATE" if self.mean >= 0.45 else "LOW"

    def to_dict(self) -> dict[str, object]:
        return {"confidence": round(self.mean, 4), "tier": self.tier, "status": self.status,
                "alpha": round(self.alpha, 3), "beta": round(self.beta, 3), "interval": round(self.width, 4),
                "observations": round(self.observations, 2), "feedback": self.feedback, "decay": self.decay}


def _decayed(a: float, b: float, a0: float, b0: float, gamma: float, span: float, cap: float) -> tuple[float, float]:
    if span <= 0 or gamma >= 1.0:
        return a, b
    g = gamma ** min(span, cap)
    return a0 + (a - a0) * g, b0 + (b - b0) * g


def posterior(events: Sequence[Event], cls: str, now: float, s: TrustSettings, *, status: str = "candidate",
              confirmations: int = 0, challenges: int = 0) -> Posterior:
    """Replay `events` (time order) from the prior, decaying between them and up to `now`, then add the
    page's structural evidence (supporting sources, open contradictions) as it stands now."""
    a0, b0 = s.prior_alpha, s.prior_beta
    gamma = GAMMA.get(cls, GAMMA["ephemeral"])
    a, b, peak, last, errors, n, fb = a0, b0, a0, None, 0, 0.0, 0
    for e in sorted(events, key=lambda e: e.t):
        if last is not None:
            a, b = _decayed(a, b, a0, b0, gamma, e.t - last, s.decay_cap_days)
        last = e.t
        if e.kind == "reset":
            a, b, peak, errors, n = a0, b0, a0, 0, 0.0
            continue
        wa = e.alpha
        if wa > 0 and cls != "ephemeral" and a < peak * 0.5:
            wa *= 1 + s.gap_bonus  # re-observed after significant decay
        mean = a / (a + b)
        if (wa > 0 and mean < 0.5) or (e.beta > 0 and mean > 0.5):
            errors += 1
        a, b = a + wa, b + e.beta
        peak = max(peak, a)
        n += 1.0
        fb += 1
    if last is not None:
        a, b = _decayed(a, b, a0, b0, gamma, now - last, s.decay_cap_days)
    a += s.confirmation_weight * confirmations
    b += s.challenge_weight * challenges
    return Posterior(a, b, n + confirmations + challenges, fb, cls, status, errors, peak)


def prior(cls: str, s: TrustSettings, status: str = "candidate") -> Posterior:
    return Posterior(s.prior_alpha, s.prior_beta, 0.0, 0, cls, status, 0, s.prior_alpha)


def ucb(p: Posterior, s: TrustSettings) -> float:
    return p.mean + s.exploration * p.sd


def confidence_factor(p: Posterior, s: TrustSettings) -> float:
    """The ranking factor, within [1 − weight, 1 + lift]: exactly 1 for a page no reader has judged
    (structural evidence alone is what search's own support factor already weighs), else the posterior's
    upper confidence bound against the prior's (the exploration term: a page with few observations is not
    buried by them). Asymmetric on purpose: a page readers found wrong should fall in every query, but one
    they found right is not thereby more relevant to the next query (bench/feedback.py measured a useful
    page overtaking the answer to another question at an equal weight)."""
    if p.feedback == 0:
        return 1.0
    delta = (ucb(p, s) - ucb(prior(p.decay, s), s)) / 0.5
    w, lift = s.confidence_weight, s.confidence_lift
    return max(1 - w, min(1 + lift, 1 + (w if delta < 0 else lift) * delta))


def status_factor(status: str, s: TrustSettings) -> float:
    return {"verified": s.verified_factor, "stale": s.stale_factor}.get(status, 1.0)
