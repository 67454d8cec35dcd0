"""Score your own model on the Pro-Worker AI Benchmark, beside the seven released models.

    python -m compendium.pwb.score RESULTS_DIR [--name NAME] [--out DIR]

``RESULTS_DIR`` holds the new model's judged results as the authors' runner writes them
(``results/*.json``, one file per condition: ``baseline`` and ``with_system_prompt``, all three layers).
Printed, and written to ``DIR`` (default ``./pwb-score-<name>/``) as ``score.csv`` and ``score.json``:

- its PWI per condition with the paper's bootstrap (the authors' exact random stream, 10,000 draws,
  seed 42, 2.5/97.5 percentiles; the v2.1 weights of the bundled ``config.yaml``), ΔPWI (prompted minus
  baseline bootstrap mean) and d_pooled (Cohen's d on the concatenated Layer-1 run scores);
- its place among the seven released models with their intervals: from their per-instance results when
  ``data/pwb/results/`` holds them, otherwise from the released per-model bootstrap PWIs and intervals
  (``data/pwb/analysis_output/pwi_scores.csv``); the output says which;
- which differences the intervals support: a difference is called supported only where the two 95 %
  intervals do not overlap (a conservative reading: overlapping intervals can still hide a real
  difference, and no multiple-comparison correction is made).

It never writes under ``results/`` (the paper's outputs). A malformed file stops it with one sentence
naming the file, record and field (the anomaly policy of :mod:`compendium.data.anomalies`); so does a model
whose Layer-1 runs would make the bootstrap need more memory than the budget (:func:`check_memory`), and an
output folder that cannot be written (checked before the bootstrap). Model names are printed with their
control characters visible (:func:`compendium.pipeline.cli.visible`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.cli import gib, memory_budget, quote, safe_output, visible, writable_folder
from compendium.pipeline.params import reference

from ..data.anomalies import DataAnomalyError
from . import instances as inst
from .constants import CONDITIONS, MODEL_KEYS

#: the paper's PWI bootstrap (draws, seed, interval level): the pwb section's reference values, typed nowhere else
N_BOOT, SEED, CI = (reference("pwb")[k] for k in ("n_boot", "seed", "ci_level"))
COND_LABEL = {"baseline": "baseline", "with_system_prompt": "prompted"}
#: draws the bootstrap holds at once (``chunk_reps`` of :func:`compendium.pwb.bootstrap._resampled_means`)
BOOT_CHUNK = 1000
#: bytes per (draw held at once x Layer-1 run score) at the bootstrap's peak: 32-bit stream words, their
#: 64-bit products and indices, the resampled values (measured: 64 on the integer path, 87 on the general one)
BYTES_PER_DRAW_SCORE = 96


def _weights() -> dict[str, float]:
    from ..data import load_pwb_config
    from .weights import scheme_weights

    return scheme_weights(load_pwb_config())


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "model"


def new_model(results_dir: Path, name: str | None) -> tuple[str, pd.DataFrame]:
    """The new model's tidy instances (one model, both conditions) from the runner's layout."""
    table = inst.load_hf_results(results_dir, models=None)
    names = sorted(table["model"].unique())
    if name is None:
        if len(names) != 1:
            raise ValueError(f"{results_dir}: results of {len(names)} models ({quote(names)}); choose one with --name")
        name = names[0]
    if name not in names:
        raise ValueError(f"{results_dir}: no results for model_name {quote(name)} (found: {quote(names)})")
    t = table[table["model"] == name]
    have = set(t["condition"])
    if have != set(CONDITIONS):
        lacking = sorted(set(CONDITIONS) - have)
        raise ValueError(
            f"{results_dir}: {quote(name)} has no results file with variant {lacking[0]!r} (both conditions are needed)"
        )
    return name, t


def check_memory(results_dir: Path, name: str, runs: pd.DataFrame, n_boot: int) -> None:
    """Refuse (``ValueError``, one sentence: the need, the budget, what to lower) a model whose Layer-1 runs
    would make the bootstrap need more than the memory budget (:func:`compendium.pipeline.cli.memory_budget`):
    it holds :data:`BOOT_CHUNK` draws of every run score of one condition at once, about
    :data:`BYTES_PER_DRAW_SCORE` bytes each."""
    budget = memory_budget()
    per_draw = BYTES_PER_DRAW_SCORE * min(BOOT_CHUNK, n_boot)
    for cond, n in runs.groupby("condition").size().items():
        need = per_draw * int(n)
        if need > budget:
            raise ValueError(
                f"{results_dir}: model {quote(name)} has {int(n):,} scored Layer-1 runs in condition {cond}; the "
                f"paper's bootstrap over them needs about {gib(need)} of memory, above the budget of {gib(budget)}: "
                f"score at most {budget // per_draw:,} runs per condition (fewer prompts or runs in the results "
                "files), or, on a machine with more memory, raise the budget with COMPENDIUM_MEMORY_GIB=<GiB>"
            )


def score_model(results_dir: Path, name: str | None = None, *, n_boot: int) -> dict:
    """PWI per condition with its interval, ΔPWI and d_pooled of the new model (dict of plain values)."""
    name, t = new_model(Path(results_dir), name)
    runs = inst.layer1_runs(inst.panel_scores(t))
    check_memory(Path(results_dir), name, runs, n_boot)  # before the bootstrap allocates anything
    pwi = inst.pwi_bootstrap(runs, _weights(), n_boot=n_boot, seed=SEED, ci=CI).set_index("condition")
    d = inst.d_pooled(runs)
    out = {"model": name, "n_judge_values": int(len(t)), "n_layer1_runs": int(len(runs))}
    for c in CONDITIONS:
        out[COND_LABEL[c]] = {k: float(pwi.loc[c, k]) for k in ("pwi", "ci_lower", "ci_upper")}
    out["delta_pwi"] = out["prompted"]["pwi"] - out["baseline"]["pwi"]
    out["d_pooled"] = float(d["d_pooled"].iloc[0]) if "d_pooled" in d.columns else float(d.iloc[0, -1])
    return out


def released_models(*, n_boot: int) -> tuple[pd.DataFrame, str]:
    """The seven released models' PWI and interval per condition, and where they come from."""
    rdir = paths.PWB / "results"
    if rdir.is_dir():
        runs = inst.layer1_runs(inst.panel_scores(inst.load_hf_results(rdir, complete=True)))
        t = inst.pwi_bootstrap(runs, _weights(), n_boot=n_boot, seed=SEED, ci=CI)
        t = t[["model", "condition", "pwi", "ci_lower", "ci_upper"]]
        return t, f"computed from the per-instance results in {rdir.relative_to(paths.ROOT)}/ (paper's bootstrap)"
    from ..data import load_pwb_pwi_scores

    r = load_pwb_pwi_scores()
    t = r.rename(
        columns={"Model": "model", "Variant": "condition", "PWI": "pwi", "CI_lower": "ci_lower", "CI_upper": "ci_upper"}
    )
    t = t[t["model"].isin(MODEL_KEYS)][["model", "condition", "pwi", "ci_lower", "ci_upper"]]
    return t, (
        "the released per-model bootstrap PWIs and 95 % intervals (data/pwb/analysis_output/pwi_scores.csv, "
        "rounded to 1 decimal; the per-instance results are not in this build)"
    )


