"""Score stage: the official parsers, open-answer matching, fallback policy, aggregation.

One file per piece (docs/scoring.md has the whole story):

- ``mmmu_parser`` / ``mmmu_pro_parser``: the two official multiple-choice parsers, exact;
- ``open_answer``: the official open-question parse, number extraction and matching;
- ``boxed`` / ``strict``: the ``\\boxed{}`` protocol and a strict final-answer parser;
- ``judge``: parser name -> one item's Verdict; ``scorer``: a run's Scoring (fallback policy);
- ``aggregate``: tallies per subject, discipline and the other breakdowns;
- ``headline``: the MMMU-Pro headline;
- ``harness_verdicts`` / ``explain``: another harness's verdicts (read from its files by
  ``harnesses/readers``) set beside ours, by cause;
- ``spec``: ``ScoringSpec``, how a run is scored (parsers, fallback, seed, answers), recorded in
  manifest.json by ``run`` and read back by every command that scores a run directory.
"""
