"""Store stage: the run directory, the only module that writes run files."""
