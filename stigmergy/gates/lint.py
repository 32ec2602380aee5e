"""`stigmergy lint`: the whole repository against every contract the gates enforce, plus the health of
the link graph (dead, ambiguous, orphan) and of attribution (pages without citations, uncited factual
lines, `sources:` drift). Reads only; see docs/gates.md for the rule ids."""

from __future__ import annotations

import os
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.gates.figures import claim_text, missing_figures
from stigmergy.gates.filing_moves import lead_range
from stigmergy.gates.rules import COPY_MIN_CHARS
from stigmergy.gates.view import PageView, view
from stigmergy.layers import path_layer, readers_allow
from stigmergy.pages.markdown import code_lines
from stigmergy.pages.paths import page_relpath, stem_of, unsafe_relpath_reason
from stigmergy.pages.source import parse_source_page
from stigmergy.pages.wiki import WikiPage, is_placeholder, parse_wiki_page
from stigmergy.pages.wikilinks import LinkResolver, link_key, parse_wikilinks
from stigmergy.repo.layout import TYPE_FOLDERS, classify, layer_prefix, map_layer
from stigmergy.settings import Settings


def _prefixes(rel_dir: str) -> list[str]:
    """`layers/board/wiki` -> ["layers", "layers/board", "layers/board/wiki"]."""
    parts = rel_dir.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


@dataclass(frozen=True)
class Finding:
    rule: str
    path: str
    line: int | None
    message: str
    severity: str = "error"  # error | info (a person's uncited line: legitimate, shown, fails only --strict)
    # A finding that tells of a narrower layer (`about`): what a reader who cannot read it gets instead,
    # the finding they would get if that layer's page or source did not exist (`blind`; None: none at all).
    about: str | None = None
    blind: tuple[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "path": self.path, "line": self.line, "message": self.message, "severity": self.severity}


@dataclass(frozen=True)
class LintReport:
    findings: tuple[Finding, ...]
    pages: int = 0
    sources: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    strict: bool = False
    hidden_errors: int = 0  # findings in layers the reader cannot read: counted, never shown
    hidden_info: int = 0

    @property
    def ok(self) -> bool:
        hidden_fail = self.hidden_errors + (self.hidden_info if self.strict else 0)
        return not hidden_fail and not any(f.severity == "error" or self.strict for f in self.findings)

    @property
    def hidden(self) -> int:
        return self.hidden_errors + self.hidden_info

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "strict": self.strict,
            "pages": self.pages,
            "sources": self.sources,
            "counts": dict(sorted(Counter(f.rule for f in self.findings).items())),
            "errors": sum(1 for f in self.findings if f.severity == "error"),
            "info": sum(1 for f in self.findings if f.severity == "info"),
            "findings": [f.to_dict() for f in self.findings],
            "hidden": {"findings": self.hidden, "errors": self.hidden_errors, "info": self.hidden_info},
        }


def scope_report(report: LintReport, readable: set[str]) -> LintReport:
    """The report a reader of `readable` may see: findings in other layers become two counts, so the
    verdict (and exit code) stays honest while their paths and text stay unseen."""
    shown = tuple(_blind(f, readable) for f in report.findings if path_layer(f.path) in readable)
    shown = tuple(f for f in shown if f is not None)
    hidden = [f for f in report.findings if path_layer(f.path) not in readable]
    return replace(
        report, findings=shown,
        hidden_errors=report.hidden_errors + sum(1 for f in hidden if f.severity == "error"),
        hidden_info=report.hidden_info + sum(1 for f in hidden if f.severity != "error"),
    )


def _blind(f: Finding, readable: set[str]) -> Finding | None:
    """A finding in a readable page that tells of an unreadable layer ("links [[X]] of the narrower layer
    board" where a made-up X is a dead link): answered as if that layer held nothing, so a non-reader's
    lint is the same whether or not the restricted page exists."""
    if f.about is None or f.about in readable:
        return f
    if f.blind is None:
        return None
    return Finding(f.blind[0], f.path, f.line, f.blind[1], f.severity)


def _is_link_only_or_lead_in(line: str) -> bool:
    text = claim_text(line, keep_link_text=False).strip().rstrip(",;&. ")
    if not any(ch.isalnum() for ch in text):
        return True
    # "See also:", "Timeline:": a lead-in to the list that follows states nothing by itself.
    return text.endswith(":") and len(text.split()) <= 4


