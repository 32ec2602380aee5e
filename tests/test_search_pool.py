"""A long-lived service's pool of warm search sessions (service/core.py): searches from several callers run
side by side, each on a session lent to it alone, never more sessions than the pool's size; scope stays the
caller's; a session that failed is closed, not lent again; one lent out when the readers changed is closed
when it comes back. Real Git, real SQLite, the tests' deterministic embedder."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_index_support import HashEmbedder, RepoBuilder

from stigmergy.index.build import build_index
from stigmergy.index.search import Searcher
from stigmergy.service import Identity, WikiService
from stigmergy.service import core as core_module

BOSS = "boss@example.com"
OUTSIDER = "intern@example.com"
CANARY = "PANGOLINQUASAR"


def _wiki(root: Path) -> RepoBuilder:
    b = RepoBuilder(root, layers={"secret": [BOSS]})
    for i in range(4):
        b.wiki("note", f"Note {i}", f"Aurora shipped widget {i} to Acme in week {i}.\n")
    b.wiki("note", "Secret plan", f"{CANARY} is the plan for the Aurora widget.\n", layer="secret")
    b.commit("seed")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    return b


def _served(b: RepoBuilder) -> WikiService:
    return WikiService(b.root, b.settings, Identity(BOSS), {}, embedder=HashEmbedder()).serving()


def test_searches_run_side_by_side_each_on_a_session_of_its_own(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """As many searches as the pool holds are inside `search` at the same moment (a barrier that one
    session at a time could never pass), on distinct sessions; a further caller waits for one to come back
    rather than open another; every caller sees only their own layers."""
    b = _wiki(tmp_path / "w")
    server = _served(b)
    size = core_module.SEARCH_SESSIONS
    inside = threading.Barrier(size, timeout=30)
    used: list[int] = []
    real = Searcher.search

    def search(self: Searcher, *a: object, **k: object) -> object:
        used.append(id(self))
        inside.wait()  # BrokenBarrierError (a failed search below) if fewer run at once
        return real(self, *a, **k)

    monkeypatch.setattr(Searcher, "search", search)
    callers = [server.for_caller(Identity(BOSS if i % 2 else OUTSIDER)) for i in range(2 * size)]
    found: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            found[i] = [h.path for h in callers[i].search(f"{CANARY} Aurora widget").hits]
        except BaseException as exc:  # noqa: BLE001 - asserted empty below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(callers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    server.close()
    assert errors == []
    assert len(set(used)) == size  # the second wave reused the first wave's sessions
    assert server._warm_state.lent == 0
    for i, paths in found.items():
        secret = any(p.startswith("layers/secret/") for p in paths)
        assert secret == bool(i % 2), (i, paths)


def test_a_failed_session_is_closed_and_the_next_search_opens_a_new_one(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    b = _wiki(tmp_path / "w")
    server = _served(b)
    first = server.search("Aurora widget").hits
    (session,) = server._warm_state.idle
    closed: list[int] = []
    real_close = Searcher.close
    monkeypatch.setattr(Searcher, "close", lambda self: closed.append(id(self)) or real_close(self))
    monkeypatch.setattr(Searcher, "search", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("connection lost")))
    with pytest.raises(RuntimeError, match="connection lost"):
        server.search("Aurora widget")
    assert closed == [id(session)] and server._warm_state.idle == [] and server._warm_state.lent == 0
    monkeypatch.undo()
    assert server.search("Aurora widget").hits == first
    server.close()


def test_a_session_lent_when_the_readers_change_is_closed_when_it_comes_back(tmp_path: Path) -> None:
    """The boss is removed from the secret layer while a search session is lent out: the settings are read
    again at once, the lent session (built with the old readers) is not lent again, and the boss's next
    search no longer shows the secret page."""
    b = _wiki(tmp_path / "w")
    server = _served(b)
    assert any(h.path.startswith("layers/secret/") for h in server.search(CANARY).hits)
    with server.searching() as lent:
        toml = b.root / "stigmergy.toml"
        toml.write_text(toml.read_text().replace(f'"{BOSS}"', '"someone@example.com"'))
        server.refresh_settings()
    assert lent not in server._warm_state.idle
    assert not any(h.path.startswith("layers/secret/") for h in server.search(CANARY).hits)
    server.close()


def test_the_pools_sessions_share_one_working_tree_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Re-scanning the working tree for page edits is two git commands over every page file: the pool's
    sessions share one freshness answer (one scan a `freshness_ttl` for all of them, not one a session),
    and a page edited since is still seen once that answer expires."""
    from stigmergy.index import session as session_module

    b = _wiki(tmp_path / "w")
    server = _served(b)
    scans: list[tuple[str, ...]] = []
    real = session_module.freshness

    def counted(store: object, git: object, layers: tuple[str, ...]) -> object:
        scans.append(tuple(layers))
        return real(store, git, layers)  # type: ignore[arg-type]

    monkeypatch.setattr(session_module, "freshness", counted)
    with server.searching() as one, server.searching() as two:
        assert one is not two  # two sessions of the pool, both lent at once
        first, second = one.freshness(("public",)), two.freshness(("public",))
        assert len(scans) == 1 and first is second and not first.stale
        (b.root / "wiki" / "notes" / "Note 1.md").write_text("edited, not committed\n")
        one.scope.memo.fresh.last = None  # the answer expires through one session: the other sees it too
        assert two.freshness(("public",)).stale  # and the edit shows
        assert len(scans) == 2


