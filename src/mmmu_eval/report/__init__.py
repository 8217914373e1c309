"""Report stage: results.json, terminal tables, HTML report, EvalAI submission."""
