"""How fast the scorer gets through a test split's worth of responses (target: 10,500 in < 1 s).

Synthesises 10,500 MMMU test-split-like items (the real per-subject spread is not needed for
timing: 350 per subject, 95% multiple choice with 2-9 options, 5% open; no gold answers, as on the
test split) and responses of realistic shapes: bare letters, ``(B)``, chain-of-thought paragraphs
ending in ``Answer: C``, numeric open answers, and unparseable text that takes the random
fallback. Scores them with the official parser, then with all parsers, and prints items/s.

    .venv/bin/python benchmarks/scoring_speed.py
"""

from __future__ import annotations

import random
import time

from mmmu_eval.dataset.subjects import SUBJECTS, discipline_of
from mmmu_eval.core.records import Item, Response
from mmmu_eval.scoring.judge import PARSERS
from mmmu_eval.scoring.run import score_run

N_ITEMS = 10_500
COT = ("Let me look at the figure carefully. The diagram shows a structure whose load is transferred "
       "through the beam to the supports, so the bending moment is largest at midspan. Considering the "
       "options one by one, the first two ignore the support reactions and the last one double counts. ")


def synthesise(seed: int = 0) -> tuple[list[Item], dict[str, Response]]:
    rng = random.Random(seed)
    items: list[Item] = []
    responses: dict[str, Response] = {}
    per_subject = N_ITEMS // len(SUBJECTS)
    for subject in SUBJECTS:
        for n in range(1, per_subject + 1):
            item_id = f"test_{subject}_{n}"
            is_open = rng.random() < 0.05
            options = () if is_open else tuple(f"option text {k} for {subject}" for k in range(rng.randint(2, 9)))
            items.append(Item(id=item_id, benchmark="mmmu", split="test", setting=None, subject=subject,
                              discipline=discipline_of(subject), question="q <image 1>", options=options,
                              answer=None, question_type="open" if is_open else "multiple-choice", images=()))
            letter = chr(ord("A") + rng.randrange(max(len(options), 1)))
            if is_open:
                text = rng.choice([f"The answer is {rng.uniform(0, 1e4):.3f} N", "x = 12,500\nso 12.5 kN", COT])
            else:
                text = rng.choice([letter, f"({letter})", f"{COT * rng.randint(1, 6)}\nAnswer: {letter}",
                                   f"The correct answer is {letter}.", "I am not sure about this image."])
            responses[item_id] = Response(item_id, "ok", text)
    return items, responses


def timed(items, responses, parsers) -> float:
    start = time.perf_counter()
    score_run(items, responses, parsers=parsers)
    return time.perf_counter() - start


def main() -> None:
    items, responses = synthesise()
    timed(items[:500], responses, ("official",))  # warm up imports and regex caches
    for parsers in (("official",), PARSERS):
        best = min(timed(items, responses, parsers) for _ in range(3))
        print(f"{len(items)} items, parsers {', '.join(parsers)}: {best:.3f} s, "
              f"{len(items) / best:,.0f} items/s (best of 3, one core)")


if __name__ == "__main__":
    main()
