"""The commands over finished runs, one module per command, each one call returning a frozen record.

``score`` (a run scored again), ``report`` (its report written again), ``compare`` (two runs item by
item), ``merge`` (shards into one run), ``rescore`` (another harness's outputs scored the official
way) and ``diagnose`` (``mmmu-eval doctor``). ``cli/<command>.py`` parses the flags and prints;
the module of the same name here does the work.
"""
