"""The Slack endpoint's configuration: the server's, never the repository's.

Anyone who can push may change stigmergy.toml, so nothing that says who a Slack user is, or holds the
signing secret, may come from it: a pushed file that mapped a Slack user id to the CEO would hand that
user the board's pages. It lives in the server's own file, `$XDG_CONFIG_HOME/stigmergy/slack.toml`
(else `~/.config/stigmergy/slack.toml`; `--slack-config PATH` or STIGMERGY_SLACK_CONFIG name another),
refused when it lies inside the repository; the signing secret comes from STIGMERGY_SLACK_SIGNING_SECRET,
or from that file when no other account can read it (mode 600). Which layer a channel's messages go to
stays the repository's `[channels]`, as for an export.

    team_id = "T0123ABCD"             # requests from another workspace are refused
    capture_as = "slack-bot@example.com"  # who captures (default: [roles] service)
    unmapped_users = "refuse"        # or "public": an unmapped user asks as a public reader
    web_url = "https://wiki.example.com"  # citations link to the web view there
    [channels]                        # the channels whose messages are captured: id = name
    C0123ABCD = "general"
    [users]                           # Slack user id = the person (their reader identity)
    U0123ABCD = "Ann Lee <ann@example.com>"
"""

from __future__ import annotations

import re
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import ConfigError

CONFIG_NAME = "stigmergy/slack.toml"
SECRET_ENV = "STIGMERGY_SLACK_SIGNING_SECRET"
CONFIG_ENV = "STIGMERGY_SLACK_CONFIG"
MIN_SECRET_CHARS = 16
_ID = re.compile(r"^[A-Z0-9]{2,40}$")
_PERSON = re.compile(r"^\s*(?:(?P<name>[^<>]{1,120}?)\s*<(?P<email>[^<>\s]{3,200})>|(?P<bare>[^<>\s]{3,200}))\s*$")
_KEYS = {"signing_secret", "team_id", "capture_as", "unmapped_users", "command", "web_url", "response_url_prefix",
         "channels", "users"}


@dataclass(frozen=True)
class Person:
    reader: str  # the identity layers name (a Git e-mail)
    name: str  # shown on a captured message ("Ann Lee"; the reader when the file names none)

    def profile(self) -> dict[str, str]:
        """What a chat page records of its author."""
        return {"name": self.name, "email": self.reader} if "@" in self.reader else {"name": self.name}


@dataclass(frozen=True)
class SlackConfig:
    signing_secret: str = field(repr=False)
    team_id: str = ""
    capture_as: str = ""
    unmapped_users: str = "refuse"  # refuse | public
    command: str = "/wiki"
    web_url: str = ""
    # Where a late answer may be posted: a signed slash command names its response_url, and nothing else
    # may make the server send a request (Slack's own host; a test points it at its local peer).
    response_url_prefix: str = "https://hooks.slack.com/"
    channels: Mapping[str, str] = field(default_factory=dict)  # channel id -> name (no '#')
    users: Mapping[str, Person] = field(default_factory=dict)  # Slack user id -> person

    def people(self) -> dict[str, dict[str, str]]:
        return {uid: p.profile() for uid, p in self.users.items()}


def config_path(env: Mapping[str, str], given: Path | None = None) -> Path | None:
    if given is not None:
        return given
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV])
    base = env.get("XDG_CONFIG_HOME") or (str(Path(env["HOME"]) / ".config") if env.get("HOME") else "")
    return Path(base) / CONFIG_NAME if base else None


def _table(data: Mapping[str, Any], key: str, label: str) -> dict[str, str]:
    raw = data.get(key, {})
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{label}: [{key}] must be a table")
    out = {}
    for k, v in raw.items():
        if not _ID.match(str(k)) or not isinstance(v, str) or not v.strip():
            raise ConfigError(f"{label}: [{key}] {str(k)[:40]!r} = {str(v)[:40]!r} is not a Slack id and a name")
        out[str(k)] = v.strip()
    return out


def _person(value: str, label: str) -> Person:
    m = _PERSON.match(value)
    if not m:
        raise ConfigError(f"{label}: [users] {value[:60]!r} is not `email` or `Name <email>`")
    if m.group("bare"):
        return Person(m.group("bare"), m.group("bare"))
    return Person(m.group("email"), " ".join(m.group("name").split()))


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def load_slack_config(env: Mapping[str, str], repo_root: Path | None, given: Path | None = None) -> SlackConfig:
    """The server's Slack configuration (ConfigError, with what to do, when it is missing or unsafe)."""
    path = config_path(env, given)
    label = str(path) if path else "slack.toml"
    data: dict[str, Any] = {}
    if path is not None and path.is_file():
        if repo_root is not None and _inside(path, repo_root):
            raise ConfigError(f"{label} lies inside the repository, where anyone who can push could change it",
                              hint=f"keep it at ~/.config/{CONFIG_NAME} (or --slack-config PATH outside the repository)")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{label} cannot be read: {exc}") from exc
    elif given is not None or env.get(CONFIG_ENV):
        raise ConfigError(f"{label}: no such file")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{label}: unknown setting {unknown[0]!r}", hint=f"it takes {', '.join(sorted(_KEYS))}")
    secret = env.get(SECRET_ENV, "")
    if not secret and isinstance(data.get("signing_secret"), str):
        assert path is not None
        if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(f"{label} holds the signing secret and other accounts may read it",
                              hint=f"chmod 600 {label}, or give the secret as {SECRET_ENV}")
        secret = data["signing_secret"]
    secret = secret.strip()
    if len(secret) < MIN_SECRET_CHARS:
        raise ConfigError("no Slack signing secret (or a short one)",
                          hint=f"export {SECRET_ENV}=… (the app's Basic Information page, Signing Secret)")
    unmapped = str(data.get("unmapped_users", "refuse"))
    if unmapped not in ("refuse", "public"):
        raise ConfigError(f"{label}: unmapped_users must be \"refuse\" or \"public\"")
    command = str(data.get("command", "/wiki"))
    if not re.match(r"^/[a-z0-9_-]{1,31}$", command):
        raise ConfigError(f"{label}: command {command[:40]!r} is not a slash command")
    web_url = str(data.get("web_url", "")).rstrip("/")
    prefix = str(data.get("response_url_prefix", "https://hooks.slack.com/"))
    for key, value in (("web_url", web_url), ("response_url_prefix", prefix)):
        if value and not re.match(r"^https?://[^/\s]+(/\S*)?$", value):
            raise ConfigError(f"{label}: {key} {value[:60]!r} is not an http(s) URL")
    channels = {k: v.lstrip("#") for k, v in _table(data, "channels", label).items()}
    users = {k: _person(v, label) for k, v in _table(data, "users", label).items()}
    return SlackConfig(signing_secret=secret, team_id=str(data.get("team_id", "")), capture_as=str(data.get("capture_as", "")),
                       unmapped_users=unmapped, command=command, web_url=web_url, response_url_prefix=prefix,
                       channels=channels, users=users)
