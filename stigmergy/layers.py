"""Layer policy, in one place: who may read a layer, whether a page of one layer may show (cite, link,
quote) another, and who may change what (roles: a maintainer per layer, one check per operation, so every
front end asks the same function before it acts). Readers are Git e-mails compared stripped and casefolded everywhere; `*` is
everyone; a layer present on disk but not declared in stigmergy.toml is readable by no one."""

from __future__ import annotations

from collections.abc import Iterable

from stigmergy.errors import StigmergyError
from stigmergy.settings import PUBLIC_LAYER, Settings

EVERYONE = "*"


def _readers(settings: Settings, layer: str) -> frozenset[str]:
    return frozenset(r.strip().casefold() for r in settings.layer(layer).readers)


def readable_layers(settings: Settings, reader: str) -> tuple[str, ...]:
    """Layers declared in stigmergy.toml whose readers include `reader` (or "*")."""
    who = reader.strip().casefold()
    out = []
    for layer in settings.layers:
        readers = _readers(settings, layer.name)
        if EVERYONE in readers or (who and who in readers):
            out.append(layer.name)
    return tuple(out)


def readers_allow(settings: Settings, reader_layer: str, cited_layer: str) -> bool:
    """May a page of `reader_layer` cite or link `cited_layer`? Only if readers(A) ⊆ readers(B)."""
    if reader_layer == cited_layer:
        return True
    try:
        ra = _readers(settings, reader_layer)
        rb = _readers(settings, cited_layer)
    except StigmergyError:  # an undeclared layer can never be shown to anyone else
        return False
    if EVERYONE in rb:
        return True
    if EVERYONE in ra:
        return False
    return ra <= rb


def path_layer(path: str) -> str:
    """The layer a repository-relative path lies in: `layers/<l>/...` is l, anything else public. The folder
    `layers/<l>` itself names only the layer (not secret: `log` names it too), so it counts as public."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "layers" else PUBLIC_LAYER


# -- roles: who may change what (one function per rule; each operation's front end calls its rule) -------


class RoleError(StigmergyError):
    """An operation reserved for a layer's maintainers, asked for by someone else: exit 2, nothing changed."""

    exit_code = 2


def maintainers(settings: Settings, layer: str) -> frozenset[str]:
    """`[roles.maintainers] <layer>`, else the layer's readers (so a small team changes nothing)."""
    named = settings.roles.of(layer)
    return frozenset(w.strip().casefold() for w in named) if named is not None else _readers(settings, layer)


def may_maintain(settings: Settings, who: str, layer: str) -> bool:
    try:
        allowed = maintainers(settings, layer)
    except StigmergyError:  # an undeclared layer has no maintainer
        return False
    ident = who.strip().casefold()
    return EVERYONE in allowed or (bool(ident) and ident in allowed)


def writable_layers(settings: Settings, who: str) -> tuple[str, ...]:
    """Layers `who` may write in by routine work (capture, filing, garden's repairs): the layers they read."""
    return readable_layers(settings, who)


def require_maintainer(settings: Settings, who: str, layers: Iterable[str], operation: str) -> None:
    """Refuse `operation` unless `who` maintains every layer in `layers` (one line; names only layers)."""
    missing = sorted({layer for layer in layers if not may_maintain(settings, who, layer)})
    if missing:
        raise RoleError(f"{operation} needs a maintainer of layer {', '.join(missing)} "
                        f"([roles.maintainers] in stigmergy.toml); {who or 'this identity'} is not one")


def check_delete(settings: Settings, who: str, layers: Iterable[str]) -> None:
    require_maintainer(settings, who, layers, "delete")


def check_merge(settings: Settings, who: str, layers: Iterable[str]) -> None:
    require_maintainer(settings, who, layers, "merge")


def check_rename(settings: Settings, who: str, layers: Iterable[str]) -> None:
    require_maintainer(settings, who, layers, "rename")


def check_erase(settings: Settings, who: str, layers: Iterable[str]) -> None:
    require_maintainer(settings, who, layers, "erase")


def check_recompile(settings: Settings, who: str, layers: Iterable[str]) -> None:
    require_maintainer(settings, who, layers, "recompile")


def check_resolve(settings: Settings, who: str, layers: Iterable[str]) -> None:
    """Resolving a contradiction (`capture --resolves`): a maintainer of the layer of each page holding it."""
    require_maintainer(settings, who, layers, "resolving a contradiction")


def service_identity(settings: Settings) -> str | None:
    """The identity `maintain` acts as when none is given (`[roles] service`), if configured."""
    return settings.roles.service or None
