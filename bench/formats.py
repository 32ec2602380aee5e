"""Chat, mail and image capture beside the existing extractors, in the same run, with the load.

    .venv/bin/python bench/formats.py [--messages 10000] [--file] [--out bench/out/formats.json]

- Slack: an export of N messages (Slack's documented format: 8 channels, threads, edits) captured into a
  fresh wiki, beside the same messages written as one Markdown file per channel and day captured the
  same way (the existing Markdown extractor): the cost of reading the export itself.
- OCR: a one-page scan (A4 at 150 dpi, 40 lines of text rendered with Pillow) read by Tesseract, beside
  the same page as a text PDF read by pypdf; median of 3.
- Accuracy: characters read back from the rendered test images (PNG, JPEG, TIFF, a scanned PDF) against
  the text they were rendered from (difflib ratio over whitespace-collapsed text).
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from export_fixtures import USERS, rendered_image  # noqa: E402

from stigmergy.capture.extract import extract  # noqa: E402
from stigmergy.settings import CaptureSettings  # noqa: E402

WORDS = ("roadmap latency customer migration budget rollout incident review platform team hiring revenue "
         "quarter launch pricing contract renewal support onboarding churn pipeline forecast release audit "
         "security vendor warehouse analytics dashboard retention capacity backlog sprint design").split()
CHANNELS = ["general", "eng", "ops", "sales", "support", "design", "product", "random"]


def load() -> str:
    return open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"


def git_env() -> dict[str, str]:
    return {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


def slack_messages(n: int, seed: int = 5) -> dict[str, dict[str, list[dict]]]:
    rng = random.Random(seed)
    days = [f"2026-{1 + d // 28:02d}-{1 + d % 28:02d}" for d in range(n // (len(CHANNELS) * 20) + 1)]
    out: dict[str, dict[str, list[dict]]] = {c: {} for c in CHANNELS}
    base = 1767225600  # 2026-01-01
    for i in range(n):
        channel = CHANNELS[i % len(CHANNELS)]
        d = (i // len(CHANNELS)) // 20 % len(days)
        day = days[d]
        stamp = base + d * 86400 + 8 * 3600 + (i % 600) * 45
        user = rng.choice(USERS)["id"]
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))) + f" at {rng.randint(2, 900)} units"
        m = {"type": "message", "user": user, "text": text, "ts": f"{stamp}.{i:06d}"}
        day_list = out[channel].setdefault(day, [])
        if day_list and rng.random() < 0.25:
            m["thread_ts"] = day_list[0]["ts"]
        if rng.random() < 0.05:
            m["edited"] = {"user": user, "ts": f"{stamp + 60}.000000"}
        day_list.append(m)
    return out


def write_export(path: Path, days: dict[str, dict[str, list[dict]]]) -> None:
    channels = [{"id": f"C{n:03d}", "name": c, "created": 1700000000, "members": []} for n, c in enumerate(CHANNELS)]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("users.json", json.dumps(USERS))
        z.writestr("channels.json", json.dumps(channels))
        for channel, per_day in days.items():
            for day, messages in per_day.items():
                z.writestr(f"{channel}/{day}.json", json.dumps(messages, indent=1))


def write_markdown(folder: Path, days: dict[str, dict[str, list[dict]]]) -> None:
    names = {u["id"]: u["profile"]["real_name"] for u in USERS}
    folder.mkdir(parents=True)
    for channel, per_day in days.items():
        for day, messages in per_day.items():
            lines = [f"# {channel}, {day}", ""] + [f"- [{time.strftime('%H:%M', time.gmtime(float(m['ts'])))}] "
                                                    f"{names[m['user']]}: {m['text']}" for m in messages]
            (folder / f"{channel}-{day}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def children_cpu() -> float:
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def capture(target: Path, work: Path, name: str, extra: list[str]) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds of the capture and the git processes it ran, captures, load before)."""
    wiki = work / name
    exe = [sys.executable, "-m", "stigmergy"]
    subprocess.run([*exe, "init", str(wiki)], check=True, env=git_env(), capture_output=True)
    before = load()
    start, cpu0 = time.perf_counter(), children_cpu()
    proc = subprocess.run([*exe, "-C", str(wiki), "--json", "capture", str(target), *extra], env=git_env(),
                          capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - start, children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"capture failed: {proc.stdout[-1500:]} {proc.stderr[-1500:]}")
    count = len(json.loads(proc.stdout)["captures"])
    return elapsed, cpu, count, before