def placement(new: dict, released: pd.DataFrame) -> pd.DataFrame:
    """Per condition, every model with its interval, the new model's rank, and whether the intervals
    separate it from each released model."""
    rows = []
    for c in CONDITIONS:
        lab = COND_LABEL[c]
        me = new[lab]
        rel = released[released["condition"] == c]
        allm = pd.concat(
            [rel, pd.DataFrame([{"model": new["model"], "condition": c, **me}])], ignore_index=True
        ).sort_values("pwi", ascending=False, kind="stable")
        allm["rank"] = range(1, len(allm) + 1)
        for _, r in allm.iterrows():
            is_new = r["model"] == new["model"]
            if is_new:
                verdict = "(the new model)"
            elif r["ci_lower"] > me["ci_upper"]:
                verdict = "higher than the new model: the intervals do not overlap"
            elif r["ci_upper"] < me["ci_lower"]:
                verdict = "lower than the new model: the intervals do not overlap"
            else:
                verdict = "not distinguished: the intervals overlap"
            rows.append(
                {
                    "condition": lab,
                    "rank": int(r["rank"]),
                    "model": r["model"],
                    "pwi": float(r["pwi"]),
                    "ci_lower": float(r["ci_lower"]),
                    "ci_upper": float(r["ci_upper"]),
                    "new": bool(is_new),
                    "versus_new_model": verdict,
                }
            )
    return pd.DataFrame(rows)


def statement(new: dict, place: pd.DataFrame) -> list[str]:
    """The honest sentences: rank, and which differences the intervals support."""
    out = []
    for lab in ("baseline", "prompted"):
        p = place[place["condition"] == lab]
        me = p[p["new"]].iloc[0]
        above = p[p["versus_new_model"].str.startswith("higher")]["model"].tolist()
        below = p[p["versus_new_model"].str.startswith("lower")]["model"].tolist()
        tied = p[p["versus_new_model"].str.startswith("not distinguished")]["model"].tolist()
        s = (
            f"{lab}: PWI {me['pwi']:.1f} [{me['ci_lower']:.1f}, {me['ci_upper']:.1f}], rank {me['rank']} of {len(p)}. "
            f"The intervals support: below {', '.join(above) or 'no model'}; above {', '.join(below) or 'no model'}; "
            f"not distinguished from {', '.join(tied) or 'no model'}."
        )
        out.append(s)
    out.append(
        "A difference is called supported only where the two 95 % bootstrap intervals do not overlap; overlapping "
        f"intervals do not show the models are equal, and no correction for the {int((~place['new']).sum())} "
        "comparisons is made."
    )
    return out


