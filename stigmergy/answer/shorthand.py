"""The short forms people type for long words ("my corp ca *cert*", "the *temp* limits", "*repo* layout"): a line
writes the word whole ("certificate", "temperature", "repository"), so the short form is credited where a line
says the whole word. English usage, not any one wiki's vocabulary; a short form the wiki itself uses is said as
it is too (the question's own word stays one of its forms)."""

from __future__ import annotations

import re

from stigmergy.answer.terms import Term, fold, stem

_WHOLE = {
    "cert": ("certificate", "certificates"), "certs": ("certificate", "certificates"),
    "config": ("configuration",), "configs": ("configuration", "configurations"), "conf": ("configuration",),
    "repo": ("repository",), "repos": ("repository", "repositories"),
    "env": ("environment",), "envs": ("environment", "environments"), "var": ("variable",), "vars": ("variables",),
    "dir": ("directory",), "dirs": ("directory", "directories"),
    "auth": ("authentication", "authorization", "authorisation"),
    "docs": ("documentation",), "doc": ("document", "documentation"),
    "dep": ("dependency",), "deps": ("dependency", "dependencies"),
    "pkg": ("package",), "pkgs": ("package", "packages"),
    "info": ("information",), "admin": ("administrator",), "admins": ("administrator", "administrators"),
    "db": ("database",), "prod": ("production",), "dev": ("development", "developer"), "devs": ("developer", "developers"),
    "msg": ("message",), "msgs": ("message", "messages"), "reqs": ("requirements",), "req": ("requirement",),
    "ver": ("version",), "app": ("application",), "apps": ("application", "applications"),
    "perf": ("performance",), "temp": ("temperature",), "temps": ("temperature", "temperatures"),
    "mgr": ("manager",), "eng": ("engineer", "engineering"), "engs": ("engineer", "engineers"),
    "org": ("organisation", "organization"), "orgs": ("organisation", "organization", "organisations"),
    "num": ("number",), "qty": ("quantity",), "approx": ("approximately",), "avg": ("average",),
    "mins": ("minutes",), "min": ("minimum", "minutes"), "max": ("maximum",), "secs": ("seconds",),
    "hr": ("hour",), "hrs": ("hours",), "sec": ("second",), "yr": ("year",), "yrs": ("years",), "wk": ("week",),
    "wks": ("weeks",), "mth": ("month",), "mths": ("months",),
    "mtg": ("meeting",), "appt": ("appointment",), "dept": ("department",), "govt": ("government",),
    "cmd": ("command",), "cmds": ("command", "commands"), "vuln": ("vulnerability",),
    "vulns": ("vulnerability", "vulnerabilities"), "pentest": ("penetration test",), "pen": ("penetration",), "pentests": ("penetration tests",),
    "algo": ("algorithm",), "algos": ("algorithm", "algorithms"),
    "sdist": ("source distribution",), "sdists": ("source distribution", "source distributions"),
    "subcommand": ("command",), "subcommands": ("command", "commands"),
    "lib": ("library",), "libs": ("library", "libraries"), "impl": ("implementation",), "spec": ("specification",),
    "dm": ("direct message",), "dms": ("direct messages",), "cli": ("command line",),
    "gh": ("github",), "src": ("source",), "dest": ("destination",), "addr": ("address",), "tz": ("timezone",),
    "acct": ("account",), "mgmt": ("management",), "prev": ("previous",), "mo": ("month",), "mos": ("months",),
}


# The short forms of a unit of time ("hrs", "yr", "mos"; not "min", which is first a minimum): typed.py splits a
# figure glued to one ("the 2yr renewal") and wh_slots.py reads "how many hrs" as a duration.
TIME_SHORT = frozenset(k for k, v in _WHOLE.items() if v[0] in (
    "second", "seconds", "minutes", "hour", "hours", "week", "weeks", "month", "months", "year", "years"))


# Short forms read as such only where typed in capitals ("our CA bundle"): in lower case they are as often a word of
# their own or another short form ("my corp ca cert").
_CAPITALS = {"ca": ("certificate authority", "certificate")}


# Forms typed in chat that stand for one word only, and may name what is asked ("how many *ppl*", "who is the
# *mgr*"): typed.py writes them out in the question itself, so the slot rules read the whole word too.
WRITTEN_OUT = {"ppl": "people", "tmrw": "tomorrow", "w/o": "without", "b/c": "because", "abt": "about", "pls": "please",
               "plz": "please", "mgrs": "managers", **{k: _WHOLE[k][0] for k in ("mgr", "dept")}}


# Python's version typed short ("py3", "py3.12").
_PY_RE = re.compile(r"py(\d(?:\.\d+)?)")


def whole_form(word: str) -> str:
    """The whole word a short form stands for first ("temps": "temperature"), or the word itself."""
    whole = _WHOLE.get(fold(word))
    return whole[0] if whole else word


def whole_words(terms: list[Term]) -> dict[str, tuple[frozenset[str], ...]]:
    """term stem -> the whole words a short form stands for, for the question's plain words."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    for t in terms:
        py = _PY_RE.fullmatch(fold(t.word))
        if py:
            out[t.stem] = (frozenset({"python", py.group(1)}), frozenset({f"python{py.group(1)}"}))
            continue  # "for py3 users": "in Python 3 environments"
        if (t.name and not t.word.isupper()) or t.figure:
            continue  # (a short form typed in capitals, "CA", is one still)
        whole = _WHOLE.get(fold(t.word)) or (_CAPITALS.get(fold(t.word)) if t.word.isupper() else None)
        if whole:
            out[t.stem] = tuple(dict.fromkeys(frozenset(stem(x) for x in w.split()) for w in whole))
    return out
