"""Prompt stage: pure functions from an Item and a protocol to a Request.

``protocol.py`` holds EvalProtocol, ``build_request`` and ``prompt_text``; ``mmmu.py`` and
``mmmu_pro.py`` the official templates of each benchmark; ``layout.py`` how ``<image N>``
tokens bind to images and where the images go. Below the backends, because every backend and the
RL environment must agree on them: ``images.py`` (the image bytes that are sent), ``messages.py``
(a Request's chat form, as an OpenAI-compatible server receives it) and ``reasoning.py`` (where
the answer that is parsed begins, after a ``<think>`` block).
"""

from mmmu_eval.prompt.protocol import EvalProtocol, build_request, prompt_text

__all__ = ["EvalProtocol", "build_request", "prompt_text"]
