"""The vector arm's page view (`fusion.describe`, issue 20, fourth pass): the text arms' candidates ranked by
what each whole page is about (its centroid and its lead), rank-fused beside the arms that rank fragments."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index import arms as arms_mod
from stigmergy.index import fusion
from stigmergy.index import search as search_mod
from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher

READER = "someone@example.com"
DIM = 384


def _unit(*pairs: tuple[int, float]) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    for axis, weight in pairs:
        v[axis] = weight
    return v / np.linalg.norm(v)


class Directed(HashEmbedder):
    """The query points along axis 5; the guide's one shelving section points exactly there; the short
    page that is about shelving from its first line points nearly there; everything else is hashed."""

    def embed(self, texts):  # type: ignore[no-untyped-def]
        out = super().embed(texts)
        for i, t in enumerate(texts):
            if t == "QUERY-VEC" or ("Guide" in t and "shelving" in t):
                out[i] = _unit((5, 1.0))
            elif "Shelving changes" in t:
                out[i] = _unit((5, 0.8), (7, 0.6))
            elif "Related" in t:
                out[i] = _unit((5, 0.5), (9, 0.87))
        return out


def _corpus(tmp: Path) -> RepoBuilder:
    b = RepoBuilder(tmp)
    # A long guide: a dozen sections about other things, one of which mentions the query's words.
    parts = [f"## Part {i}\n\n" + " ".join(f"topic{i}w{j}" for j in range(120)) for i in range(12)]
    parts.insert(6, "## Putting work aside\n\nshelving shelving shelving work in progress")
    b.source("Guide", "# Guide\n\n" + "\n\n".join(parts) + "\n", locator="guide.txt")
    b.source("Shelving changes", "# Shelving changes\n\nshelving keeps the tree clean for an urgent fix, and brings "
             "what it kept back later; the command lists, shows and drops what it keeps.\n", locator="shelf.txt")
    # More pages near the question as a whole than the guide is (each ranks above it by what it is about,
    # below it by its best window), so the guide falls out of the page view's first ARM_DEPTH.
    for i in range(arms_mod.ARM_DEPTH + 5):
        b.source(f"Related {i}", f"# Related {i}\n\nwork on gardens number {i}, near the question.\n",
                 locator=f"other{i}.txt")
    b.commit()
    return b


def _titles(s: Searcher, query: str) -> list[str]:
    return [h.title for h in s.search(query, READER, k=5, check_freshness=False).hits]


def test_the_page_about_the_question_outranks_a_long_page_with_one_window_on_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = _corpus(tmp_path / "w")
    emb = Directed()
    build_index(b.root, b.settings, embedder=emb)
    s = Searcher(b.root, b.settings, emb)
    try:
        s.embedder.embed = lambda texts: Directed.embed(emb, ["QUERY-VEC" for _ in texts])  # type: ignore[method-assign]
        on = _titles(s, "shelving work")
        monkeypatch.setattr(search_mod, "DESCRIBE", 0.0)
        off = _titles(s, "shelving work")
    finally:
        s.close()
    # Without the page view the guide's one window on the question (first in the vector arm, second by
    # its words) puts the whole guide first; as a whole it is about everything else, and falls below the
    # page that is about the question from its first line.
    assert off[0] == "Guide", off
    assert on[0] == "Shelving changes", on
    assert on[1] == "Guide", on


def test_the_page_view_reads_what_the_store_holds_and_ranks_by_centroid_and_lead(tmp_path: Path) -> None:
    """`page_vectors` gives each candidate's centroid, lead and fragment count (one read serves the page view
    and the blend); the view ranks the given pages only, by the mean of the two cosines, ties by page id."""
    b = _corpus(tmp_path / "w")
    emb = Directed()
    build_index(b.root, b.settings, embedder=emb)
    s = Searcher(b.root, b.settings, emb)
    try:
        ids = dict(s.store.conn.execute("SELECT title, id FROM pages").fetchall())
        stored = s.store.page_vectors([ids["Guide"], ids["Shelving changes"]])
        assert stored[ids["Guide"]][2] > 10 and stored[ids["Shelving changes"]][2] == 1
        assert s.store.page_vectors([ids["Guide"], ids["Shelving changes"]], 4).keys() == {ids["Guide"]}
        q = _unit((5, 1.0))
        cosines = {pid: (float(c @ q), float(lead @ q), n) for pid, (c, lead, n) in stored.items()}
        assert fusion.describe({}, 10) == []
        assert fusion.describe(cosines, 10) == [ids["Shelving changes"], ids["Guide"]]
        assert fusion.describe(cosines, 1) == [ids["Shelving changes"]]
        # A page whose lead is on the question but whose body is not ranks between the two.
        mixed = {**cosines, 999: (0.0, 1.0, 5)}
        assert fusion.describe(mixed, 10) == [ids["Shelving changes"], 999, ids["Guide"]]
        assert fusion.describe({1: (0.5, 0.5, 1), 2: (1.0, 0.0, 3)}, 10) == [1, 2]
    finally:
        s.close()
