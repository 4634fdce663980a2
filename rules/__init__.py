"""The rules engine: events and referee inputs in, verdicts out (docs/rules-engine.md).

Pipeline of one log: `inputs` (parse) -> `records` (group into shots) -> `engine` (fold over `state`),
each shot through `settle` (inputs), `analysis` (facts), `chain` (1.20), `fouls` (1.29, 1.12), `games`
(scoring by rule set), `explain` (words) -> `verdict`. Geometry: `spotting`, `rack`, `lag`, `clock`.
"""
