"""`mmmu-eval ... | head`: the reader closing the pipe is not a traceback."""

import subprocess
import sys


def test_data_list_into_a_closed_pipe_prints_no_traceback():
    """`mmmu-eval data list --data sample | head -1` ended in a BrokenPipeError traceback."""
    code = "import sys; from mmmu_eval.cli.main import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "data", "list", "--data", "sample"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first line: every write fails
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err
    assert proc.returncode == 1
