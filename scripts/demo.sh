#!/usr/bin/env bash
# The demo: compile sample_corpus/ into a wiki in ./demo-wiki, then show what it holds.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
wiki="$here/demo-wiki"
rm -rf "$wiki"
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-Demo User}" GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-demo@example.com}"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export HF_HUB_OFFLINE=1

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "stigmergy init demo-wiki"
stigmergy init "$wiki"
cat >>"$wiki/stigmergy.toml" <<'TOML'

[layers.board]
readers = ["ceo@halden.example"]
TOML
git -C "$wiki" commit -qm "declare the board layer" stigmergy.toml

step "stigmergy capture sample_corpus/ (each document: evidence store -> source page -> commit)"
stigmergy -C "$wiki" capture "$here/sample_corpus" --exclude README.md --exclude '_restricted/*' --by "Demo User <demo@example.com>"
if [ -d "$here/sample_corpus/_restricted/board" ]; then
  step "stigmergy capture --layer board (restricted)"
  stigmergy -C "$wiki" capture "$here/sample_corpus/_restricted/board" --layer board --by "Demo User <demo@example.com>"
fi

step "git log (one commit per operation, with trailers)"
git -C "$wiki" log --format='%h %s' | head -12
echo "…"
git -C "$wiki" log -1 --format='%B'

step "stigmergy log -n 5"
stigmergy -C "$wiki" log -n 5

step "a source page"
first=$(find "$wiki/sources" -name 'cap_*.md' | sort | head -1)
head -40 "$first"

step "stigmergy status / fsck"
stigmergy -C "$wiki" status
stigmergy -C "$wiki" fsck
