"""Hosting a KAIST-style challenge with the kit as its evaluator.

- `columns`: the leaderboard's columns (metric, setting, split, protocol), their labels and descriptions;
- `scoring`: what runs on the platform's worker: score one upload, EvalAI's `evaluate` and Codabench's
  scoring program (numpy and the kit's core only, which `bundle` copies into the bundles);
- `evalai`, `codabench`: the bundles; `check`: the lint of a bundle, the kit's or a hand-made one;
- `leaderboard`, `site`, `svg`: the static leaderboard site of a folder of results;
- `yamlout`, `bundle`: the YAML the configurations are written in, deterministic zips, the copied core.

This file imports nothing, so that the core copied into a bundle stays the closure of `scoring`.
"""