class _Linter:
    def __init__(self, root: Path, settings: Settings) -> None:
        self.root = root
        self.settings = settings
        self.findings: list[Finding] = []
        self.source_lines: dict[str, list[str]] = {}
        self.pages: dict[str, tuple[str, WikiPage | None, PageView]] = {}
        self.maps: list[str] = []  # maps of content (wiki/index.md per layer), written by `garden`

    def add(self, rule: str, path: str, line: int | None, message: str, about: str | None = None,
            blind: tuple[str, str] | None = None) -> None:
        self.findings.append(Finding(rule, path, line, message, about=about, blind=blind))

    # -- discovery ---------------------------------------------------------------------------------

    def _walk(self, rel_dir: str) -> list[str]:
        out: list[str] = []
        base = self.root / rel_dir
        # A linked folder (or a linked `layers/<l>/`) would be walked as if its files lived here.
        link = next((p for p in _prefixes(rel_dir) if (self.root / p).is_symlink()), None)
        if link is not None:
            self.add("zone", link, None, "symbolic link inside the wiki")
            return out
        if not base.is_dir():
            return out
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            rel_base = Path(dirpath).relative_to(self.root).as_posix()
            for name in list(dirnames):
                if os.path.islink(os.path.join(dirpath, name)):
                    self.add("zone", f"{rel_base}/{name}", None, "symbolic link inside the wiki")
                    dirnames.remove(name)
            for name in sorted(filenames):
                rel = f"{rel_base}/{name}"
                if name == ".gitkeep":
                    continue
                if os.path.islink(os.path.join(dirpath, name)):
                    self.add("zone", rel, None, "symbolic link inside the wiki")
                    continue
                out.append(rel)
        return out

    def check_tracked_state(self) -> None:
        """Derived state is never taken from tracked files: a tracked `.stigmergy/` path would overwrite a
        clone's (or the server checkout's) index and queue on the next pull."""
        out = subprocess.run(["git", "ls-files", "-z", "--", ".stigmergy"], cwd=self.root, capture_output=True)
        for raw in sorted(p for p in out.stdout.split(b"\0") if p) if out.returncode == 0 else []:
            self.add("tracked-state", raw.decode("utf-8", "replace"), None,
                     "local state is tracked by git; run `git rm -r --cached .stigmergy` and commit")

    def discover(self) -> tuple[list[str], list[str]]:
        sources, pages = [], []
        self.check_tracked_state()
        known = set(self.settings.layer_names())
        layers_dir = self.root / "layers"
        if layers_dir.is_dir():
            for entry in sorted(os.listdir(layers_dir)):
                if entry not in known:
                    self.add("layer-flow", f"layers/{entry}", None, f"layer {entry!r} is not declared in stigmergy.toml")
        for layer in self.settings.layer_names():
            prefix = layer_prefix(layer)
            for rel in self._walk(f"{prefix}sources"):
                kind = classify(rel)
                if kind is None or kind[0] != "source":
                    self.add("zone", rel, None, "unexpected file among source pages")
                else:
                    sources.append(rel)
            for rel in self._walk(f"{prefix}wiki"):
                kind = classify(rel)
                if map_layer(rel) == layer:
                    self.maps.append(rel)
                    continue
                if kind is None or kind[0] == "source" or unsafe_relpath_reason(rel):
                    self.add("zone", rel, None, f"unexpected file in the wiki (pages live in {prefix}wiki/{{{','.join(TYPE_FOLDERS.values())}}}/)")
                else:
                    pages.append(rel)
        return sources, pages

    # -- checks ------------------------------------------------------------------------------------

    def check_source(self, rel: str) -> None:
        try:
            text = (self.root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.add("source-malformed", rel, None, f"unreadable: {exc}")
            return
        body = text[:-1] if text.endswith("\n") else text
        self.source_lines[rel] = body.split("\n")
        try:
            page = parse_source_page(text, rel)
        except ContractError as exc:
            self.add("source-malformed", rel, None, exc.message)
            return
        layer = (classify(rel) or ("", ""))[1]
        if page.layer != layer:
            self.add("source-malformed", rel, None, f"front matter layer {page.layer!r} but the file lives in layer {layer!r}")

    def load_page(self, rel: str) -> None:
        try:
            text = (self.root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.add("contract", rel, None, f"unreadable: {exc}")
            return
        page: WikiPage | None
        try:
            page = parse_wiki_page(text, rel)
        except ContractError as exc:
            page = None
            self.add("contract", rel, 1, exc.message)
        self.pages[rel] = (text, page, view(rel, text))

    def check_page(self, rel: str, resolver: LinkResolver, inbound: dict[str, int], block_ids: dict[str, str]) -> None:
        text, page, pv = self.pages[rel]
        ptype, layer = classify(rel) or ("", "")
        if page is not None:
            if page.type != ptype or page.layer != layer:
                self.add("contract", rel, 1, f"a {page.type} page of layer {page.layer} cannot live here")
            elif page_relpath(page.type, page.title, page.layer) != rel:
                self.add("contract", rel, 1, f"path differs from the derived path {page_relpath(page.type, page.title, page.layer)}")
            if is_placeholder(page.body):
                self.add("contract", rel, pv.body_first_line, "empty or placeholder page")
            if list(page.sources) != sorted(pv.sources()):
                self.add("sources-drift", rel, 1, "front matter 'sources' differs from the sources cited in the body")
            for title in page.entities:
                if not any((classify(p) or ("", ""))[0] == "entity" for p in resolver.resolve(title)):
                    self.add("dead-link", rel, 1, f"entity {title!r} has no entity page")
                else:
                    # The entity lists the pages about it, so a page with an entity is reachable.
                    inbound[rel] += 1
        for line, message in pv.cite_errors:
            self.add("contract", rel, line, message)
        for line, message in pv.block_errors:
            self.add("contradiction-noncanonical", rel, line, message)
        for block in pv.blocks:
            other = block_ids.setdefault(block.record.id, rel)
            if other != rel:
                self.add("contradiction-noncanonical", rel, block.start_line, f"{block.record.id} also appears in {other}")
            for claim in block.record.claims:
                problem = self.citation_problem(claim.path, claim.start, claim.end)
                if problem:
                    self.add("contract", rel, block.start_line, f"{block.record.id}: {problem}")
        cited_any = False
        # Code blocks (any fence, nested or unclosed; indented) are quoted material, not claims or links.
        code = {pv.body_first_line + i for i in code_lines("\n".join(pv.lines[pv.body_first_line - 1 :]))}
        # A page's lead is written by code on each filing: its uncited lines (kind, aliases, dates, links to
        # related and archive pages) navigate, they claim nothing; its cited lines are checked as any other.
        lead = {i + 1 for i in lead_range(pv.lines)}
        for n in range(pv.body_first_line + 1, len(pv.lines) + 1):
            line = pv.lines[n - 1]
            if n in pv.block_lines or n in code:
                continue
            cites = pv.cites.get(n, ())
            if cites:
                cited_any = True
                narrower = False
                for c in cites:
                    problem = self.citation_problem(c.path, c.start, c.end)
                    if problem:
                        self.add("contract", rel, n, problem)
                    else:
                        kind = classify(c.path) or ("", "")
                        if not readers_allow(self.settings, layer, kind[1]):
                            narrower = True
                            self.add("layer-flow", rel, n, f"cites {c.path} of the narrower layer {kind[1]}",
                                     about=kind[1], blind=("contract", f"cited source {c.path} does not exist"))
                # (a narrower source's lines are not compared: what they hold is not this page's to tell)
                if not narrower and all(self.citation_problem(c.path, c.start, c.end) is None for c in cites):
                    cited_text = "\n".join(
                        "\n".join(self.source_lines[c.path][c.start - 1 : c.end]) for c in cites
                    )
                    missing = missing_figures(line, cited_text)
                    if missing:
                        self.add("contract", rel, n, f"figures not in the cited lines: {', '.join(missing)}")
            elif (
                ptype in ("note", "concept", "entity", "project")
                and n not in lead
                and line.strip()
                and not line.lstrip().startswith("#")
                and not line.strip().startswith(("---", "|-", "| -"))
                and not _is_link_only_or_lead_in(line)
            ):
                self.add("uncited-line", rel, n, "factual line without a citation")
            for link in parse_wikilinks(line, first_line=n):
                targets = resolver.resolve(link.target, from_layer=layer)
                if not targets:
                    self.add("dead-link", rel, n, f"[[{link.target}]] resolves to no page")
                    continue
                if len(targets) > 1:
                    self.add("ambiguous-link", rel, n, f"[[{link.target}]] matches {', '.join(targets)}")
                for t in targets:
                    if t != rel:
                        inbound[t] += 1
                t_layers = {(classify(t) or ("", ""))[1] for t in targets}
                if not any(readers_allow(self.settings, layer, tl) for tl in t_layers):
                    names = ", ".join(sorted(t_layers))
                    self.add("layer-flow", rel, n, f"links [[{link.target}]] of the narrower layer {names}",
                             about=sorted(t_layers)[0] if len(t_layers) == 1 else names,
                             blind=("dead-link", f"[[{link.target}]] resolves to no page"))
        if not cited_any:
            self.add("no-citations", rel, None, "the page cites no source")

    def check_map(self, rel: str, inbound: dict[str, int]) -> None:
        """A map of content reaches every page it lists; a listed page that is gone is a dead link."""
        from stigmergy.pages.moc import map_targets

        try:
            text = (self.root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.add("contract", rel, None, f"unreadable: {exc}")
            return
        layer = map_layer(rel)
        for n, target in map_targets(rel, text):
            if target not in self.pages:
                self.add("dead-link", rel, n, f"{target} is not a page (run `stigmergy garden`)")
            elif (classify(target) or ("", ""))[1] != layer:
                self.add("layer-flow", rel, n, f"the map of layer {layer} lists {target} of another layer",
                         about=(classify(target) or ("", ""))[1],
                         blind=("dead-link", f"{target} is not a page (run `stigmergy garden`)"))
            else:
                inbound[target] += 1

    def citation_problem(self, path: str, start: int, end: int) -> str | None:
        kind = classify(path) if unsafe_relpath_reason(path) is None else None
        if kind is None or kind[0] != "source":
            return f"citation target {path} is not a source page"
        lines = self.source_lines.get(path)
        if lines is None:
            return f"cited source {path} does not exist"
        if end > len(lines):
            return f"cited lines L{start}-L{end} are beyond the end of {path} ({len(lines)} lines)"
        return None

    def check_copies(self) -> None:
        restricted_layers = [la for la in self.settings.layer_names() if la != "public"]
        if not restricted_layers:
            return
        corpus: dict[str, str] = defaultdict(str)
        for rel, lines in self.source_lines.items():
            corpus[(classify(rel) or ("", ""))[1]] += "\n".join(lines) + "\n"
        for rel, (_text, _page, pv) in self.pages.items():
            layer = (classify(rel) or ("", ""))[1]
            narrower = [la for la in corpus if not readers_allow(self.settings, layer, la)]
            if not narrower:
                continue
            for n in range(pv.body_first_line, len(pv.lines) + 1):
                text = claim_text(pv.lines[n - 1]).strip()
                if len(text) >= COPY_MIN_CHARS:
                    for la in narrower:
                        if text in corpus[la]:
                            # Whether a reader's own line matches restricted text is for that layer's
                            # readers to learn: to anyone else it is no finding at all.
                            self.add("layer-flow", rel, n, f"line copied from a source of the narrower layer {la}",
                                     about=la)
                            break

    def run(self) -> LintReport:
        sources, pages = self.discover()
        for rel in sources:
            self.check_source(rel)
        for rel in pages:
            self.load_page(rel)
        stems: dict[str, list[str]] = defaultdict(list)
        aliases: dict[str, list[str]] = defaultdict(list)
        ids: dict[str, str] = {}
        for rel, (_text, page, _pv) in self.pages.items():
            stems[link_key(stem_of(rel))].append(rel)
            if page is None:
                continue
            other = ids.setdefault(page.id, rel)
            if other != rel:
                self.add("contract", rel, 1, f"page id {page.id} is also used by {other}")
            for alias in page.aliases:
                aliases[link_key(alias)].append(rel)
        for key, owners in aliases.items():
            entity_stems = [p for p in stems.get(key, []) if p not in owners]
            if len(owners) > 1 or entity_stems:
                self.add("contract", owners[0], 1, f"alias {key!r} is claimed by {', '.join(sorted({*owners, *entity_stems}))}")
        resolver = LinkResolver(stems, lambda: aliases)
        inbound: dict[str, int] = Counter()
        block_ids: dict[str, str] = {}
        for rel in pages:
            if rel in self.pages:
                self.check_page(rel, resolver, inbound, block_ids)
        for rel in self.maps:
            self.check_map(rel, inbound)
        for rel in self.pages:
            ptype = (classify(rel) or ("", ""))[0]
            if ptype not in ("entity", "project") and inbound[rel] == 0:
                self.add("orphan", rel, None, "no page links here")
        self.check_copies()
        self.mark_human_lines()
        findings = sorted(self.findings, key=lambda f: (f.path, f.line or 0, f.rule, f.message))
        return LintReport(tuple(findings), pages=len(pages), sources=len(sources), strict=self.strict)

    strict = False

    def mark_human_lines(self) -> None:
        """An uncited line a person wrote is legitimate (people add context): information, not a failure."""
        uncited = [f for f in self.findings if f.rule == "uncited-line" and f.line is not None]
        if not uncited:
            return
        from stigmergy.gates.authorship import Authorship

        authorship = Authorship(self.root)
        authorship.prefetch(sorted({f.path for f in uncited}))
        human = {f.path: authorship.human_lines(f.path) for f in uncited}
        self.findings = [
            replace(f, severity="info", message="uncited line written by a person")
            if f.rule == "uncited-line" and f.line in human.get(f.path, ()) else f
            for f in self.findings
        ]


def lint_repository(root: Path, settings: Settings, *, strict: bool = False) -> LintReport:
    """Check every source and wiki page under `root`. Never writes. With `strict`, information findings
    (a person's uncited lines) fail too."""
    linter = _Linter(Path(root), settings)
    linter.strict = strict
    return linter.run()
