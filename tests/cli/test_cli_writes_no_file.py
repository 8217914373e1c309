"""No module of ``cli/`` writes a file (issue 31): the command line parses, calls the API, prints.

Read from the source with ``ast``: every call that writes, creates, moves or removes a file
(``open`` for writing, ``Path.write_text``, ``json.dump``, the atomic writer, a run store's
``write_*``, a writable ``RunStore``, ``mkdir``, ``unlink``, ``shutil.copy``...) is named with its
line. Before, ``score``, ``report``, ``rescore``, ``doctor`` and ``audit`` wrote results.json,
report.html, submission.json and the ``--json`` documents themselves, beside ``run/outputs.py``,
and their rules for results.json differed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "src" / "mmmu_eval" / "cli"

#: Method and function names that write, create, move or remove a file, whatever they are called on.
WRITERS = frozenset({
    "write_text", "write_bytes", "write_json", "write_jsonl", "write_stream", "write_atomically",
    "write_outputs", "update_manifest", "dump", "mkdir", "makedirs", "touch", "unlink", "rmdir", "rmtree",
    "remove", "rename", "replace_file", "copy", "copy2", "copyfile", "copytree", "move", "symlink_to",
    "hardlink_to", "hold_directory", "save_scoring", "save_results", "write_report_page", "write_submission",
})
#: Names that are ordinary calls on strings and lists, not files (``str.replace``, ``list.remove``).
_FILE_MODULES = frozenset({"os", "shutil", "Path", "pathlib"})
_SOMETIMES = frozenset({"remove", "replace", "rename"})


def _mode(call: ast.Call, position: int) -> str | None:
    """The ``mode`` an ``open`` call passes, positionally at ``position`` or by keyword."""
    for keyword in call.keywords:
        if keyword.arg == "mode":
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else "?"
    if len(call.args) > position:
        arg = call.args[position]
        return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else "?"
    return None


def writes_in(source: str, name: str = "<module>") -> list[str]:
    """Each call in ``source`` that writes a file, as ``line: text``."""
    found = []
    for node in ast.walk(ast.parse(source, filename=name)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        writes = False
        if called == "open" and owner == "os":
            # os.open(path, flags): only the null device, where a closed pipe's output is sent
            writes = not (node.args and ast.unparse(node.args[0]) == "os.devnull")
        elif called == "open" and isinstance(func, ast.Name):
            mode = _mode(node, 1)  # open(path, mode): a mode that is not a constant counts as writing
            writes = mode is not None and any(c in mode for c in "wax+?")
        elif called == "open":
            # Path(...).open(mode); another object's open (Image.open(fp)) takes no mode string
            mode = _mode(node, 0)
            writes = mode is not None and mode != "?" and any(c in mode for c in "wax+")
        elif called in _SOMETIMES:
            writes = owner in _FILE_MODULES
        elif called in WRITERS:
            writes = True
        elif called == "RunStore" or (called == "open" and owner == "RunStore"):
            writes = any(k.arg == "writable" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                         for k in node.keywords)
        if writes:
            found.append(f"{node.lineno}: {ast.get_source_segment(source, node)}")
    return found


@pytest.mark.parametrize("module", sorted(p.name for p in CLI.glob("*.py")))
def test_no_cli_module_writes_a_file(module):
    path = CLI / module
    assert writes_in(path.read_text(encoding="utf-8"), str(path)) == [], (
        f"cli/{module} writes a file; give the API call that owns the output a parameter instead")


@pytest.mark.parametrize("source", [
    'Path(args.json).write_text(json.dumps(doc) + "\\n", encoding="utf-8")',
    "json.dump(doc, fh)",
    "write_atomically(Path(args.html), audit_page(result))",
    "out.write_json('results.json', results)",
    "store.write_stream('report.html', page)",
    "RunStore(path, writable=True)",
    "open(args.out, 'w')",
    "open(args.out, mode='ab')",
    "Path(args.out).open('w')",
    "os.replace(tmp, target)",
    "shutil.copytree(a, b)",
    "Path(out).mkdir(parents=True)",
    "os.open(path, os.O_WRONLY | os.O_CREAT)",
])
def test_the_scan_sees_each_kind_of_write(source):
    assert writes_in(source), source


@pytest.mark.parametrize("source", [
    "open(path, 'rb')",
    "open(path)",
    "Path(p).open()",
    "text.replace('a', 'b')",
    "items.remove(x)",
    "RunStore.read(path)",
    "RunStore(path, writable=False)",
    "print(json.dumps(doc))",
    "sys.stdout.write(line)",
    "Image.open(io.BytesIO(data))",
    "os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())",
])
def test_the_scan_lets_reads_and_printing_through(source):
    assert writes_in(source) == [], source