def evaluate(results_dir: str | Path, name: str | None = None, *, n_boot: int) -> dict:
    """Everything the command prints and writes to ``score.json``: :func:`score_model`'s values, the released
    models' source, the :func:`placement` table (a DataFrame) and the :func:`statement` sentences. The book's
    page "Evaluate your own model" calls it, so its numbers are the command's."""
    new = score_model(Path(results_dir), name, n_boot=n_boot)
    released, source = released_models(n_boot=n_boot)
    released = released[released["model"] != new["model"]]
    place = placement(new, released)
    return {**new, "released_source": source, "placement": place, "statement": statement(new, place)}


def flat_values(result: dict, prefix: str = "eval.score") -> dict:
    """:func:`evaluate`'s result as flat ``values.json`` entries (``<prefix>.<condition>.pwi``, ...): the
    new model's PWI and interval per condition, ΔPWI, d_pooled, its rank and how many released models the
    intervals place above it, below it, or do not distinguish from it."""
    out = {f"{prefix}.{k}": result[k] for k in ("model", "n_judge_values", "n_layer1_runs", "delta_pwi", "d_pooled")}
    out[f"{prefix}.released_source"] = result["released_source"]
    place = result["placement"]
    for lab in ("baseline", "prompted"):
        for k in ("pwi", "ci_lower", "ci_upper"):
            out[f"{prefix}.{lab}.{k}"] = result[lab][k]
        p = place[place["condition"] == lab]
        out[f"{prefix}.{lab}.rank"] = int(p.loc[p["new"], "rank"].iloc[0])
        out[f"{prefix}.{lab}.n_models"] = len(p)
        for key, start in (("n_higher", "higher"), ("n_lower", "lower"), ("n_not_distinguished", "not distinguished")):
            out[f"{prefix}.{lab}.{key}"] = int(p["versus_new_model"].str.startswith(start).sum())
    return out


def _out_dir(out: str | None, name: str) -> Path:
    d = Path(out) if out else Path.cwd() / f"pwb-score-{_slug(name)}"
    res = (paths.ROOT / "results").resolve()
    if d.resolve() == res or d.resolve().is_relative_to(res):
        raise ValueError(f"--out {d}: refusing to write under results/ (the paper's outputs); choose another folder")
    return d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compendium.pwb.score", description=__doc__.split("\n")[0])
    ap.add_argument("results_dir", help="folder with the new model's results/*.json (the runner's layout)")
    ap.add_argument("--name", help="model_name to score when the folder holds several models")
    ap.add_argument("--out", help="folder for score.csv and score.json (default ./pwb-score-<name>/)")
    ap.add_argument("--n-boot", type=int, default=N_BOOT, help=argparse.SUPPRESS)
    safe_output()
    args = ap.parse_args(argv)
    try:
        d = Path(args.results_dir)
        if not d.is_dir():
            raise ValueError(f"{d}: not a folder (give the folder that holds the results *.json files)")
        if args.out:
            _out_dir(args.out, "x")
        # before the bootstrap, not after it: the folder given, or the current one (./pwb-score-<name>/)
        problem = (
            writable_folder(args.out, "--out")
            if args.out
            else writable_folder(
                Path.cwd(), "the current folder", "give --out a folder you can write, e.g. --out /tmp/score"
            )
        )
        if problem:
            raise ValueError(problem)
        res = evaluate(d, args.name, n_boot=args.n_boot)
        new = {k: v for k, v in res.items() if k not in ("released_source", "placement", "statement")}
        source, place, text = res["released_source"], res["placement"], res["statement"]
        out = _out_dir(args.out, new["model"])
    except (DataAnomalyError, ValueError, FileNotFoundError) as exc:
        print(f"error: {visible(' '.join(str(exc).split()), inline=True)}", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    place.to_csv(out / "score.csv", index=False, float_format="%.4f")
    (out / "score.json").write_text(
        json.dumps(
            {**new, "released_source": source, "placement": place.to_dict("records"), "statement": text}, indent=2
        )
        + "\n",
        encoding="utf-8",
    )
    print(
        f"{visible(new['model'], inline=True)}: {new['n_layer1_runs']:,} scored Layer-1 runs, {new['n_judge_values']:,} judge rows"
    )
    for lab in ("baseline", "prompted"):
        v = new[lab]
        print(f"  PWI {lab:9s} {v['pwi']:6.2f}  95% CI [{v['ci_lower']:.2f}, {v['ci_upper']:.2f}]")
    print(f"  ΔPWI {new['delta_pwi']:+.2f}   d_pooled {new['d_pooled']:.3f}")
    print(f"\nReleased models: {source}.")
    show = place.assign(
        model=place["model"].map(lambda m: visible(m, inline=True)),
        interval=[f"[{a:.1f}, {b:.1f}]" for a, b in zip(place["ci_lower"], place["ci_upper"], strict=True)],
    )
    print(
        show[["condition", "rank", "model", "pwi", "interval", "versus_new_model"]].to_string(
            index=False, float_format="%.1f"
        )
    )
    print()
    for s in text:
        print(visible(s, inline=True))
    print(f"\nwritten: {visible(out / 'score.csv', inline=True)}, {visible(out / 'score.json', inline=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
