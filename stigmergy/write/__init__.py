"""The write path: every change stigmergy makes to a knowledge repository runs here, as one pipeline
per operation (capture -> plan -> gates -> commit), each calling the shared steps in `operation.py`.

- `capture.py`: `capture` (acknowledged captures -> source page -> filing -> commit), `file_captures`
  (`stigmergy file`), `resume` (finishes what a crash interrupted; every writing command runs it first).
- `filing.py`: planning one capture's filing and judging the plan (`propose`, `make_planner`).
- `erase.py`: `plan_erase` (the dry run), `run_erase`, `resume_erase` (erasure through history; the
  work itself is in `history/`: per-version scrub, filter-repo rewrite, purges, residue audit).
- `operation.py`: `Operation`, `judge`, `commit`, `commit_verdict`, `refusal` (see its docstring for
  how to add a pipeline).

Below this package sit `capture/` (inputs, extraction, evidence, the frozen `QueuedCapture`), `plan/`,
`gates/`, `pages/` and `repo/`; above it only `cli/` (and other front ends) call it.
"""
