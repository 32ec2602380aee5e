"""The PostgreSQL index's reads other than the search arms: the graph around pages, a hit's rows, the
reads of pages and entities, ask's rows and line-vector cache, term statistics; and the store's meta rows.
`PgReads` is the first of the store's classes (`pg_search.PgSearch` adds the arms, `postgres.PostgresIndexStore`
the connection's lifecycle and the builder's writes); every statement names the reader's layers or a
`Selection`'s condition, as the protocol asks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from stigmergy.index.store import pg_fill, pg_held, pg_text
from stigmergy.index.store.protocol import (
    AboutPage,
    Backlink,
    CitationRow,
    ContradictionRow,
    EntityPage,
    Fact,
    FragmentRow,
    ListedPage,
    NameRow,
    PageInfo,
    PageRef,
    Selection,
    SourceRow,
)

MAX_LINE_VECTORS = 300_000  # ask's line cache, as on SQLite: past it half goes
STATUS_ORDER = ("CASE p.status WHEN 'evergreen' THEN 0 WHEN 'mature' THEN 1 WHEN 'developing' THEN 2 "
                "ELSE 3 END")
# Text orders compare bytes, as SQLite's BINARY collation does, whatever the database's locale.
C = 'COLLATE "C"'


class PgReads:
    """Reads over `conn` (a psycopg connection, autocommit outside transactions)."""

    conn: Any
    errors: tuple[type[BaseException], ...]
    schema: str
    url: str
    _warm: bool
    _gen: int | None  # the generation this search's `select` read (None: none yet)

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def all_meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
                          "excluded.value", (key, value))

    def version(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def _rows(self, statement: str, params: Sequence[Any]) -> list[Any]:
        return [tuple(r) for r in self.conn.execute(statement, params).fetchall()]

    def _generation(self) -> int:
        """This search's generation: the one its `select` read, else read now."""
        return self._gen if self._gen is not None else self.version()

    def _held(self, kind: str, keys: Sequence[Any], fetch: Callable[[list[Any]], dict[Any, Any]],
              cap: int = pg_held.MAX_ROWS) -> dict[Any, Any]:
        """`fetch`'s answer for `keys` (key -> value; absent: no row), from what a warm session holds at this
        search's generation where it can (`pg_held`)."""
        if not self._warm:
            return fetch(list(dict.fromkeys(keys)))
        where, generation = pg_held.place(self.conn, self.schema), self._generation()
        pg_fill.start(self.url, self.schema, where, generation)  # every row of the small kinds, in the background
        return pg_held.read(where, kind, generation, keys, cap, fetch)

    def _grouped(self, kind: str, statement: str, keys: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows of `statement` (its first parameter the keys, its first column the key) for `keys`, held
        per key in a warm session; in ascending key order, each key's rows in the order they came."""
        def fetch(ids: list[Any]) -> dict[Any, list[tuple[Any, ...]]]:
            grouped: dict[Any, list[tuple[Any, ...]]] = {}
            for row in self.conn.execute(statement, (ids,)).fetchall():
                grouped.setdefault(row[0], []).append(tuple(row))
            return grouped

        got = self._held(kind, keys, fetch)
        return [row for key in sorted(got) for row in got[key]]

    def entity_names_in(self, names: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, int]]:
        return self._rows("SELECT en.name, en.page FROM entity_names en JOIN pages p ON p.id = en.page "
                          "WHERE en.name = ANY(%s::text[]) AND p.layer = ANY(%s::text[])", (list(names), list(layers)))

    def names_of(self, pages: Sequence[int]) -> list[tuple[str, int]]:
        return [(name, page) for page, name in self._grouped(
            "names", "SELECT page, name FROM entity_names WHERE page = ANY(%s::bigint[]) ORDER BY page, name", pages)]

    def allowed(self, pages: Sequence[int], sel: Selection) -> set[int]:
        where, params = sel.condition
        return {r[0] for r in self.conn.execute(
            f"SELECT p.id FROM pages p WHERE p.id = ANY(%s::bigint[]) AND {where}", (list(pages), *params))}

    def pages_about(self, entities: Sequence[str], sel: Selection, depth: int) -> list[tuple[int, int]]:
        where, params = sel.condition
        return self._rows(
            f"SELECT p.id, count(*) AS n FROM page_entities pe JOIN pages p ON p.id = pe.page "
            f"WHERE pe.entity = ANY(%s::text[]) AND {where} GROUP BY p.id "
            f"ORDER BY n DESC, {STATUS_ORDER}, p.updated {C} DESC NULLS LAST, p.path {C} "
            f"LIMIT %s", (list(entities), *params, depth))

    def source_mentions(self, names: Sequence[str], sel: Selection, depth: int) -> list[int]:
        match = pg_text.tsquery(pg_text.phrases(names), column="D")
        if not match:
            return []
        where, params = sel.condition
        return [r[0] for r in self.conn.execute(
            f"SELECT p.id FROM fts t JOIN fragments f ON f.id = t.id JOIN pages p ON p.id = f.page "
            f"WHERE t.tsv @@ %s::tsquery AND t.layer = ANY(%s::text[]) AND p.type = 'source' AND {where} "
            f"GROUP BY p.id, p.path ORDER BY p.path {C} LIMIT %s",
            (match, list(sel.layers), *params, depth))]

    def links_from(self, pages: Sequence[int]) -> list[tuple[int, str]]:
        return self._grouped("links", "SELECT src, target FROM links WHERE src = ANY(%s::bigint[])", pages)

    def pages_with_stems(self, stems: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self._rows(f"SELECT p.id, p.stem FROM pages p WHERE p.stem = ANY(%s::text[]) AND {where}",
                          (list(stems), *params))

    def entities_named(self, names: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self._rows(f"SELECT p.id, en.name FROM entity_names en JOIN pages p ON p.id = en.page "
                          f"WHERE en.name = ANY(%s::text[]) AND {where} ORDER BY p.path {C}, en.name {C}",
                          (list(names), *params))

    def stems_and_titles(self, pages: Sequence[int]) -> list[tuple[int, str, str]]:
        return self._grouped("stems", "SELECT id, stem, title FROM pages WHERE id = ANY(%s::bigint[])", pages)

    def linking(self, targets: Sequence[str], sel: Selection) -> list[tuple[int, str]]:
        where, params = sel.condition
        return self._rows(f"SELECT DISTINCT l.src, l.target FROM links l JOIN pages p ON p.id = l.src "
                          f"WHERE l.target = ANY(%s::text[]) AND {where}", (list(targets), *params))

    def out_degrees(self, pages: Sequence[int]) -> list[tuple[int, int]]:
        return self._grouped("out", "SELECT src, count(*) FROM links WHERE src = ANY(%s::bigint[]) GROUP BY src", pages)

    def in_degrees(self, targets: Sequence[str]) -> list[tuple[str, int]]:
        return self._grouped("in", "SELECT target, count(*) FROM links WHERE target = ANY(%s::text[]) GROUP BY target",
                             targets)

    # ------------------------------------------------------------ hits

    def citations_of(self, pages: Sequence[int]) -> list[CitationRow]:
        return [CitationRow(*r) for r in self._grouped(
            "citations", "SELECT c.src, c.line, c.capture_id, s.occurred_at, c.start_line FROM citations c "
            "LEFT JOIN pages s ON s.page_id = c.capture_id AND s.type = 'source' "
            "WHERE c.src = ANY(%s::bigint[]) ORDER BY c.src, c.line, c.capture_id", pages)]

    def fragment_rows(self, fragments: Sequence[int]) -> dict[int, FragmentRow]:
        return self._held("fragment_rows", fragments, lambda ids: {r[0]: FragmentRow(*r) for r in self.conn.execute(
            "SELECT id, seq, start_line, end_line FROM fragments WHERE id = ANY(%s::bigint[])", (ids,))})

    def fragment_at(self, page: int, line: int) -> int | None:
        row = self.conn.execute("SELECT id FROM fragments WHERE page = %s AND start_line <= %s ORDER BY seq DESC "
                                "LIMIT 1", (page, line)).fetchone()
        return row[0] if row else None

    def first_fragment(self, page: int) -> int | None:
        row = self.conn.execute("SELECT id FROM fragments WHERE page = %s ORDER BY seq LIMIT 1", (page,)).fetchone()
        return row[0] if row else None

    def fragment_text(self, fragment: int) -> str:
        return str(self.conn.execute("SELECT body FROM fragments WHERE id = %s", (fragment,)).fetchone()[0])

    def fragment_texts(self, fragments: Sequence[int]) -> dict[int, str]:
        if not fragments:
            return {}
        return self._held("fragment_texts", fragments, lambda ids: dict(self.conn.execute(
            "SELECT id, body FROM fragments WHERE id = ANY(%s::bigint[])", (ids,)).fetchall()))

    def page_infos(self, pages: Sequence[int]) -> dict[int, PageInfo]:
        return self._held("page_infos", pages, lambda ids: {r[0]: PageInfo(*r) for r in self.conn.execute(
            "SELECT id, path, title, type, layer, status, occurred_at, n_claims, n_cited, page_id, "
            "meta::jsonb ->> 'decay', "
            "(SELECT count(DISTINCT c.capture_id) FROM citations c WHERE c.src = pages.id), "
            "(SELECT count(*) FROM contradictions k WHERE k.page = pages.id AND k.status = 'open'), locator FROM pages "
            "WHERE id = ANY(%s::bigint[])", (ids,))})

    def hubs(self, pages: Sequence[int]) -> set[int]:
        return set(self._held("hubs", pages, lambda ids: {r[0]: True for r in self.conn.execute(
            "SELECT id FROM pages WHERE type IN ('entity', 'concept', 'project') AND id = ANY(%s::bigint[])",
            (ids,))}))

    def sources_of_captures(self, captures: Sequence[str], sel: Selection) -> dict[str, int]:
        where, params = sel.condition
        return dict(self.conn.execute(
            f"SELECT p.page_id, p.id FROM pages p WHERE p.page_id = ANY(%s::text[]) AND p.type = 'source' "
            f"AND {where}", (list(captures), *params)).fetchall())

    # ------------------------------------------------------------ reads

    def resolve_link(self, keys: Sequence[str], layers: tuple[str, ...], from_layer: str) -> PageRef | None:
        row = self.conn.execute(
            "SELECT path, title FROM pages WHERE stem = ANY(%s::text[]) AND type != 'source' "
            f"AND layer = ANY(%s::text[]) ORDER BY layer = %s DESC, layer = 'public' DESC, path {C} LIMIT 1",
            (list(keys), list(layers), from_layer)).fetchone()
        if row is None:
            row = self.conn.execute(
                "SELECT p.path, p.title FROM entity_names en JOIN pages p ON p.id = en.page "
                "WHERE en.name = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) "
                f"ORDER BY p.layer = %s DESC, p.layer = 'public' DESC, p.path {C} LIMIT 1",
                (list(keys), list(layers), from_layer)).fetchone()
        return PageRef(row[0], row[1]) if row else None

    def backlinks(self, names: Sequence[str], layers: tuple[str, ...], exclude: str, limit: int) -> list[Backlink]:
        return [Backlink(*r) for r in self.conn.execute(
            "SELECT p.path, min(p.title), min(l.line) FROM links l JOIN pages p ON p.id = l.src "
            "WHERE l.target = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) AND p.path != %s "
            f"GROUP BY p.path ORDER BY p.path {C} LIMIT %s", (list(names), list(layers), exclude, limit))]

    def count_pages(self, sel: Selection) -> int:
        where, params = sel.condition
        return int(self.conn.execute(f"SELECT count(*) FROM pages p WHERE {where}", params).fetchone()[0])

    def list_pages(self, sel: Selection, limit: int) -> list[ListedPage]:
        where, params = sel.condition
        return [ListedPage(*r) for r in self.conn.execute(
            f"SELECT p.path, p.title, p.type, p.layer, p.status, coalesce(p.updated, p.occurred_at), p.n_fragments, p.id "
            f"FROM pages p WHERE {where} ORDER BY p.type {C}, p.path {C} LIMIT %s", (*params, limit))]

    def entity(self, key: str, layers: tuple[str, ...]) -> EntityPage | None:
        row = self.conn.execute(
            "SELECT p.id, p.path, p.title, p.meta FROM entity_names en JOIN pages p ON p.id = en.page "
            f"WHERE en.name = %s AND p.layer = ANY(%s::text[]) ORDER BY en.kind {C} DESC, p.path {C} LIMIT 1",
            (key, list(layers))).fetchone()
        return EntityPage(*row) if row else None

    def about_entity(self, keys: Sequence[str], layers: tuple[str, ...], exclude: int) -> list[AboutPage]:
        return [AboutPage(*r) for r in self.conn.execute(
            "SELECT * FROM (SELECT DISTINCT p.id, p.path, p.title, p.type, p.status FROM page_entities pe "
            "JOIN pages p ON p.id = pe.page WHERE pe.entity = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) "
            f"AND p.id != %s) x ORDER BY x.type {C}, x.path {C}", (list(keys), list(layers), exclude))]

    def facts(self, pages: Sequence[int], layers: tuple[str, ...]) -> list[Fact]:
        return [Fact(*r) for r in self.conn.execute(
            "SELECT c.src, c.line, c.source_path, c.start_line, c.end_line, s.occurred_at, s.title "
            "FROM citations c JOIN pages s ON s.path = c.source_path AND s.type = 'source' "
            "WHERE c.src = ANY(%s::bigint[]) AND s.layer = ANY(%s::text[]) "
            f"ORDER BY s.occurred_at {C} NULLS FIRST, c.src, c.line", (list(pages), list(layers)))]

    def contradictions_on(self, pages: Sequence[int]) -> list[ContradictionRow]:
        return [ContradictionRow(*r) for r in self.conn.execute(
            "SELECT c.page, c.data FROM contradictions c WHERE c.page = ANY(%s::bigint[]) "
            f"ORDER BY c.status = 'resolved', c.con_id {C}", (list(pages),))]

    # ------------------------------------------------------------ ask

    def name_rows(self, layers: tuple[str, ...]) -> list[NameRow]:
        if not layers:
            return []
        rows = [NameRow(n, pid, t, str(json.loads(m).get("entity_type") or "")) for n, pid, t, m in self.conn.execute(
            "SELECT en.name, p.id, p.title, p.meta FROM entity_names en JOIN pages p ON p.id = en.page "
            "WHERE p.layer = ANY(%s::text[])", (list(layers),))]
        rows += [NameRow(t, pid, t, "project") for pid, t in self.conn.execute(
            "SELECT id, title FROM pages WHERE type = 'project' AND layer = ANY(%s::text[])", (list(layers),))]
        return rows

    def sources_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[SourceRow]:
        return [SourceRow(*r) for r in self.conn.execute(
            "SELECT path, title, coalesce(occurred_at, captured_at, '') FROM pages WHERE type = 'source' "
            "AND path = ANY(%s::text[]) AND layer = ANY(%s::text[])", (sorted(set(paths)), list(layers)))]

    def contradictions_at(self, paths: Sequence[str], layers: tuple[str, ...]) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT p.path, c.data FROM contradictions c JOIN pages p ON p.id = c.page "
            f"WHERE p.path = ANY(%s::text[]) AND p.layer = ANY(%s::text[]) ORDER BY p.path {C}, c.con_id {C}",
            (list(paths), list(layers)))]

    def line_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, bytes]:
        return {h: bytes(v) for h, v in self.conn.execute(
            "SELECT hash, vector FROM line_vectors WHERE fingerprint = %s AND hash = ANY(%s::text[])",
            (fingerprint, list(hashes)))}

    def put_line_vectors(self, fingerprint: str, rows: Sequence[tuple[str, bytes]], wait: float) -> bool:
        try:
            with self.conn.transaction():
                self.conn.execute(f"SET LOCAL lock_timeout = {max(1, int(wait * 1000))}")
                with self.conn.cursor() as cur:
                    cur.executemany("INSERT INTO line_vectors(hash, fingerprint, vector) VALUES (%s, %s, %s) "
                                    "ON CONFLICT (hash, fingerprint) DO UPDATE SET vector = excluded.vector",
                                    [(h, fingerprint, v) for h, v in rows])
                n = self.conn.execute("SELECT count(*) FROM line_vectors").fetchone()[0]
                if n > MAX_LINE_VECTORS:
                    self.conn.execute("DELETE FROM line_vectors WHERE ctid IN (SELECT ctid FROM line_vectors LIMIT %s)",
                                      (n // 2,))
            return True
        except self.errors:
            return False  # a reader without write rights, or a lock held too long: this answer keeps its vectors

    # ------------------------------------------------------------ term statistics

    def fragment_count(self, layers: tuple[str, ...] | None = None) -> int:
        if layers is None:
            return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM fragments").fetchone()[0])
        return int(self.conn.execute("SELECT count(*) FROM fts WHERE layer = ANY(%s::text[])",
                                     (list(layers),)).fetchone()[0])

    def term_frequency(self, term: str, probe: int, layers: tuple[str, ...] | None = None) -> int:
        query = pg_text.tsquery(pg_text.phrases([term]))
        if not query:
            return 0
        if layers is None:
            return int(self.conn.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE tsv @@ %s::tsquery LIMIT %s) x",
                                         (query, probe)).fetchone()[0])
        return int(self.conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM fts WHERE tsv @@ %s::tsquery AND layer = ANY(%s::text[]) LIMIT %s) x",
            (query, list(layers), probe)).fetchone()[0])

