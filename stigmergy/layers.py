"""Layer policy, in one place: who may read a layer, and whether a page of one layer may show (cite,
link, quote) another. Readers are Git e-mails compared stripped and casefolded everywhere; `*` is
everyone; a layer present on disk but not declared in stigmergy.toml is readable by no one."""

from __future__ import annotations

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
