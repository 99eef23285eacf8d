"""The Ray driver of bitext's sharded mining (see the package docs).

Usage::

    bitext-ray --address 10.0.0.1:6379 --bitext /shared/bin/bitext -- \\
        --src-embeddings /shared/x.f32 --tgt-embeddings /shared/y.f32 --dim 1024 \\
        --shards 64 --work-dir /shared/work -o /shared/mined.tsv

runs ``bitext mine`` with those arguments as a plan, its steps on the cluster, then the output.
``--plan-only`` and ``-o`` are handled here; every other argument goes to ``bitext mine``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Dict, List, Optional, Sequence

import ray


def load_plan(work_dir: str) -> dict:
    """The plan ``bitext mine --shards N --work-dir DIR --plan-only`` wrote."""
    with open(os.path.join(work_dir, "plan.json"), encoding="utf-8") as f:
        plan = json.load(f)
    if plan.get("format") != "bitext-mine-plan":
        raise ValueError(f"{work_dir}/plan.json is not a bitext mining plan")
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
) -> List[str]:
    """Run every step of the plan in ``work_dir`` as a Ray task (dependencies first; each task
    retried up to ``retries`` times). Connects to ``address`` (``None``: ``RAY_ADDRESS`` or a
    local instance) unless Ray is initialised already. Returns each task's report line."""
    plan = load_plan(work_dir)
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    step = _step.options(max_retries=retries, retry_exceptions=True)
    refs: Dict[str, "ray.ObjectRef"] = {}
    for s in plan["steps"]:
        deps = [refs[d] for d in s["deps"]]
        refs[s["name"]] = step.remote(bitext, work_dir, s["name"], *deps)
    return ray.get([refs[s["name"]] for s in plan["steps"]])


def mine(
    mine_args: Sequence[str],
    work_dir: str,
    bitext: str = "bitext",
    output: Optional[str] = None,
    retries: int = 3,
    address: Optional[str] = None,
) -> List[str]:
    """``bitext mine <mine_args> --plan-only``, the steps on Ray, then ``bitext mine <mine_args>``
    (every step done: it only writes the output, to ``output`` or standard output)."""
    base = [bitext, "mine", *mine_args]
    if "--work-dir" not in mine_args:
        base += ["--work-dir", work_dir]
    subprocess.run([*base, "--plan-only"], check=True)
    reports = run_plan(work_dir, bitext=bitext, retries=retries, address=address)
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
    p.add_argument("mine_args", nargs=argparse.REMAINDER, help="-- then bitext mine arguments")
    a = p.parse_args(argv)
    args = a.mine_args[1:] if a.mine_args[:1] == ["--"] else a.mine_args
    for line in mine(args, a.work_dir, a.bitext, a.output, a.retries, a.address):
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
