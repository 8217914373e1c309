"""Prompt stage: pure functions from an Item and a protocol to a Request.

``protocol.py`` holds EvalProtocol, ``build_request`` and ``prompt_text``; ``mmmu.py`` and
``mmmu_pro.py`` the official templates of each benchmark; ``layout.py`` how ``<image N>``
tokens bind to images and where the images go.
"""

from mmmu_eval.prompt.protocol import EvalProtocol, build_request, prompt_text

__all__ = ["EvalProtocol", "build_request", "prompt_text"]