def test_an_expired_answer_is_rescanned_in_the_background_and_taken_meanwhile(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's sessions never stand still for a re-scan: the session that finds the answer expired (its
    key still holds) takes it at once, as the others do, while a thread re-scans on its own connection; a
    commit changes the key, and then a session scans itself."""
    from stigmergy.index import session as session_module

    b = _wiki(tmp_path / "w")
    server = _served(b)
    real = session_module.freshness
    release = threading.Event()
    scanning = threading.Event()
    scans: list[tuple[str, object]] = []

    def slow(store: object, git: object, layers: tuple[str, ...]) -> object:
        scans.append((threading.current_thread().name, store))
        if len(scans) == 2:  # the re-scan after the answer expired: held until both sessions have asked
            scanning.set()
            assert release.wait(10)
        return real(store, git, layers)  # type: ignore[arg-type]

    monkeypatch.setattr(session_module, "freshness", slow)
    with server.searching() as one, server.searching() as two:
        first = one.freshness(("public",))
        cache = one.scope.memo.fresh
        assert cache.background and cache.last is not None
        cache.last = (cache.last[0], cache.last[1] - 3600.0, cache.last[2])  # expired, same key
        assert one.freshness(("public",)) is first  # at once: the re-scan runs on its own thread
        assert scanning.wait(10)
        name, store = scans[1]
        assert name == "stigmergy-freshness" and store is not one.scope.store and store is not two.scope.store
        assert two.freshness(("public",)) is first and len(scans) == 2  # no second scan meanwhile
        release.set()
        cache.settle()
        assert cache.last is not None and cache.last[2] is not first  # the re-scan's answer replaced it
        assert not cache.scanning
        (b.root / "wiki" / "notes" / "Note 9.md").write_text("# Note 9\n\nnew.\n")
        b.commit("a commit changes the key")
        assert two.freshness(("public",)).stale and len(scans) == 3 and scans[2][0] != "stigmergy-freshness"


def test_a_failed_background_rescan_keeps_the_answer_and_tries_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stigmergy.index import session as session_module

    b = _wiki(tmp_path / "w")
    server = _served(b)
    with server.searching() as one:
        first = one.freshness(("public",))
        cache = one.scope.memo.fresh
        real = session_module.freshness

        def broken(store: object, git: object, layers: tuple[str, ...]) -> object:
            raise OSError("the disk went away")

        monkeypatch.setattr(session_module, "freshness", broken)
        assert cache.last is not None
        cache.last = (cache.last[0], cache.last[1] - 3600.0, cache.last[2])
        assert one.freshness(("public",)) is first
        cache.settle()
        assert not cache.scanning and cache.last is not None and cache.last[2] is first
        monkeypatch.setattr(session_module, "freshness", real)
        assert one.freshness(("public",)) is first  # still expired: a new re-scan starts, this one succeeds
        cache.settle()
        assert cache.last is not None and cache.last[2] is not first and not cache.last[2].stale


def test_a_slow_scan_is_repeated_less_often(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer holds for `freshness_ttl` or SCAN_SPACING times its scan, whichever is longer: a server over
    a large working tree does not spend a share of its cores re-scanning it every two seconds. A TTL of 0
    still scans on every query."""
    import time as time_module

    from stigmergy.index import session as session_module

    b = _wiki(tmp_path / "w")
    server = _served(b)
    real = session_module.freshness
    scans: list[float] = []

    def slow(store: object, git: object, layers: tuple[str, ...]) -> object:
        scans.append(time_module.monotonic())
        time_module.sleep(0.1)  # a scan of 0.1 s: its answer holds >= 5 s, past the 2 s TTL
        return real(store, git, layers)  # type: ignore[arg-type]

    monkeypatch.setattr(session_module, "freshness", slow)
    with server.searching() as one:
        first = one.freshness(("public",))
        cache = one.scope.memo.fresh
        assert cache.last is not None and cache.spent >= 0.1 and cache.expires(2.0) >= 5.0
        assert cache.expires(0.0) == 0.0
        cache.last = (cache.last[0], cache.last[1] - 3.0, cache.last[2])  # past the TTL, within 50 scans
        assert one.freshness(("public",)) is first and len(scans) == 1 and not cache.scanning
        cache.last = (cache.last[0], cache.last[1] - 60.0, cache.last[2])  # past both
        assert one.freshness(("public",)) is first  # taken at once while the re-scan runs
        cache.settle()
        assert len(scans) == 2 and cache.last[2] is not first
    every = session_module.SearchScope(b.root, server.settings, one.scope.layout, one.scope.git, one.scope.store, 0.0)
    every.memo.fresh.spent = 10.0
    session_module.scope_freshness(every, ("public",))
    session_module.scope_freshness(every, ("public",))
    assert len(scans) == 4  # a TTL of 0: each query scanned, however slow the scans
    server.close()
