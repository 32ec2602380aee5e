"""Trust from use (docs/trust.md), the service's side: a reader's judgement of a page, a passage or a
claim line (`feedback`: useful, wrong, outdated), a maintainer's `verify`, `invalidate` and `reinstate`,
and the report of what `maintain`'s trust sweep would act on.

Apart from the other operations (service/wiki.py) because these share one path (`_judge`: the checks, the
record, its batch, a commit for a maintainer's judgement) and nothing with the rest but `ServiceCore`.
"""

from __future__ import annotations

from typing import Any

from stigmergy.errors import UsageError
from stigmergy.service.core import ServiceCore


class Judgements(ServiceCore):
    """The judgement operations of `WikiService`, which inherits them (one front door: a front end calls
    `service.feedback(...)` as it calls every other operation)."""

    def feedback(self, ref: str, kind: str, note: str = "", query: str = "") -> dict[str, Any]:
        """A reader's judgement of a page (`PATH`), one of its fragments (`PATH#n`) or claim lines
        (`PATH#Ln`): useful, wrong or outdated. Recorded as the caller; a page they cannot read is refused as
        absent. The record is appended to its layer's open batch (`maintain` commits it) and counts in the
        next search. `query`: the search a passage or line was judged from; its ranking weight then applies
        only to queries like that one (docs/trust.md)."""
        from stigmergy.trust.records import FEEDBACK

        if kind not in FEEDBACK:
            raise UsageError(f"feedback is one of {', '.join(FEEDBACK)}, not {kind!r}")
        return self._judge(kind, ref, note, query)

    def verify(self, ref: str, reason: str = "") -> dict[str, Any]:
        """candidate or stale -> verified (a maintainer of the page's layer)."""
        return self._judge("verify", ref, reason)

    def invalidate(self, ref: str, reason: str) -> dict[str, Any]:
        """-> rejected, with the reason `read` shows: the page stops feeding search and ask."""
        return self._judge("invalidate", ref, reason)

    def reinstate(self, ref: str, reason: str) -> dict[str, Any]:
        """rejected or stale -> candidate."""
        return self._judge("reinstate", ref, reason)

    def _judge(self, kind: str, ref: str, note: str, query: str = "") -> dict[str, Any]:
        from stigmergy.index.reads import feedback_target, page_trust
        from stigmergy.layers import require_maintainer
        from stigmergy.trust.model import now_days
        from stigmergy.trust.records import (
            FEEDBACK,
            MAX_NOTE,
            MAX_QUERY,
            line_sha,
            passage_sha,
            valid_query,
        )
        from stigmergy.write.trust import commit_batches, make_record, record

        root = self.require_root()
        note = " ".join((note or "").split())
        if len(note) > MAX_NOTE:
            raise UsageError(f"the note is {len(note)} characters; at most {MAX_NOTE}")
        query = " ".join((query or "").split())
        if len(query) > MAX_QUERY:
            raise UsageError(f"the query is {len(query)} characters; at most {MAX_QUERY}")
        if query and not valid_query(query):
            raise UsageError("the query must be printable text")
        target = feedback_target(root, self.settings, self.reader, ref)  # scoped: absent and unreadable alike
        if query and target.line is None and target.fragment is None:
            raise UsageError(f"a query scopes the judgement of a passage or line: name {target.path}#n (the "
                             "search hit's fragment), or give no query to judge the whole page")
        if kind not in FEEDBACK:
            if target.line is not None or target.fragment is not None:
                raise UsageError(f"{kind} judges a whole page: name {target.path} without #")
            require_maintainer(self.settings, self.reader, [target.layer], kind)
            if kind in ("invalidate", "reinstate") and not note:
                raise UsageError(f"{kind} needs a reason (--reason TEXT): it is what readers of the page are shown")
            status = self.trust_book().status(target.page_id, target.layer)
            allowed = {"verify": ("candidate", "stale"), "invalidate": ("candidate", "verified", "stale"),
                       "reinstate": ("rejected", "stale")}[kind]
            if status not in allowed:
                raise UsageError(f"{target.path} is {status}; {kind} applies to a page that is "
                                 f"{' or '.join(allowed)}")
        sha = (line_sha(target.line_text) if target.line_text is not None
               else passage_sha(target.passage) if target.passage is not None else None)
        rec = make_record(kind, self.reader, target.page_id, target.path, target.layer, target.captures,
                          target.line, sha, target.fragment, note, query or None)
        state_dir = self.repository().layout.state_dir
        committed = None
        if kind in FEEDBACK:
            batch = record(root, state_dir, rec)
        else:
            with self._writing("trust") as (repo, _):
                batch = record(root, state_dir, rec)
                row = commit_batches(repo, "feedback", f"{kind} {target.page_id}",
                                     summary=f"{kind} {target.page_id}: {note}" if target.layer == "public" else "",
                                     manifest={"judgement": kind, "page": target.page_id})
                committed = row.commit_sha if row is not None else None
        assert target.doc is not None
        return {"reader": self.reader, "record": rec.to_dict(), "batch": batch, "committed": committed,
                "trust": page_trust(self.trust_book(), target.doc, self.settings, now_days())}

    def trust_report(self) -> Any:
        """What `maintain`'s trust step would act on and list, scoped to the caller's layers (the rest
        counted): pages to mark stale, contradictions open too long, popular but unexamined, prior resets."""
        from stigmergy.trust.access import access_counts
        from stigmergy.trust.model import now_days
        from stigmergy.trust.sweep import judge, scan_pages

        repo = self.repository()
        rows, dates = scan_pages(repo.root, repo.git.ls_files("wiki", "sources", "layers"))
        if self._warm_state.access is not None:
            self._warm_state.access.flush()
        return judge(rows, dates, self.trust_book(), access_counts(repo.layout.state_dir), now_days(),
                     self.settings.trust, readable=set(self.readable()))