def a4_scan(lines: int = 40, dpi: int = 150) -> tuple[bytes, bytes, list[str]]:
    """(PNG scan, the same page as a text PDF, its lines): an A4 page at `dpi`, about 11 pt text."""
    rng = random.Random(11)
    text = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(7, 11))).capitalize() + f" {rng.randint(2, 999)}."
            for _ in range(lines)]
    png = rendered_image(text, size=24 * dpi // 150, width=1240 * dpi // 150)
    from tinypdf import build_pdf  # scripts/tinypdf.py: the sample corpus's PDF writer

    pdf = build_pdf([[("p", "\n".join(text))]], title="Scan", author="Bench", date="D:20260101000000Z")
    return png, pdf, text


def accuracy(read: str, truth: list[str]) -> float:
    a, b = " ".join(read.split()), " ".join(" ".join(truth).split())
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def median_time(fn, runs: int = 3) -> tuple[float, float]:  # noqa: ANN001
    """(median wall seconds, median CPU seconds of this process and its children) of `runs` calls."""
    import resource

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    walls, cpus = [], []
    for _ in range(runs):
        start, c0 = time.perf_counter(), cpu()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(cpu() - c0)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--file", action="store_true", help="file each capture too (deterministic planner)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--no-ocr", action="store_true", help="the Slack figures only")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    report: dict[str, object] = {"load_start": load()}
    extra = [] if args.file else ["--no-file"]
    with tempfile.TemporaryDirectory(prefix="stigmergy-bench-formats-") as tmp:
        work = Path(tmp)
        days = slack_messages(args.messages)
        pages = sum(len(v) for v in days.values())
        write_export(work / "export.zip", days)
        write_markdown(work / "md", days)
        md_s, md_cpu, md_n, md_load = capture(work / "md", work, "wiki-md", extra)
        sl_s, sl_cpu, sl_n, sl_load = capture(work / "export.zip", work, "wiki-slack", extra)
        assert sl_n == pages == md_n, (sl_n, pages, md_n)
        report["slack"] = {"messages": args.messages, "pages": pages, "filed": args.file,
                           "export_s": round(sl_s, 2), "export_cpu_s": round(sl_cpu, 2), "markdown_s": round(md_s, 2),
                           "markdown_cpu_s": round(md_cpu, 2), "ratio": round(sl_s / md_s, 2), "load": [md_load, sl_load]}
        print(f"slack export   {args.messages:,} messages, {pages} channel-days, {'filed' if args.file else 'archived'}: "
              f"{sl_s:6.1f} s wall, {sl_cpu:6.1f} s CPU   same as {md_n} Markdown files: {md_s:6.1f} s wall, "
              f"{md_cpu:6.1f} s CPU   ratio {sl_s / md_s:4.2f}x   (load {md_load}, {sl_load}; target <= 60 s)")
    limits = CaptureSettings()
    if args.no_ocr:
        print(json.dumps(report)) if not args.out else args.out.write_text(json.dumps(report, indent=1) + "\n")
        return
    report["ocr"] = []
    for dpi in (150, 300):
        png, pdf, truth = a4_scan(dpi=dpi)
        extract(png, "warm.png", limits)  # imports and the engine's first start
        ocr_s, ocr_cpu = median_time(lambda png=png: extract(png, "scan.png", limits))
        pdf_s, _ = median_time(lambda pdf=pdf: extract(pdf, "scan.pdf", limits))
        page_acc = accuracy(extract(png, "scan.png", limits).text, truth)
        report["ocr"].append({"page": f"A4 {dpi} dpi, 40 lines", "ocr_s": round(ocr_s, 2), "ocr_cpu_s": round(ocr_cpu, 2),
                              "text_pdf_s": round(pdf_s, 3), "ratio": round(ocr_s / max(pdf_s, 1e-6), 1),
                              "accuracy": round(page_acc, 4), "load": load()})
        print(f"ocr A4 {dpi} dpi {ocr_s:6.2f} s wall, {ocr_cpu:5.2f} s CPU (median of 3)   same page as text PDF "
              f"(pypdf): {pdf_s:6.3f} s   accuracy {page_acc:.2%}   (load {load()}; target <= 3 s)")
    from PIL import Image

    sample = rendered_image()
    scan = io.BytesIO()
    Image.open(io.BytesIO(sample)).save(scan, "PDF", resolution=150)
    from export_fixtures import SCAN_TEXT

    accs = {}
    for name, data in (("png", sample), ("jpeg", rendered_image(fmt="JPEG")), ("tiff", rendered_image(fmt="TIFF")),
                       ("pdf", scan.getvalue())):
        accs[name] = round(accuracy(extract(data, f"t.{name}", limits).text, SCAN_TEXT), 4)
    report["accuracy"] = accs
    print("accuracy on the rendered test images: " + ", ".join(f"{k} {v:.2%}" for k, v in accs.items())
          + "   (target >= 98%)")
    report["load_end"] = load()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
