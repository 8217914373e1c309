"""Two models for mmmu-eval, registered under the ``mmmu_eval.backends`` entry-point group.

- ``letter:X`` (``letter.py``): the factory form. mmmu-eval calls ``make_model("X")`` and makes
  the chat function it returns a backend.
- ``guess:`` or ``guess:SALT`` (``guess.py``): the class form. mmmu-eval calls
  ``GuessBackend.from_settings("SALT", settings)`` with the run's ``CustomSettings``.
"""
