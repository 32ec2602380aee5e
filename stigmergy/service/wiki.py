"""`WikiService`: every operation of the product, for one repository, one caller and one environment.

Built once per entry point (a CLI command, an MCP server, the web server to come) from the repository
root, the resolved settings, the caller's `Identity` and the environment. It holds the `Repository`, the
planner (made on first use and kept), and the warm search session (the connection and the embedding model
stay loaded for as long as the service lives). Each operation that writes takes the writer lock and applies
its recovery policy (`policy.WRITE_POLICIES`, declared once per operation); every read is scoped by the
caller's layers. Front ends parse, call one method, render what it returns.

The class is written in three modules, one front door all the same: what every operation stands on (the
state above, the lock and recovery, the warm sessions and caches) is `ServiceCore` in core.py; the trust
judgements (feedback, verify, invalidate, reinstate, the trust report) are `Judgements` in
judgements.py; every other operation is here.

Nothing here imports a heavy library at module level: importing the service loads no torch, onnxruntime
or mcp (tests/test_cli_structure.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.errors import LockTimeoutError, NotARepositoryError, NotFoundError, UsageError
from stigmergy.service.identity import Identity
from stigmergy.service.judgements import Judgements
from stigmergy.service.policy import WRITE_POLICIES, Recovery
from stigmergy.service.values import Captured, CaptureRequest, Gathered, LintResult
from stigmergy.settings import Settings

if TYPE_CHECKING:
    from stigmergy.index.search import SearchResult
    from stigmergy.index.store import Filters
    from stigmergy.service.search_workers import SearchWorkers
    from stigmergy.write.capture import CaptureOutcome, CaptureReport
    from stigmergy.write.maintain import MaintainReport
    from stigmergy.write.maintenance import Outcome

OnEvent = Callable[[str, Any], None]

# A viewer shows a page whole: every page the gates admit is far below this.
PAGE_VIEW_CHARS = 2_000_000
PAGE_VIEW_LINKS = 2_000  # every wikilink of a page is drawn as a link (read resolves 20)


class WikiService(Judgements):
    """Every operation, one method each. Built as `WikiService(root, settings, identity, env)` (the
    constructor and the state it sets up are `ServiceCore`'s, service/core.py)."""

    def with_identity(self, identity: Identity) -> WikiService:
        """The same service for another caller (`--as`), sharing nothing warm."""
        return WikiService(self.root, self.settings, identity, self.env, embedder=self._embedder,
                           on_wait=self._on_wait, long_lived=self.long_lived)

    def serving(self) -> WikiService:
        """The same service for a server that lives long (`stigmergy mcp`, `stigmergy serve`): Git reads
        through GitPython's persistent reader; every caller's service made from it (`for_caller`) too."""
        return WikiService(self.root, self.settings, self.identity, self.env, embedder=self._embedder,
                           on_wait=self._on_wait, long_lived=True)

    def for_caller(self, identity: Identity) -> WikiService:
        """The same service for another caller of one server, sharing the warm search session (the
        repository, planner and writer lock are per service; the lock file serialises writers)."""
        other = self.with_identity(identity)
        other._warm_state = self._warm_state
        return other

    # ------------------------------------------------------------ capture, file, resume

    def _options(self, request: CaptureRequest) -> Any:
        """The capture options of `request`, checked: every usage error of a capture (exit 2), before
        anything is read or stored (the pipeline does not check them again)."""
        from stigmergy.capture.queue import CaptureOptions
        from stigmergy.write.capture import validate

        options = CaptureOptions(
            title=request.title, occurred_at=request.occurred_at,
            submitted_by=request.submitted_by or self.identity.submitter, layer=request.layer,
            project=request.project, resolves=request.resolves, rationale=request.rationale, force=request.force,
            file=request.file, origin=request.origin, reader=self.reader, redact=request.redact,
        )
        validate(self.repository(), options)
        if options.file:
            # A model kind only the repository chose is refused before anything is read or stored.
            self.settings.require_endpoint("planner")
        return options

    def gather(self, request: CaptureRequest) -> Gathered:
        """Check a capture request and expand its inputs (nothing read yet)."""
        from stigmergy.capture.inputs import Skipped, gather
        from stigmergy.write.capture import CaptureOutcome

        self.require_root()
        if not request.inputs and request.text is None:
            raise UsageError("nothing to capture", hint="give files, directories, - for stdin, or --text")
        options = self._options(request)
        skipped: list[Skipped] = []
        capture = self.settings.capture
        items, errors = gather(
            request.inputs, request.include or capture.include, (*capture.exclude, *request.exclude),
            stdin=request.stdin, text=request.text, skipped=skipped, hidden=request.hidden,
        )
        failed = tuple(CaptureOutcome(locator=e.locator, status="failed", message=e.message, rule=e.rule)
                       for e in errors)
        return Gathered(request, options, tuple(items), failed, tuple(skipped))

    def capture(self, gathered: Gathered, on_event: OnEvent | None = None) -> Captured:
        """Capture what `gather` found: read and extract every input before the lock (a slow or hostile
        input holds up nobody), then file each one as its own operation."""
        from stigmergy.write.capture import CaptureReport, capture, read_inputs

        read = read_inputs(gathered.items, gathered.options, self.settings.capture, self.settings)
        with self._writing("capture") as (repo, resumed):
            outcomes = capture(repo, read, gathered.options, on_event=on_event, planners=self.planner)
        return Captured(CaptureReport(outcomes=[*gathered.failed, *outcomes], resumed=resumed), gathered.skipped)

    def capture_text(self, text: str, *, title: str | None = None, occurred_at: str | None = None,
                     layer: str = "public", project: str | None = None, resolves: str | None = None,
                     rationale: str | None = None, origin: str = "mcp") -> CaptureOutcome:
        """Capture one text (an agent's, a chat message) as the caller, into a layer they may read."""
        from stigmergy.capture.inputs import InputItem

        if layer not in self.readable():
            # The same answer as an undeclared layer: a reader cannot learn which restricted layers exist.
            raise UsageError(f"no layer {layer!r} that {self.reader or 'this reader'} may write to")
        data = text.encode("utf-8")
        request = CaptureRequest(text=text, title=title, occurred_at=occurred_at, layer=layer, project=project,
                                 resolves=resolves, rationale=rationale, origin=origin,
                                 submitted_by=self.reader or "unknown")
        options = self._options(request)  # also: `resolves` names an open contradiction this reader can see
        item = InputItem(locator=origin, read=lambda: data, size=len(data), origin_name=f"{origin}.md")
        done = self.capture(Gathered(request, options, (item,), (), ()))
        return done.report.outcomes[0]

    def file(self, captures: Sequence[str] | None = None, on_event: OnEvent | None = None) -> CaptureReport:
        from stigmergy.write.capture import CaptureReport, file_captures

        with self._writing("file") as (repo, resumed):
            outcomes = file_captures(repo, captures or None, planners=self.planner, on_event=on_event,
                                     reader=self.reader)
        return CaptureReport(outcomes=outcomes, resumed=resumed)

    def resume(self) -> list[CaptureOutcome]:
        with self._writing("resume") as (_repo, resumed):
            return resumed

    # ------------------------------------------------------------ live chat events (serve --slack)

    def _events(self, source: str) -> Any:
        from stigmergy.repo.layout import Layout
        from stigmergy.repo.ledger import EventLedger

        if source not in ("slack",):
            raise UsageError(f"no chat endpoint {source!r}")
        return EventLedger(Layout(self.require_root()).state_dir / "events" / source)

    def claim_event(self, source: str, event_id: str, payload: Mapping[str, Any]) -> bool:
        """Record a delivered event once (persisted: across retries, processes and restarts), holding its
        payload until `capture_chat_message` settles it; False for a redelivery (nothing to do)."""
        return bool(self._events(source).claim(event_id, payload))

    def pending_events(self, source: str) -> list[tuple[str, dict[str, Any]]]:
        """(event id, payload) of events claimed and never settled (the server stopped in between)."""
        return list(self._events(source).pending())

    def capture_chat_message(self, source: str, event_id: str, event: Mapping[str, Any], *, channel: str,
                             channel_id: str, people: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        """Capture the message a claimed event carries as a chat page of its own, as this service's caller,
        through the normal pipeline: `[channels]` maps its channel to a layer (an unmapped private one is
        refused), the credential check, the gates, one commit. Settles the event; returns its outcome
        ({"status": "ignored"} for an event that carries no message to capture)."""
        from stigmergy.capture.chat.live import slack_message_page
        from stigmergy.capture.extract import CHAT
        from stigmergy.capture.inputs import InputItem

        ledger = self._events(source)
        page = slack_message_page(event, channel, channel_id, people)
        if page is None:
            outcome: dict[str, Any] = {"status": "ignored"}
        else:
            data = page.to_bytes()
            item = InputItem(locator=f"slack:#{channel}/{page.messages[0].ts}", read=lambda: data, size=len(data),
                             media_type=CHAT)
            request = CaptureRequest(origin=source)
            try:
                done = self.capture(Gathered(request, self._options(request), (item,), (), ()))
                outcome = done.report.outcomes[-1].to_dict()
            except LockTimeoutError:
                raise  # another writer held the lock: left queued, to be tried again (nothing was stored)
            except Exception as exc:  # settled either way: a redelivery must not capture it a second time
                outcome = {"status": "failed", "message": str(getattr(exc, "message", exc))[:500],
                           "rule": getattr(exc, "rule", None) or type(exc).__name__}
                ledger.settle(event_id, outcome)
                raise
        ledger.settle(event_id, outcome)
        return outcome

    # ------------------------------------------------------------ maintenance

    def garden(self, *, check: bool = False, dry_run: bool = False) -> Outcome:
        """What it repairs does not depend on the reader, but it repairs only in the layers the caller may
        write; what it names of layers they cannot read is a count."""
        from stigmergy.layers import writable_layers
        from stigmergy.write.maintenance import garden

        readable = frozenset(self.readable())
        writable = frozenset(writable_layers(self.settings, self.reader))
        with self._writing("garden") as (repo, _):
            outcome = garden(repo, check=check, dry_run=dry_run, readable=readable, writable=writable)
        if check:
            # What the trust sweep would mark and what it lists for a person (docs/trust.md); reported,
            # never a reason to fail the check: none of it is a broken page.
            outcome.report["trust"] = self.trust_report().to_dict()
        return outcome

    def delete(self, target: str, rationale: str, *, dry_run: bool = False) -> Outcome:
        from stigmergy.write.maintenance import delete

        with self._writing("delete") as (repo, _):
            return delete(repo, target, rationale, reader=self.reader, dry_run=dry_run)

    def merge(self, page: str, into: str, *, dry_run: bool = False) -> Outcome:
        from stigmergy.write.maintenance import merge

        with self._writing("merge") as (repo, _):
            return merge(repo, page, into, reader=self.reader, dry_run=dry_run)

    def rename(self, page: str, title: str, *, dry_run: bool = False) -> Outcome:
        from stigmergy.write.maintenance import rename

        with self._writing("rename") as (repo, _):
            return rename(repo, page, title, reader=self.reader, dry_run=dry_run)

    def recompile(self, *, from_date: str | None = None, by_occurred: bool = False, resume: bool = False,
                  dry_run: bool = False, on_step: Callable[[int, int, str], None] | None = None) -> Outcome:
        from stigmergy.layers import check_recompile
        from stigmergy.write.recompile import content_layers, recompile

        # A maintainer of every layer the wiki has, or refused at once, before the lock.
        check_recompile(self.settings, self.reader, content_layers(self.repository()))
        with self._writing("recompile") as (repo, _):
            return recompile(repo, from_date=from_date, by_occurred=by_occurred, resume=resume, dry_run=dry_run,
                             planners=self.planner, on_step=on_step, reader=self.reader)

    def maintain(self, *, index: bool = True, as_caller: bool = False) -> MaintainReport:
        """A scheduler's run. It acts as the caller when `as_caller` (they named themselves, `--as`), else as
        the `[roles] service` identity, else as the caller: garden writes only where that identity may."""
        from stigmergy.layers import service_identity
        from stigmergy.write.maintain import maintain

        assert WRITE_POLICIES["maintain"].recovery is Recovery.OWN_STEP
        repo = self.repository()
        service = service_identity(self.settings)
        identity = self.reader if as_caller or not service else service
        quiet = repo.lock(on_wait=lambda _m: None, timeout=0.0)  # a scheduler's run: nothing to say
        return maintain(repo, self.planner, index=index, lock=quiet, identity=identity)

    # ------------------------------------------------------------ erase, export, import

    def plan_erase(self, captures: Sequence[str], layer: str | None, rationale: str) -> Any:
        """What an erase would do (the dry run); changes nothing."""
        from stigmergy.write.erase import plan_erase

        return plan_erase(self.repository(), captures, layer, rationale, reader=self.reader)

    def erase(self, plan: Any) -> Any:
        from stigmergy.write.erase import run_erase

        with self._writing("erase") as (repo, _):
            return run_erase(repo, plan)

    def audit(self, needle: str) -> Any:
        """Where `needle` (text or a sha256) is still found; only a reader of every layer may ask."""
        from stigmergy.history.audit import audit, require_every_layer

        require_every_layer(self.settings, self.reader)
        return audit(self.require_root(), needle, evidence=self.repository().evidence)

    def export(self, dest: Path, layers: Sequence[str] | None = None) -> Any:
        from stigmergy.history.bundle import export_bundle
        from stigmergy.repo.layout import layer_checkout

        readable = self.readable()
        if layers:
            for name in layers:
                self.settings.layer(name)  # an unknown layer is a usage error
            # A bundle carries every capture's original bytes: naming a layer does not make its reader.
            if denied := [name for name in dict.fromkeys(layers) if name not in readable]:
                raise UsageError(f"--layer {', '.join(denied)}: you ({self.reader or 'no identity'}) are not "
                                 "among its readers; only a reader of a layer may export it")
            chosen = tuple(dict.fromkeys(layers))
        else:
            chosen = readable
        # A bundle must hold every capture of what it names: a layer kept in a repository of its own is read
        # from its checkout, so naming it (or defaulting to it) in a clone without one is refused rather
        # than left out unsaid.
        root = self.require_root()
        if elsewhere := [name for name in chosen if self.settings.layer(name).repository
                         and not (layer_checkout(root, name) / ".git").exists()]:
            here = [name for name in chosen if name not in elsewhere]
            raise UsageError(f"layer {', '.join(elsewhere)} lives in its own repository, and this clone has no "
                             f"checkout of it at layers/{elsewhere[0]}/; nothing written",
                             hint=("export the others by name: " + " ".join(f"--layer {n}" for n in here))
                             if here else f"git clone {self.settings.layer(elsewhere[0]).repository} "
                                          f"layers/{elsewhere[0]}")
        return export_bundle(self.repository(), dest, chosen)

    def import_bundle(self, src: Path, on_event: OnEvent | None = None) -> Any:
        from stigmergy.write.replay import import_bundle

        with self._writing("import") as (repo, _):
            return import_bundle(repo, src, self.planner, on_event, reader=self.reader)

    # ------------------------------------------------------------ the index

    def index(self, *, rebuild: bool = False, progress: Callable[[int, int], None] | None = None) -> Any:
        """Bring the index up to date (incremental), then serve a hook's request left while we built."""
        from stigmergy.index.build import build_index
        from stigmergy.index.hooks import run_hook_index

        root = self.require_root()
        report = build_index(root, self.settings, rebuild=rebuild, progress=progress, pause=self.repository().pause)
        if (self.repository().layout.state_dir / "index.dirty").exists():
            # A hook fired while we held the lock and left its request for us: serve it before returning.
            run_hook_index(root, lambda: build_index(root, self.settings, lock=False))
        return report

    def index_hook(self, from_push: bool = False) -> int:
        """As the git hooks run it: take the index lock or leave a dirty mark, loop while marks appear. A
        shared index is written by the server's hook after a push (`from_push`), never by a clone's commit
        hook: a commit not pushed is this clone's alone."""
        from stigmergy.index.build import build_index
        from stigmergy.index.hooks import run_hook_index

        root = self.require_root()
        if self.settings.index.backend == "postgres" and not from_push:
            return 0
        return run_hook_index(root, lambda: build_index(root, self.settings, lock=False, from_push=from_push))

    def index_worker(self, stop: Any, log: Callable[[str], None], ready: Callable[[str], None]) -> None:
        """Serve the post-receive hook's index requests from a warm process until `stop` (a
        threading.Event) is set (index/worker.py). The model is loaded before the socket is announced."""
        from stigmergy.index.worker import WarmIndexer, bind_socket, serve

        root = self.require_root()
        indexer = WarmIndexer(root, dict(self.env))
        indexer.warm()
        sock = bind_socket(root)
        ready(str(sock.getsockname()))
        try:
            serve(sock, indexer, stop, log)
        finally:
            indexer.close()

    def check_index(self) -> Any:
        from stigmergy.index.build import check_index

        return check_index(self.require_root(), self.settings)

    def prepare_model(self) -> Path:
        from stigmergy.index.build import prepare

        return prepare(self.require_root(), self.settings)

    def install_hooks(self, server: Path | None = None, checkout: Path | None = None) -> list[Any]:
        from stigmergy.index.hooks import install, install_server

        if server is not None:
            # Without a checkout the server gets the gate alone (pre-receive), no index.
            return install_server(server, checkout)
        return install(self.require_root())

    def uninstall_hooks(self, server: Path | None = None) -> list[Any]:
        from stigmergy.index.hooks import uninstall

        return uninstall(server if server is not None else self.require_root())

    def judge_push(self, git_dir: Path, updates: Sequence[str]) -> tuple[int, list[Any]]:
        """The pre-receive gate: every commit a push brings, judged by the preservation gates."""
        from stigmergy.gates.push import audit_push
        from stigmergy.repo.git import Git

        return audit_push(Git(git_dir), updates, self.settings)

    # ------------------------------------------------------------ reads of the index

    def search_workers(self) -> SearchWorkers | None:
        """The searches' worker processes of a long-lived service with `[search] processes` above 1, started
        on first use and shared by every caller's service; None otherwise (a command, or one process)."""
        processes = self.settings.search.processes
        if not self.long_lived or processes <= 1:
            return None
        warm = self._warm_state
        with warm.lock:
            if warm.workers is None:
                from stigmergy.service.search_workers import SearchWorkers

                warm.workers = SearchWorkers(self.require_root(), self.settings, dict(self.env), processes,
                                             embedder=self._embedder)
            return warm.workers

    def search(self, query: str, *, k: int | None = None, filters: Filters | None = None) -> SearchResult:
        pool = self.search_workers()
        if pool is not None:
            found = pool.search(self.settings, query, self.reader, k, filters)
        else:
            with self.searching() as searcher:
                found = searcher.search(query, self.reader, k=k, filters=filters)
        self._count(h.page_id for h in found.hits)
        return found

    def ask(self, question: str, *, evidence: bool = False) -> dict[str, Any]:
        from stigmergy.answer import llm
        from stigmergy.answer.service import ask

        llm.endpoint(self.settings, self.env)  # a misconfigured answerer fails before the index is opened
        with self.searching() as searcher:
            out = ask(self.require_root(), self.settings, self.reader, question, evidence=evidence,
                      searcher=searcher, env=self.env)
        self._count(p.get("page_id") for p in out.get("trust", {}).get("pages", []))
        return out

    def read(self, refs: Sequence[str], *, evidence: bool = False, chars: int | None = None) -> dict[str, Any]:
        from stigmergy.index.reads import read_pages

        book = self.trust_book()
        with self._read_store() as store:
            out = read_pages(self.require_root(), self.settings, self.reader, list(refs), evidence=evidence,
                             head_chars=chars, book=book, git=self._git(), store=store)
        self._count(p["front_matter"].get("id") for p in out["pages"])
        return out

    def list_pages(self, filters: Filters | None = None, limit: int = 200) -> dict[str, Any]:
        from stigmergy.index.reads import list_pages

        book = self.trust_book()
        with self._read_store() as store:
            return list_pages(self.require_root(), self.settings, self.reader, filters, limit=limit,
                              git=self._git(), book=book, store=store)

    def describe(self, entity: str) -> dict[str, Any]:
        from stigmergy.index.reads import describe_entity

        book = self.trust_book()
        with self._read_store() as store:
            out = describe_entity(self.require_root(), self.settings, self.reader, entity, book=book,
                                  git=self._git(), store=store)
        self._count([out["entity"].get("page_id"), *(p.get("page_id") for p in out["pages"])])
        return out

    def freshness(self) -> dict[str, Any] | None:
        """The index's freshness over the caller's layers, None when there is no complete index. From the
        warm search session: HEAD and the git index are re-read each time, the working tree re-scanned at
        most every two seconds."""
        try:
            with self.searching() as searcher:
                return searcher.freshness(self.readable()).to_dict()
        except NotFoundError:
            return None

    # ------------------------------------------------------------ whole pages, for a viewer (the web view)

    def _readable_page(self, path: str, kind: str | None = None) -> str:
        """`path` normalised, when it names a page of a layer the caller may read that exists; else the
        one "no page" answer `read` gives (absent and not yours to read are told apart by nothing)."""
        import posixpath

        from stigmergy.repo.containment import contained_file
        from stigmergy.repo.layout import classify

        norm = posixpath.normpath(path.strip().replace("\\", "/")) if path.strip() else ""
        found = classify(norm) if norm and not norm.startswith(("/", "..")) else None
        if (found is None or found[1] not in self.readable() or (kind is not None and found[0] != kind)
                or contained_file(self.require_root(), norm) is None):
            raise NotFoundError(f"no page at {path}", hint="`stigmergy list` shows the pages you can read")
        return norm

    def page(self, path: str) -> dict[str, Any]:
        """One page whole (`read`'s answer for it, all of its text) and every contradiction block on it,
        open and resolved, with the lines it spans."""
        from stigmergy.index.reads import read_pages
        from stigmergy.pages.contradictions import scan_blocks

        # Freshness from the warm session (cached while HEAD and the index are unchanged): checking it
        # afresh runs git twice, most of a page view's time.
        result = read_pages(self.require_root(), self.settings, self.reader, [self._readable_page(path)],
                            head_chars=PAGE_VIEW_CHARS, check_freshness=False, max_links=PAGE_VIEW_LINKS,
                            book=self.trust_book())
        self._count(p["front_matter"].get("id") for p in result["pages"])
        result["index"] = self.freshness()
        page = result["pages"][0]
        blocks, _errors = scan_blocks(page["content"], page["path"])
        page["blocks"] = [{"start": b.start_line, "end": b.end_line, **b.record.to_dict()} for b in blocks]
        return result

    def history(self, path: str, limit: int = 50) -> list[dict[str, Any]]:
        """The commits that changed a page the caller may read, newest first (repo/pagelog.py)."""
        from stigmergy.repo.git import Git
        from stigmergy.repo.pagelog import page_history

        norm = self._readable_page(path)
        return page_history(Git(self.require_root()), norm, self.readable(), limit=limit)

    def original(self, path: str) -> tuple[bytes, str, str]:
        """(bytes, media type, file name) of the original a source page was extracted from, for a reader
        of its layer; NotFoundError when the evidence store does not hold it (a clone without objects)."""
        from stigmergy.pages.source import parse_source_page
        from stigmergy.repo.containment import read_contained

        norm = self._readable_page(path, kind="source")
        text = read_contained(self.require_root(), norm, errors="replace") or ""
        source = parse_source_page(text, norm)
        if not source.artifacts:
            raise NotFoundError(f"{path} keeps no original")
        artifact = source.artifacts[0]
        evidence = self.repository().evidence
        if not evidence.has(artifact.sha256):
            raise NotFoundError(f"the original of {path} is not in this server's evidence store",
                                hint="`stigmergy fsck` lists missing originals")
        name = source.locator.replace("\\", "/").rsplit("/", 1)[-1] or f"{source.id}.bin"
        return evidence.get(artifact.sha256), artifact.media_type, name

    # ------------------------------------------------------------ reads of the working tree

    def contradictions(self, status: str | None = None) -> list[dict[str, Any]]:
        from stigmergy.index.overview import contradictions

        return contradictions(self.require_root(), self.settings, self.reader, status)

    def overview(self) -> dict[str, Any]:
        from stigmergy.index.overview import overview

        return overview(self.require_root(), self.settings, self.reader)

    def lint(self, *, strict: bool = False, accept_history: bool = False) -> LintResult:
        """The page, citation and contradiction contracts over the reader's layers, and the commits since
        the last clean check against the gates (findings elsewhere are counts)."""
        from stigmergy.gates.history import audit_since_last_check, mark_checked
        from stigmergy.gates.lint import lint_repository, scope_report
        from stigmergy.layers import path_layer
        from stigmergy.service.values import replace_findings

        root = self.require_root()
        readable = set(self.readable())
        report = scope_report(lint_repository(root, self.settings, strict=strict), readable)
        history = audit_since_last_check(root, self.settings)
        # A commit's finding in a layer the reader cannot read is counted, never shown (its path names a page).
        hidden = sum(1 for h in history.findings if path_layer(h.path) not in readable)
        shown = replace_findings(history, [h for h in history.findings if path_layer(h.path) in readable])
        if accept_history and history.head:
            mark_checked(root, history.head)
        return LintResult(report, history, shown, hidden, accept_history)

    # ------------------------------------------------------------ reads of the state database

    def log(self, *, limit: int = 20, kind: str | None = None) -> list[dict[str, Any]]:
        from stigmergy.repo.oplog import operations_for

        if limit < 1:
            raise UsageError(f"--limit/-n {limit}: ask for at least one operation")
        return operations_for(self._reading_state("log"), self.readable(), limit=limit, kind=kind)

    def show(self, op: str, *, patch: bool = True) -> dict[str, Any]:
        from stigmergy.repo.oplog import operation_for

        row = operation_for(self._reading_state("show"), self.readable(), op, patch=patch)
        if row is None:
            raise NotFoundError(f"no operation {op!r}", hint="`stigmergy log` lists them")
        return row

    def status(self) -> dict[str, Any]:
        """Pending work, the last operation, the index's state and the repository's health, as the caller
        may see them; and whether a recompile would change the wiki."""
        from stigmergy.index.store import index_location, index_state
        from stigmergy.repo.health import status
        from stigmergy.write.recompile import planner_state

        repo = self._reading_state("status")
        data = status(repo, index_state(index_location(repo.layout, self.settings)), self.readable())
        data["planner"] = planner_state(repo)
        return data

    def fsck(self) -> Any:
        from stigmergy.capture.fsck import fsck

        return fsck(self._reading_state("fsck")).scoped(set(self.readable()))


def init_repository(path: Path, settings: Settings) -> Any:
    """`stigmergy init`: a knowledge repository at `path` (stigmergy.toml, the librarian skill, folders,
    first commit); nothing to do when it is one already."""
    from stigmergy.repo.init import init_repository as init

    return init(path, settings)


def locate(start: Path) -> Path | None:
    """The knowledge repository at or above `start`, or None."""
    from stigmergy.repo.layout import find_root

    try:
        return find_root(start)
    except NotARepositoryError:
        return None
