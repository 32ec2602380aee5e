"""`--code DIR`: a bench that measures another checkout's stigmergy (a baseline, run by that checkout's
venv) beside this one imports this module before anything else that imports stigmergy. It puts DIR (default:
this checkout) first on the path, then bench/ and tests/ for their helpers, imports stigmergy from DIR and
checks that it did: bench/search.py later puts this checkout first on the path for its own use, and a module
already imported is not looked up again."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve() if "--code" in sys.argv else HERE.parent
for _at, _path in enumerate((CODE, HERE, HERE.parent / "tests")):
    sys.path.insert(_at, str(_path))

import stigmergy  # noqa: E402

assert Path(stigmergy.__file__).resolve().is_relative_to(CODE), stigmergy.__file__
