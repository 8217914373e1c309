"""The published figures a run is set among: the MMMU-Pro paper's Table 1, the MMMU leaderboard
and the human experts, kept as data (``published.json``) with their sources (``figures``).
"""
