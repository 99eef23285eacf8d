"""Run bitext's sharded mining plans on Ray: no scheduler of our own.

``bitext mine ... --shards N --work-dir DIR --plan-only`` writes ``DIR/plan.json`` (steps with
their dependencies); :func:`run_plan` submits every step as a Ray task that calls
``bitext mine-step --work-dir DIR STEP`` on a file system all nodes share, after the tasks of
its dependencies, with retries; the same ``bitext mine ... --shards N --work-dir DIR`` command
then finds every step done and writes the output. :func:`mine` does the three in order.
"""

from .driver import clean_tsv, filter_tsv, load_plan, mine, run_plan

__all__ = ["clean_tsv", "filter_tsv", "load_plan", "mine", "run_plan"]
