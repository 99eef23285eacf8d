"""The Ray driver of bitext's sharded mining (see the package docs).

Usage::

    bitext-ray --address 10.0.0.1:6379 --bitext /shared/bin/bitext -- \\
        --src-embeddings /shared/x.f32 --tgt-embeddings /shared/y.f32 --dim 1024 \\
        --shards 64 --work-dir /shared/work -o /shared/mined.tsv

runs ``bitext mine`` with those arguments as a plan, its steps on the cluster, then the output.
``--plan-only`` and ``-o`` are handled here; every other argument goes to ``bitext mine``.
With ``--src-text A --tgt-text B --encoder SPEC`` the plan embeds the text too: its ``embed``
steps can ask for other resources than the search steps (``--embed-resources '{"num_gpus": 1}'``
puts them on GPU nodes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

import ray


PLAN_FORMATS = ("bitext-mine-plan", "bitext-filter-plan", "bitext-clean-plan")


def load_plan(work_dir: str) -> dict:
    """The plan ``bitext mine``, ``bitext filter`` or ``bitext clean`` with ``--shards N
    --work-dir DIR --plan-only`` wrote."""
    with open(os.path.join(work_dir, "plan.json"), encoding="utf-8") as f:
        plan = json.load(f)
    if plan.get("format") not in PLAN_FORMATS:
        raise ValueError(f"{work_dir}/plan.json is not a bitext mining, filter or cleaning plan")
    return plan


@ray.remote(num_cpus=1)
def _step(bitext: str, work_dir: str, name: str, *deps: str) -> str:
    """Run one step (after ``deps``, the names its dependencies' tasks returned)."""
    # faiss parallelises with OpenMP; OpenBLAS's own threads on top of it halved the speed of
    # index training on a 2-core node (docs/BENCHMARKS.md, "Sharded mining").
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run(
        [bitext, "mine-step", "--work-dir", work_dir, name],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"bitext mine-step {name} failed ({proc.returncode}): {proc.stderr}")
    node = ray.get_runtime_context().get_node_id()
    return f"{name}\tnode {node}\tpid {os.getpid()}\t{proc.stderr.strip()}"


def run_plan(
    work_dir: str,
    bitext: str = "bitext",
    retries: int = 3,
    address: Optional[str] = None,
    embed_resources: Optional[dict] = None,
    progress: Optional[Callable[[int, int, str], None]] = None,
) -> List[str]:
    """Run every step of the plan in ``work_dir`` as a Ray task (dependencies first; each task
    retried up to ``retries`` times). Connects to ``address`` (``None``: ``RAY_ADDRESS`` or a
    local instance) unless Ray is initialised already. ``embed_resources`` are Ray task options
    of the embed steps (``{"num_gpus": 1}``, ``{"resources": {"encoder": 1}}``); ``progress``
    gets the count done, the count in all and each finished task's report line. Returns the
    report lines in plan order."""
    plan = load_plan(work_dir)
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    retry = {"max_retries": retries, "retry_exceptions": True}
    step = _step.options(**retry)
    embed = _step.options(**retry, **(embed_resources or {}))
    refs: Dict[str, "ray.ObjectRef"] = {}
    for s in plan["steps"]:
        deps = [refs[d] for d in s["deps"]]
        task = embed if s.get("kind") in ("embed", "score-lines", "judge") else step
        refs[s["name"]] = task.remote(bitext, work_dir, s["name"], *deps)
    pending = list(refs.values())
    total = len(pending)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        line = ray.get(done[0])
        if progress is not None:
            progress(total - len(pending), total, line)
    return ray.get([refs[s["name"]] for s in plan["steps"]])


def _print_progress(done: int, total: int, line: str) -> None:
    name, node = line.split("\t")[:2]
    print(f"[{done}/{total}] {name} ({node})", file=sys.stderr, flush=True)


def _tsv_command(command: str, doc: str) -> Callable[..., List[str]]:
    """The driver of a plan over one TSV (``filter``, ``clean``): ``bitext <command> <args>
    --plan-only``, the steps on Ray, then the command again."""

    def run(args: Sequence[str], work_dir: str, **options: Any) -> List[str]:
        """See the module's functions: ``options`` are :func:`run_plan`'s (``bitext``,
        ``retries``, ``address``, ``embed_resources``, ``progress``)."""
        return _plan_and_run(command, args, work_dir, **options)

    run.__name__ = run.__qualname__ = f"{command}_tsv"
    run.__doc__ = doc
    return run


filter_tsv = _tsv_command(
    "filter",
    """``bitext filter <args> --plan-only``, the steps on Ray, then ``bitext filter <args>``
    (every step done: it copies the filtered TSV to the ``-o`` its arguments name).
    ``embed_resources`` apply to the scoring steps (which run the encoder, if any).""",
)

clean_tsv = _tsv_command(
    "clean",
    """``bitext clean <args> --plan-only``, the steps on Ray, then ``bitext clean <args>``
    (every step done: it copies the kept and removed lines to the files its arguments name,
    and reports). ``embed_resources`` apply to the ``judge`` steps (language identification
    and the encoder, if any).""",
)


def mine(mine_args: Sequence[str], work_dir: str, **options: Any) -> List[str]:
    """``bitext mine <mine_args> --plan-only``, the steps on Ray, then ``bitext mine <mine_args>``
    (every step done: it only writes the output, to ``output=`` or standard output). The other
    options are :func:`run_plan`'s (``bitext``, ``retries``, ``address``, ``embed_resources``,
    ``progress``)."""
    return _plan_and_run("mine", mine_args, work_dir, **options)


def _plan_and_run(
    command: str,
    args: Sequence[str],
    work_dir: str,
    bitext: str = "bitext",
    output: Optional[str] = None,
    retries: int = 3,
    address: Optional[str] = None,
    embed_resources: Optional[dict] = None,
    progress: Optional[Callable[[int, int, str], None]] = None,
) -> List[str]:
    """``bitext <command> <args> --plan-only``, the plan's steps on Ray, then the command again
    (it finds every step done and writes the output)."""
    base = [bitext, command, *args]
    if "--work-dir" not in args:
        base += ["--work-dir", work_dir]
    subprocess.run([*base, "--plan-only"], check=True)
    reports = run_plan(
        work_dir,
        bitext=bitext,
        retries=retries,
        address=address,
        embed_resources=embed_resources,
        progress=progress,
    )
    final = base + (["-o", output] if output else [])
    subprocess.run(final, check=True)
    return reports


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS or a local Ray)")
    p.add_argument("--bitext", default="bitext", help="the bitext binary, on every node")
    p.add_argument("--retries", type=int, default=3, help="retries of a failed step")
    p.add_argument("--work-dir", required=True, help="shared work directory")
    p.add_argument("-o", "--output", help="output file (default: standard output)")
    p.add_argument(
        "--embed-resources",
        type=json.loads,
        help='Ray task options of the embed steps, as JSON (e.g. \'{"num_gpus": 1}\')',
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument(
        "--command",
        choices=("mine", "filter", "score", "clean"),
        default="mine",
        help="the bitext command whose plan to run (default: mine)",
    )
    p.add_argument("mine_args", nargs=argparse.REMAINDER, help="-- then bitext mine arguments")
    a = p.parse_args(argv)
    args = a.mine_args[1:] if a.mine_args[:1] == ["--"] else a.mine_args
    progress = None if a.quiet else _print_progress
    if a.command in ("filter", "score", "clean"):
        if a.output:
            args = [*args, "-o", a.output]
        _plan_and_run(
            a.command, args, a.work_dir, bitext=a.bitext, retries=a.retries, address=a.address,
            embed_resources=a.embed_resources, progress=progress,
        )
        return 0
    mine(
        args, a.work_dir, bitext=a.bitext, output=a.output, retries=a.retries, address=a.address,
        embed_resources=a.embed_resources, progress=progress,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
