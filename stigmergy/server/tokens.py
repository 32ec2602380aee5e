"""Per-person tokens for `stigmergy serve`, kept server-side, hashed.

The file (default `~/.config/stigmergy/tokens.json`, outside any repository: a token must never travel
with a clone) holds, per token, an id, the person's e-mail, when it was made and when it was revoked,
and the token's SHA-256, never the token: tokens are 256 random bits, so a fast hash is as strong as a
slow one and keeps a request's check cheap. The server re-reads the file whenever it changes on disk, so
`stigmergy tokens revoke` ends the person's sessions at the next request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from stigmergy.errors import ConfigError, NotFoundError, UsageError

TOKEN_PREFIX = "stg_"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class TokenRecord:
    id: str
    email: str
    sha256: str
    created: str
    revoked: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked is None

    def public(self) -> dict[str, str | None]:
        """What `tokens list` shows: never the hash."""
        return {"id": self.id, "email": self.email, "created": self.created, "revoked": self.revoked}


def default_tokens_file(env: dict[str, str] | os._Environ[str]) -> Path:
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", str(Path.home()))) / ".config")
    return Path(base) / "stigmergy" / "tokens.json"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _check_email(email: str) -> str:
    email = email.strip()
    # An identity is a Git e-mail; anything else (spaces, control characters) is a typo or an attack on
    # whatever prints it later.
    if not email or len(email) > 254 or "@" not in email or any(c.isspace() or ord(c) < 32 for c in email):
        raise UsageError(f"{email!r} is not an e-mail address", hint="tokens are issued to a person's Git e-mail")
    return email


class TokenStore:
    """The tokens file: `add`, `records`, `revoke` (for the CLI) and `verify` (for the server, which keeps
    the parsed file and reloads it when its size or modification time changes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._records: tuple[TokenRecord, ...] = ()

    # ------------------------------------------------------------ reading

    def _read(self) -> tuple[TokenRecord, ...]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return ()
        except OSError as exc:
            raise ConfigError(f"cannot read the tokens file {self.path}: {exc.strerror}") from exc
        try:
            data = json.loads(raw)
            return tuple(TokenRecord(**row) for row in data["tokens"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"the tokens file {self.path} is not one stigmergy wrote",
                              hint="move it away and issue the tokens again") from exc

    def records(self) -> tuple[TokenRecord, ...]:
        """The current records, re-read when the file changed (one stat per call)."""
        try:
            st = self.path.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        with self._lock:
            if stamp != self._stamp or stamp is None:
                self._records = self._read() if stamp is not None else ()
                self._stamp = stamp
            return self._records

    def verify(self, token: str) -> TokenRecord | None:
        """The active record whose hash matches `token`, compared in constant time against every record
        (the loop never stops early, so the time says nothing about which or how many tokens exist)."""
        given = digest(token)
        found: TokenRecord | None = None
        for record in self.records():
            if hmac.compare_digest(given, record.sha256) and record.active:
                found = record
        return found

    def is_active(self, token_id: str) -> bool:
        return any(r.id == token_id and r.active for r in self.records())

    # ------------------------------------------------------------ writing (the CLI)

    def _write(self, records: list[TokenRecord]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        body = json.dumps({"version": FORMAT_VERSION, "tokens": [asdict(r) for r in records]}, indent=2) + "\n"
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tokens.", suffix=".tmp")
        try:
            os.fchmod(fd, 0o600)  # hashes only, but nobody else's business who holds a token
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def add(self, email: str) -> tuple[TokenRecord, str]:
        """A new token for `email`: the record kept and the token itself, shown once and never stored."""
        email = _check_email(email)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        record = TokenRecord(id="tok_" + secrets.token_hex(6), email=email, sha256=digest(token), created=_now())
        self._write([*self._read(), record])
        return record, token

    def revoke(self, who: str) -> list[TokenRecord]:
        """Revoke one token (by id) or every active token of an e-mail; the records stay, marked."""
        records = list(self._read())
        hit = [r for r in records if r.active and (r.id == who or r.email == who.strip())]
        if not hit:
            raise NotFoundError(f"no active token {who!r}", hint="`stigmergy tokens list` shows them")
        now = _now()
        ids = {r.id for r in hit}
        updated = [TokenRecord(**{**asdict(r), "revoked": now}) if r.id in ids else r for r in records]
        self._write(updated)
        return [r for r in updated if r.id in ids]
