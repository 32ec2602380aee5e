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
readers = ["ceo@lanternfish.example"]
TOML
git -C "$wiki" commit -qm "declare the board layer" stigmergy.toml

step "stigmergy capture sample_corpus/ (each document: evidence store -> source page -> commit)"
stigmergy -C "$wiki" capture "$here/sample_corpus" --exclude README.md --exclude '_restricted/*' --by "Demo User <demo@example.com>"
if [ -d "$here/sample_corpus/_restricted/board" ]; then
  step "stigmergy capture --layer board (restricted)"
  stigmergy -C "$wiki" --as ceo@lanternfish.example capture "$here/sample_corpus/_restricted/board" --layer board --by "CEO <ceo@lanternfish.example>"
fi

step "what the wiki learned: stigmergy overview"
stigmergy -C "$wiki" overview

step "contradictions found (both claims kept, each cited): stigmergy contradictions"
stigmergy -C "$wiki" contradictions

step "git log (one commit per operation, with trailers)"
git -C "$wiki" log -8 --format='%h %s'
echo "…"
git -C "$wiki" log -1 --format='%B'

step "stigmergy log -n 5"
stigmergy -C "$wiki" log -n 5

body() { awk -v max="$2" 'c>=2 && n<max {print; n++} /^---$/ {c++}' "$1"; }

step "an entity page (body; the front matter lists its id, type, aliases and every cited source)"
body "$wiki/wiki/entities/Tidemark.md" 30

step "a note, with the contradiction block the final report raised"
body "$wiki/wiki/notes/Quarterly report — Q2 2026 (final).md" 60

step "stigmergy index (fragments -> local all-MiniLM-L6-v2 -> SQLite FTS5 + sqlite-vec)"
stigmergy -C "$wiki" index

step "search 1, lexical: stigmergy search \"Q2 2026 revenue headcount\""
stigmergy -C "$wiki" search "Q2 2026 revenue headcount"

step "search 2, paraphrase: stigmergy search \"why were temperature warnings late to reach customers\""
stigmergy -C "$wiki" search "why were temperature warnings late to reach customers"

step "search 3, an entity by its alias: stigmergy search \"what does Tomek work on\" --explain"
stigmergy -C "$wiki" search "what does Tomek work on" --explain

step "scope: the board layer's canary is invisible to a public reader, visible to the CEO"
stigmergy -C "$wiki" --as someone@example.com search "CANARY-BOARD-7731 acquisition" -k 3 || true
stigmergy -C "$wiki" --as ceo@lanternfish.example search "CANARY-BOARD-7731 acquisition" -k 3 || true

step "ask: an answer built from cited lines (the deterministic answerer; no network)"
stigmergy -C "$wiki" ask "What was revenue in Q2 2026?"

step "ask: every source that states the answer is cited (also said in …)"
stigmergy -C "$wiki" ask "How late were the SMS alerts during the August outage?"

step "ask what the wiki cannot answer: an honest refusal"
stigmergy -C "$wiki" ask "What is the office dress code?" || true

step "read with evidence: every cited line followed by the source lines it cites"
stigmergy -C "$wiki" read "wiki/entities/Harbor API.md" --evidence | sed -n 1,60p

step "stigmergy status / lint / fsck"
stigmergy -C "$wiki" status
stigmergy -C "$wiki" lint || true
stigmergy -C "$wiki" fsck
