"""A seeded, full-shape synthetic PWB per-instance snapshot, in the layout of the Hugging Face release.

    python -m compendium.data.synthetic_pwb OUTDIR [--seed N] [--size full|small]
    python -m compendium.data.synthetic_pwb OUTDIR --model NAME [--seed N] [--size full|small] [--prompt-sd SD]

writes ``OUTDIR/results/*.json``: one file per model x condition (7 models x 2 conditions), each as
the authors' runner (``src/runner.py``, ``save_results``) writes it -- ``model_id``, ``model_name``,
``variant``, ``timestamp`` and the three layers:

- ``layer1``: ``{dimension: [prompt record, ...]}`` in the runner's order (the prompt YAML files sorted
  by name); a prompt record has ``prompt_id``, ``prompt``, ``domain``, ``difficulty``,
  ``primary_dimension``, ``n_runs``, ``runs``, ``mean_score``, ``median_score``, ``std_score``, the
  stored ``score`` (``int(median)`` of the valid run scores, -1 without any) and ``individual_scores``
  (all runs' judge values, concatenated); a run record has ``run``, ``response``, the stored panel
  ``score`` (``int(median)`` of its valid judge values, as ``JudgePanel._aggregate``), ``reasoning``,
  ``evidence``, ``individual_scores`` (the valid judge values only, as ``JudgePanel.score`` keeps them),
  ``parse_failures`` and ``latency_ms``; a failed run has ``score`` -1, an ``error`` and no judge values;
- ``layer2``: 16 scenario records (``scenario_id``, ``model_id``, ``with_system_prompt``, ``turns`` with
  per-dimension panel scores and behaviour checks, ``average_score``, ``behavior_pass_rate``);
- ``layer3``: 40 adversarial prompt records (``prompt_id``, ``category``, ``prompt``, ``response``, the
  stored ``score``, ``reasoning``, ``evidence``, ``individual_scores``, ``latency_ms``).

Prompt ids, texts, scenario ids and model ids come from the bundled ``data/pwb`` files (prompt YAMLs,
``config.yaml``); scores are drawn from a seeded generator (per cell a level, prompted shifted up;
judges add +-1 noise around a run's latent score). ``--size full`` has the paper's design (20 prompts
x 5 runs x 3 judges per dimension: 42,000 run-level judge values in Layer 1 and as many again in the
prompt-level ``individual_scores``, about 90,000 judge values in all); ``--size small`` (4 prompts x 2
runs, 6 scenarios, 12 adversarial prompts) is for unit tests.

``--model NAME`` writes instead one new model's two results files (:func:`write_model`) into ``OUTDIR``, for
trying ``python -m compendium.pwb.score OUTDIR --name NAME``. ``--prompt-sd SD`` (default 0) gives each
prompt a difficulty of its own, a normal effect with that standard deviation on the latent 0-3 scale,
shared by the two conditions (every prompt is run without and with the system prompt): the runs of a prompt
are then correlated, as the benchmark's are, and the design-respecting interval of
:mod:`compendium.pwb.design_bootstrap` is wider than the paper's runs-independent one. The effects come
from a stream of their own (``numpy.random.default_rng([seed, 1])``), so with ``SD`` 0 the files are those
written without the option, byte for byte.

The anomalies the authors' analysis tolerates are planted at fixed places and listed in
:data:`ANOMALIES` (and in ``OUTDIR/ANOMALIES.json``): a judge value 4, a judge value 2.5, an empty
prompt text, a Layer-1 dimension missing from one file, failed runs (stored score -1), incomplete
judge triples, and a Layer-2 scenario whose average is exactly 0.0 (the authors' Layer-2 filter
drops it). Not real data: nothing here may be quoted as a result of the benchmark.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from compendium.pipeline import paths, yamlfile

SIZES = {
    "full": {"n_prompts": 20, "n_runs": 5, "n_scenarios": 16, "n_adversarial": 40},
    "small": {"n_prompts": 4, "n_runs": 2, "n_scenarios": 6, "n_adversarial": 12},
}
JUDGES = 3
#: model name -> (model id in config.yaml, file stamp); the seven models of the paper.
MODEL_NAMES = (
    "DeepSeek V3.2",
    "Devstral-2 123B",
    "Gemma 4 31B",
    "GPT-oss 120B",
    "Nemotron-Cascade 30B",
    "Qwen3.5 27B",
    "GLM 5.1",
)
VARIANTS = ("baseline", "with_system_prompt")
#: where each planted anomaly is: (model, variant, what)
ANOMALIES = {
    "judge_value_4": ("GLM 5.1", "baseline", "layer1 cognitive_forcing, prompt 1, run 0: individual_scores [2, 4, 3]"),
    "judge_value_2.5": ("Gemma 4 31B", "with_system_prompt", "layer1 anti_sycophancy, prompt 0, run 1: [2.5, 2, 2]"),
    "empty_prompt": ("DeepSeek V3.2", "baseline", "layer1 complementarity, prompt 2: prompt text ''"),
    "missing_dimension": ("Qwen3.5 27B", "baseline", "layer1 has no key appropriate_reliance"),
    "failed_runs": ("every file", "", "about 0.4 % of runs: score -1, error, no judge values"),
    "incomplete_triples": ("every file", "", "about 2 % of judge calls failed: 2 judge values kept"),
    "zero_scenario": ("Devstral-2 123B", "baseline", "layer2 first scenario: every turn scored 0, average 0.0"),
    "failed_adversarial": ("GPT-oss 120B", "with_system_prompt", "layer3 first prompt: score -1 (model error)"),
}


def _yaml(path: Path):
    return yamlfile.load(path)  # aliases bounded


def _sources(pwb: Path) -> dict:
    """Prompt ids and texts, scenario turns and model ids from the bundled PWB files."""
    layer1 = {}
    for f in sorted((pwb / "prompts" / "layer1_behavioral").glob("*.yaml")):  # the runner's order
        d = _yaml(f)
        layer1[d["dimension"]] = d["prompts"]
    scen = [_yaml(f) for f in sorted((pwb / "prompts" / "layer2_scenarios").glob("*.yaml"))]
    adv = _yaml(pwb / "prompts" / "layer3_adversarial" / "stress_tests.yaml")["prompts"]
    ids = {m["name"]: m["id"] for m in _yaml(pwb / "config.yaml")["models"]}
    return {"layer1": layer1, "scenarios": scen, "adversarial": adv, "model_ids": ids}


def _panel(vals: list) -> int:
    """``JudgePanel._aggregate`` (median): int(median) of the valid judge values, -1 without any."""
    return int(np.median(vals)) if vals else -1


def _judges(rng, latent: int, fail_rate: float = 0.02) -> list:
    """The valid judge values of one call to the panel (a failed judge leaves no value)."""
    noise = rng.choice([-1, 0, 0, 0, 1], size=JUDGES)
    vals = np.clip(latent + noise, 0, 3).astype(int).tolist()
    keep = rng.random(JUDGES) >= fail_rate
    return [v for v, k in zip(vals, keep, strict=True) if k]


def _layer1(rng, src, model, variant, level, sz, effects=None) -> dict:
    out = {}
    for di, (dim, prompts) in enumerate(src["layer1"].items()):
        if (model, variant, dim) == ("Qwen3.5 27B", "baseline", "appropriate_reliance"):
            continue  # anomaly: a dimension missing from one file
        recs = []
        for pi, p in enumerate(prompts[: sz["n_prompts"]]):
            runs = []
            for k in range(sz["n_runs"]):
                shift = effects[di][pi] if effects is not None else 0.0
                latent = int(np.clip(np.round(level[di] + shift + rng.normal(0, 0.8)), 0, 3))
                failed = rng.random() < 0.004
                vals = [] if failed else _judges(rng, latent)
                if (model, variant, dim, pi, k) == ("GLM 5.1", "baseline", "cognitive_forcing", 1, 0):
                    vals = [2, 4, 3]
                if (model, variant, dim, pi, k) == ("Gemma 4 31B", "with_system_prompt", "anti_sycophancy", 0, 1):
                    vals = [2.5, 2, 2]
                rec = {
                    "run": k,
                    "response": "" if failed else f"Synthetic response {model} / {variant} / {p['id']} / run {k}.",
                    "score": _panel(vals),
                    "reasoning": "" if failed else "synthetic judge reasoning",
                    "evidence": "",
                    "individual_scores": vals,
                    "parse_failures": 0,
                    "latency_ms": round(float(rng.uniform(400, 9000)), 1),
                }
                if failed:
                    rec["error"] = "synthetic model error"
                    rec["reasoning"] = "Model error: synthetic model error"
                    del rec["parse_failures"]
                runs.append(rec)
            valid = [r["score"] for r in runs if r["score"] >= 0]
            text = p.get("prompt", "")
            if (model, variant, dim, pi) == ("DeepSeek V3.2", "baseline", "complementarity", 2):
                text = ""  # anomaly: an empty prompt text
            recs.append(
                {
                    "prompt_id": p["id"],
                    "prompt": text,
                    "domain": p.get("domain", ""),
                    "difficulty": p.get("difficulty", "unspecified"),
                    "primary_dimension": p.get("primary_dimension", dim),
                    "n_runs": len(valid),
                    "runs": runs,
                    "mean_score": float(np.mean(valid)) if valid else -1,
                    "median_score": float(np.median(valid)) if valid else -1,
                    "std_score": float(np.std(valid)) if valid else 0,
                    "score": int(np.median(valid)) if valid else -1,
                    "individual_scores": [s for r in runs for s in r["individual_scores"]],
                }
            )
        out[dim] = recs
    return out


def _scenario_list(src, n: int) -> list[dict]:
    """The bundled scenarios first, then numbered synthetic ones (the release has 16, 5 are bundled)."""
    scen = list(src["scenarios"])
    while len(scen) < n:
        base = src["scenarios"][len(scen) % len(src["scenarios"])]
        scen.append({**base, "scenario_id": f"synthetic_scenario_{len(scen) + 1:02d}"})
    return scen[:n]


def _layer2(rng, src, model, variant, level2, sz) -> list[dict]:
    out = []
    for si, sc in enumerate(_scenario_list(src, sz["n_scenarios"])):
        zero = (model, variant, si) == ("Devstral-2 123B", "baseline", 0)
        turns, scores, checks = [], [], []
        for t in sc["turns"]:
            dims = {}
            for dim in sc.get("dimensions_tested", []):
                s = 0 if zero else _panel(_judges(rng, int(np.clip(np.round(level2 + rng.normal(0, 0.9)), 0, 3))))
                dims[dim] = {"score": s, "reasoning": "synthetic judge reasoning"}
                if s >= 0:
                    scores.append(s)
            beh = {name: bool(rng.random() < (0.35 + 0.2 * level2)) for name in (t.get("expected_behaviors") or {})}
            checks.extend(beh.values())
            turns.append(
                {
                    "turn": t.get("turn"),
                    "user_message": t.get("user", ""),
                    "ai_response": f"Synthetic response {model} / {variant} / {sc['scenario_id']} / turn {t.get('turn')}.",
                    "dimension_scores": dims,
                    "behavior_results": beh,
                    "latency_ms": round(float(rng.uniform(400, 9000)), 1),
                }
            )
        out.append(
            {
                "scenario_id": sc["scenario_id"],
                "model_id": src["model_ids"].get(model, model),
                "with_system_prompt": variant == "with_system_prompt",
                "turns": turns,
                "average_score": float(np.mean(scores)) if scores else 0.0,
                "behavior_pass_rate": float(np.mean(checks)) if checks else 0.0,
            }
        )
    return out


def _layer3(rng, src, model, variant, level3, sz) -> list[dict]:
    out = []
    for pi, p in enumerate(src["adversarial"][: sz["n_adversarial"]]):
        if (model, variant, pi) == ("GPT-oss 120B", "with_system_prompt", 0):
            out.append(
                {
                    "prompt_id": p["id"],
                    "category": p.get("category", "unknown"),
                    "prompt": p.get("prompt", ""),
                    "response": "",
                    "error": "synthetic model error",
                    "score": -1,
                    "reasoning": "Model error: synthetic model error",
                    "latency_ms": 0.0,
                }
            )
            continue
        vals = _judges(rng, int(np.clip(np.round(level3 + rng.normal(0, 0.9)), 0, 3)))
        out.append(
            {
                "prompt_id": p["id"],
                "category": p.get("category", "unknown"),
                "prompt": p.get("prompt", ""),
                "response": f"Synthetic response {model} / {variant} / {p['id']}.",
                "score": _panel(vals),
                "reasoning": "synthetic judge reasoning",
                "evidence": "",
                "individual_scores": vals,
                "latency_ms": round(float(rng.uniform(400, 9000)), 1),
            }
        )
    return out


def results_file(src: dict, model: str, variant: str, rng, sz: dict, stamp: str, effects=None) -> dict:
    """One results file (one model x condition) as the runner writes it; ``effects[d][p]``: prompt ``p`` of
    dimension ``d``'s difficulty on the latent scale (none: 0)."""
    n_dims = len(src["layer1"])
    shift = 0.0 if variant == "baseline" else 0.9
    level = np.clip(rng.uniform(0.3, 1.6, size=n_dims) + shift, 0, 3)
    return {
        "model_id": src["model_ids"].get(model, model),
        "model_name": model,
        "variant": variant,
        "timestamp": stamp,
        "layer1": _layer1(rng, src, model, variant, level, sz, effects),
        "layer2": _layer2(rng, src, model, variant, float(rng.uniform(0.5, 1.0) + shift), sz),
        "layer3": _layer3(rng, src, model, variant, float(rng.uniform(0.3, 0.9) + 1.4 * (shift > 0)), sz),
    }


