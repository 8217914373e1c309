"""Pure statistics: numbers in, numbers out, each seed a parameter.

Intervals, the paired bootstrap and McNemar (``intervals``), the 2PL item response model
(``irt``), and a ``--sample`` run's design, estimates and hold-one-model-out check
(``sample_design``, ``sampled``, ``sample_check``).
"""
