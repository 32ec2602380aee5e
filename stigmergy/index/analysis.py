"""Text analysis beyond FTS5's `porter unicode61`, shared by the indexer and the query: what goes into the
full-text table's `extra` column of each fragment, and the same terms drawn from a query.

- **Chinese, Japanese, Korean.** `unicode61` keeps a run of CJK characters as one token (there are no
  spaces to split it), so a query word matches only a run that is exactly that word. Each run becomes
  its overlapping character bigrams (a lone character stays a unigram), as Lucene's CJK bigram filter
  and Elasticsearch's `cjk` analyser do: no dictionary, no segmenter, and on Chinese retrieval bigrams
  score about as well as word segmentation. A query is cut the same way, so "安装" (two characters)
  matches every text that holds it, inside any longer run.
- **Thai, Lao, Khmer, Myanmar** are written without spaces between words too, and `unicode61` also cuts
  their runs at every combining vowel or tone mark (category M*: "ภาษาไทยง่าย" became "ภาษาไทยง" and
  "าย"), so a word matched nothing. Their runs get the same bigrams, drawn from the run with its marks
  taken out (the characters `unicode61` keeps), in the text and in the query alike.
- **Other languages' stems.** `porter` stems English only. Where the language of a text is known, its
  Snowball stemmer (snowballstemmer, a dependency) adds the stems of its words: a page that declares
  `language:` in its front matter (an ISO 639-1 code or a Snowball name), else the languages the team
  declares in `[index] languages`. A query is stemmed with every language the index knows (the
  configured ones and those pages declared), so "Häuser" finds "Haus" in a German page. Nothing guesses
  a page's language: a wrong guess would silently lose words, a stem too many only adds a match.

The English words stay where they were (title, headings, body, through porter); `extra` only adds.
`ANALYSIS_VERSION` and the languages are part of the index's lexicon key (`lexicon_key`): a change
re-reads every page at the next `stigmergy index` (no re-embedding: the text the model sees is unchanged).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from stigmergy.errors import ConfigError

ANALYSIS_VERSION = 2  # 2: Thai, Lao, Khmer and Myanmar runs get bigrams too
# Han (with extensions and compatibility ideographs), Hiragana, Katakana (with phonetic extensions and
# half-width forms), Hangul syllables and jamo; then Thai, Lao, Myanmar and Khmer: the scripts written
# without spaces between words.
_CJK = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff"
    "\uff66-\uff9f\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
    "\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff"
)
CJK_RUN_RE = re.compile(f"[{_CJK}]+")
_HAS_CJK_RE = re.compile(f"[{_CJK}]")
_WORD_RE = re.compile(rf"[^\W{_CJK}]+")
ISO_639_1 = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian", "nn": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}
# Languages whose words porter already stems (English) or that have no stemmer (CJK: bigrams instead).
_NO_STEMMER = {"english", "porter", "en", "zh", "ja", "ko", "chinese", "japanese", "korean"}
MAX_EXTRA_TERMS = 20_000  # per fragment: a hostile page cannot make one row unbounded


def has_cjk(text: str) -> bool:
    """Whether `text` holds a script written without spaces (CJK, Thai, Lao, Khmer, Myanmar)."""
    return bool(_HAS_CJK_RE.search(text))


def _token_runs(runs: list[str]) -> Iterable[str]:
    """Each run as unicode61 sees its characters: marks (M*) dropped, a punctuation sign (Thai's ฯ,
    Myanmar's ။) ending the run; letters and numbers kept."""
    for raw in runs:
        run: list[str] = []
        for ch in raw:
            cat = unicodedata.category(ch)
            if cat[0] in "LN":
                run.append(ch)
            elif cat[0] != "M" and run:
                yield "".join(run)
                run = []
        if run:
            yield "".join(run)


def cjk_grams(text: str) -> list[str]:
    """The overlapping character bigrams of every run of a script written without spaces in `text` (a
    one-character run is itself), combining marks left out (unicode61 would cut a gram at them)."""
    out: list[str] = []
    for run in _token_runs(CJK_RUN_RE.findall(text)):
        if len(run) == 1:
            out.append(run)
        else:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def language_name(value: Any) -> str | None:
    """The Snowball algorithm for a language named by ISO 639-1 code or Snowball name (None if neither)."""
    if not isinstance(value, str):
        return None
    key = value.strip().casefold().replace("_", "-").split("-")[0]
    name = ISO_639_1.get(key, key)
    return name if name in _stemmer_names() else None


@functools.lru_cache(maxsize=1)
def _stemmer_names() -> frozenset[str]:
    import snowballstemmer

    return frozenset(snowballstemmer.algorithms())


@functools.lru_cache(maxsize=32)
def _stemmer(name: str) -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer(name)


def configured_languages(names: Iterable[str]) -> tuple[str, ...]:
    """`[index] languages` as Snowball names (English dropped: porter has it); ConfigError on a name that
    is neither a Snowball language nor its ISO 639-1 code."""
    out: list[str] = []
    for raw in names:
        name = language_name(raw)
        if name is None and str(raw).strip().casefold() not in _NO_STEMMER:
            raise ConfigError(
                f"unknown language {raw!r} in [index] languages",
                hint="use an ISO 639-1 code or a Snowball stemmer name (de, fr, es, german, ...); "
                     "Chinese, Japanese and Korean need no setting",
            )
        if name and name not in _NO_STEMMER and name not in out:
            out.append(name)
    return tuple(out)


def page_languages(meta: dict[str, Any], configured: Sequence[str]) -> tuple[str, ...]:
    """The stemmers for a page: its front matter's `language` (or `lang`) when it names one, else the
    configured ones."""
    declared = meta.get("language", meta.get("lang"))
    if isinstance(declared, str) and declared.strip().casefold().replace("_", "-").split("-")[0] in _NO_STEMMER:
        return ()  # English (porter has it) or CJK (bigrams, always)
    name = language_name(declared)
    return (name,) if name is not None else tuple(configured)


def stems(text: str, languages: Sequence[str]) -> list[str]:
    """Each distinct word's stem in each of `languages`, where it differs from the word."""
    if not languages:
        return []
    words = sorted({w.casefold() for w in _WORD_RE.findall(text) if not w.isdigit()})
    out: list[str] = []
    for name in languages:
        stemmer = _stemmer(name)
        for w, s in zip(words, stemmer.stemWords(words), strict=True):
            if s and s != w:
                out.append(s)
    return out


def extra_text(text: str, languages: Sequence[str]) -> str:
    """The `extra` column of a fragment: its CJK bigrams and its words' stems in `languages`."""
    terms = cjk_grams(text) + stems(text, languages)
    return " ".join(terms[:MAX_EXTRA_TERMS])


def query_extra(query: str, languages: Sequence[str]) -> list[str]:
    """The terms a query adds for the `extra` column: CJK bigrams, and its words' stems."""
    seen: list[str] = []
    for t in cjk_grams(query) + stems(query, languages):
        if t not in seen:
            seen.append(t)
    return seen


def lexicon_key(configured: Sequence[str]) -> str:
    """What the full-text rows were analysed with: a different key re-reads every page."""
    data = {"analysis": ANALYSIS_VERSION, "languages": sorted(configured)}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