def file_name(model_id: str, variant: str, stamp: str) -> str:
    """``save_results``'s name: ``{model id}_{variant}_{YYYYmmdd_HHMMSS}.json`` with '/' and ':' as '_'."""
    safe = f"{model_id}_{variant}".replace("/", "_").replace(":", "_")
    return f"{safe}_{stamp}.json"


def count_judge_values(data: dict) -> int:
    """Judge values in one results file: Layer-1 run and prompt ``individual_scores``, Layer-2 turn scores,
    Layer-3 ``individual_scores``."""
    n = 0
    for prompts in data.get("layer1", {}).values():
        for p in prompts:
            n += len(p.get("individual_scores", [])) + sum(len(r.get("individual_scores", [])) for r in p["runs"])
    n += sum(len(t["dimension_scores"]) for s in data.get("layer2", []) for t in s["turns"])
    n += sum(len(p.get("individual_scores", [])) for p in data.get("layer3", []))
    return n


def write_snapshot(outdir: str | Path, seed: int = 0, size: str = "full", pwb: Path | None = None) -> dict:
    """Write ``outdir/results/*.json`` (and ``ANOMALIES.json``); return a summary (files, judge values)."""
    if size not in SIZES:
        raise ValueError(f"--size must be one of {sorted(SIZES)}, not {size!r}")
    sz = SIZES[size]
    src = _sources(Path(pwb or paths.PWB))
    res = Path(outdir) / "results"
    res.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    files, n_values = [], 0
    for mi, model in enumerate(MODEL_NAMES):
        for vi, variant in enumerate(VARIANTS):
            day = 10 + mi
            iso = f"2026-04-{day:02d}T{9 + vi:02d}:00:00+00:00"
            data = results_file(src, model, variant, rng, sz, iso)
            name = file_name(data["model_id"], variant, f"202604{day:02d}_{9 + vi:02d}0000")
            (res / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            files.append(name)
            n_values += count_judge_values(data)
    summary = {"seed": seed, "size": size, "files": files, "judge_values": n_values, "anomalies": ANOMALIES}
    (Path(outdir) / "ANOMALIES.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def write_model(
    outdir: str | Path,
    name: str,
    seed: int = 0,
    size: str = "full",
    pwb: Path | None = None,
    prompt_sd: float = 0.0,
) -> list[Path]:
    """One new model's two results files (baseline and with_system_prompt) in ``outdir`` (created), as the
    runner writes them; for trying ``python -m compendium.pwb.score``. ``prompt_sd``: the standard deviation of
    each prompt's difficulty, shared by both conditions (module docstring; 0: none, the same bytes as without)."""
    if size not in SIZES:
        raise ValueError(f"--size must be one of {sorted(SIZES)}, not {size!r}")
    if not (np.isfinite(prompt_sd) and prompt_sd >= 0):
        raise ValueError(f"--prompt-sd must be a number of 0 or more, not {prompt_sd!r}")
    sz = SIZES[size]
    src = _sources(Path(pwb or paths.PWB))
    rng = np.random.default_rng(seed)
    effects = None
    if prompt_sd > 0:
        erng = np.random.default_rng([seed, 1])
        effects = [erng.normal(0.0, prompt_sd, size=sz["n_prompts"]) for _ in src["layer1"]]
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for vi, variant in enumerate(VARIANTS):
        data = results_file(src, name, variant, rng, sz, f"2026-05-01T{9 + vi:02d}:00:00+00:00", effects)
        f = out / file_name(data["model_id"], variant, f"20260501_{9 + vi:02d}0000")
        f.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        files.append(f)
    return files


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    ap = argparse.ArgumentParser(prog="python -m compendium.data.synthetic_pwb", description=__doc__.split("\n")[0])
    ap.add_argument(
        "outdir", help="folder to write results/*.json into (created; with --model, the two files go into it)"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", choices=sorted(SIZES), default="full")
    ap.add_argument("--model", metavar="NAME", help="write one new model's two results files instead of the release")
    ap.add_argument(
        "--prompt-sd",
        type=float,
        default=0.0,
        metavar="SD",
        help="with --model: each prompt's difficulty, normal with this SD on the 0-3 scale, shared by both conditions (default 0)",
    )
    args = ap.parse_args(argv)
    if args.model is None and args.prompt_sd:
        ap.error("--prompt-sd applies only with --model NAME")
    if args.model is not None:
        try:
            files = write_model(args.outdir, args.model, seed=args.seed, size=args.size, prompt_sd=args.prompt_sd)
        except ValueError as e:
            ap.error(str(e))
        print(
            f"{args.outdir}: {len(files)} results files of {args.model!r} (seed {args.seed}, {args.size}, prompt SD {args.prompt_sd:g})"
        )
        return 0
    s = write_snapshot(args.outdir, seed=args.seed, size=args.size)
    print(
        f"{args.outdir}/results: {len(s['files'])} files, {s['judge_values']:,} judge values (seed {s['seed']}, {s['size']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
